/**
 * The schema of an AI response as an application registers it: the query, the answer and the
 * context that produced it (ADR-016 context snapshot, Phase 4.1 sources, RLHF agent and query type).
 */
import { z } from 'zod';
import { idSchema, metadataSchema, timestampSchema } from './event-schema.js';
import { LIMITS } from './limits.js';

const label = z.string().min(1).max(LIMITS.labelMaxLength);

/** A response registration. */
export const responseSchema = z.strictObject({
  id: idSchema.optional().describe('Client response id; the server makes a UUIDv7 when absent'),
  sessionId: idSchema.optional(),
  userId: idSchema.optional(),
  query: z.string().min(1).max(LIMITS.textMaxLength),
  answer: z.string().max(LIMITS.textMaxLength),
  sources: z.array(z.string().min(1).max(2_048)).max(LIMITS.sourcesMaxItems).optional().describe('Source URLs or ids'),
  contextDocumentIds: z.array(idSchema).max(LIMITS.sourcesMaxItems).optional(),
  contextTokenCount: z.number().int().min(0).optional(),
  model: label.optional(),
  agent: label.optional(),
  queryType: label.optional(),
  experimentId: idSchema.optional(),
  variant: label.optional(),
  traceId: label.optional(),
  metadata: metadataSchema.optional(),
  createdAt: timestampSchema.optional().describe('When the response was produced; defaults to receipt'),
});

/** A response as a client sends it. */
export type ResponseInput = z.input<typeof responseSchema>;
/** A validated response registration. */
export type ResponseRegistration = z.output<typeof responseSchema>;
