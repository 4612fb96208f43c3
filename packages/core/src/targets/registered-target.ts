/**
 * Targets a client registers with their content (`PUT /v1/targets/:id`, MCP `register_target`):
 * ADR-0012's graph as feedloop needs it to turn label corrections into training samples and to
 * recompute a claim's confidence. A fragment, claim or page carries its `text`; an edge joins a
 * fragment (the premise) to a claim (the hypothesis) with the model's `relation` and `confidence`.
 */
import { z } from 'zod';
import { idSchema } from '../event-schema.js';
import { LIMITS } from '../limits.js';

/** The kinds of registered targets. */
export const TARGET_KINDS = ['fragment', 'claim', 'edge', 'page'] as const;
/** One of {@link TARGET_KINDS}. */
export type TargetKind = (typeof TARGET_KINDS)[number];

/** The fields only an edge has. */
const EDGE_FIELDS = ['fragmentId', 'claimId', 'relation', 'confidence'] as const;

/** The body of `PUT /v1/targets/:id`. */
export const registeredTargetSchema = z
  .strictObject({
    kind: z.enum(TARGET_KINDS),
    text: z.string().min(1).max(LIMITS.textMaxLength).optional().describe("The target's content: a fragment's text, a claim, a page"),
    fragmentId: idSchema.optional().describe('An edge: the fragment it is drawn from (the NLI premise)'),
    claimId: idSchema.optional().describe('An edge: the claim it bears on (the NLI hypothesis)'),
    relation: z.string().min(1).max(LIMITS.labelMaxLength).optional().describe("An edge: the model's relation, e.g. SUPPORTS"),
    confidence: z.number().min(0).max(1).optional().describe("An edge: the model's confidence in its relation, 0-1"),
  })
  .superRefine((t, ctx) => {
    if (t.kind === 'edge') {
      for (const field of ['fragmentId', 'claimId'] as const) {
        if (t[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: `${field}: required for an edge` });
      }
    } else {
      for (const field of EDGE_FIELDS) {
        if (t[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: `${field}: only an edge has it (kind is ${t.kind})` });
      }
    }
  });

/** A registration as validated. */
export type TargetRegistration = z.output<typeof registeredTargetSchema>;
