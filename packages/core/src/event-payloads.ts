/**
 * The payload schema of each feedback event type. Field names follow the seed each type comes
 * from: camelCase for the ADR-016 / ADR-004 / RLHF types, the ADR-0012 tool's own snake_case
 * keys for the label actions, so their payloads are exactly what that tool sends.
 */
import { z } from 'zod';
import { ID_PATTERN, LIMITS } from './limits.js';

const comment = z.string().min(1).max(LIMITS.commentMaxLength);
const label = z.string().min(1).max(LIMITS.labelMaxLength);
const text = z.string().max(LIMITS.textMaxLength);
const percent = z.number().int().min(0).max(100);
const elapsedMs = z.number().int().min(0).describe('Time from the response to the behaviour, in ms');

/** ADR-016 error categories for a negative rating. */
export const ERROR_CATEGORIES = [
  'missing_context',
  'wrong_context',
  'ignored_constraints',
  'hallucination',
  'style_mismatch',
  'other',
] as const;

/** ADR-016 issues an output review can name. */
export const OUTPUT_ISSUES = [
  'hallucination',
  'missed_requirement',
  'style_issue',
  'security_concern',
  'performance_concern',
] as const;

/** Phase 4.1 categories a RAG thumbs vote may carry. */
export const RAG_CATEGORIES = ['accuracy', 'relevance', 'completeness', 'timeliness', 'other'] as const;

/** The word a preference names instead of a response id when neither answer is better. */
export const PREFERENCE_TIE = 'tie';

const responseRef = z.string().min(1).max(LIMITS.idMaxLength).regex(ID_PATTERN, 'may hold only letters, digits and _ - . : @ /');

/**
 * A preference between two responses to the same query: a chat UI's "which answer do you
 * prefer", a reviewer's pairwise verdict (issue 27), an evaluator's (issue 28). Answers name
 * response ids, never positions: `shown` records the order the two were shown in, so position
 * bias can be measured apart from the verdict. The event's `responseId` is one of the pair.
 */
export const preferencePayloadSchema = z
  .strictObject({
    pair: z.tuple([responseRef, responseRef]).describe('The two response ids compared'),
    preferred: responseRef.describe('One of `pair`, or `"tie"`'),
    shown: z.tuple([responseRef, responseRef]).optional().describe('The order the two were shown in: first, second'),
    reason: comment.optional(),
  })
  .superRefine((p, ctx) => {
    const [a, b] = p.pair;
    if (a === PREFERENCE_TIE || b === PREFERENCE_TIE) {
      ctx.addIssue({ code: 'custom', message: '"tie" is reserved for `preferred` and cannot name a response', path: ['pair'] });
    } else if (a === b) {
      ctx.addIssue({ code: 'custom', message: 'the two responses must differ', path: ['pair'] });
    } else if (p.preferred !== PREFERENCE_TIE && p.preferred !== a && p.preferred !== b) {
      ctx.addIssue({ code: 'custom', message: `must be one of the pair (${JSON.stringify(a)}, ${JSON.stringify(b)}) or "tie"`, path: ['preferred'] });
    } else if (p.shown && !((p.shown[0] === a && p.shown[1] === b) || (p.shown[0] === b && p.shown[1] === a))) {
      ctx.addIssue({ code: 'custom', message: 'must hold the two responses of the pair, in the order shown', path: ['shown'] });
    }
  });

/** An object payload whose fields are all optional may be left out of the event. */
function optionalPayload<T extends z.ZodObject>(schema: T) {
  return schema.prefault({} as z.input<T>);
}

/**
 * The score a thumbs vote or a rating was made from, set by feedloop when it maps a `score`
 * event through its config (`mapsTo`); clients do not send it (docs/scores.md).
 */
export const mappedScoreSchema = z
  .strictObject({
    name: label,
    value: z.number().finite().optional(),
    stringValue: label.optional(),
    configId: label.optional(),
  })
  .describe('Set by feedloop: the score this vote was mapped from');

const vote = optionalPayload(
  z.strictObject({ comment: comment.optional(), category: z.enum(RAG_CATEGORIES).optional(), score: mappedScoreSchema.optional() }),
);

/** Payload schemas keyed by event type. */
export const PAYLOAD_SCHEMAS = {
  thumbs_up: vote,
  thumbs_down: vote,
  rating: z.strictObject({
    rating: z.number().int().min(1).max(5).describe('Stars, 1-5'),
    aspect: label.optional(),
    comment: comment.optional(),
    score: mappedScoreSchema.optional(),
  }),
  skip: optionalPayload(z.strictObject({})),
  comment: z.strictObject({ comment }),
  error_categories: z.strictObject({
    categories: z.array(z.enum(ERROR_CATEGORIES)).min(1).max(ERROR_CATEGORIES.length),
    missingContext: comment.optional(),
    comment: comment.optional(),
  }),
  quality_scores: z
    .strictObject({ accuracy: percent.optional(), completeness: percent.optional(), styleMatch: percent.optional() })
    .refine((s) => s.accuracy !== undefined || s.completeness !== undefined || s.styleMatch !== undefined, {
      message: 'at least one of accuracy, completeness, styleMatch is required',
      path: ['accuracy'],
    }),
  review: z.strictObject({
    verdict: z.enum(['approved', 'changes_requested', 'rejected']),
    issues: z.array(z.enum(OUTPUT_ISSUES)).max(OUTPUT_ISSUES.length).default([]),
    editDistance: percent.optional(),
    comment: comment.optional(),
  }),
  correction: z.strictObject({
    original: text.optional().describe("Defaults to the response's answer"),
    corrected: text.min(1),
    format: z.enum(['text', 'sql', 'code', 'json']).optional(),
    comment: comment.optional(),
  }),
  escalation: optionalPayload(z.strictObject({ reason: comment.optional(), channel: label.optional() })),
  correct_label: z.strictObject({
    correct_relation: label,
    original_relation: label.optional(),
    confidence: z.number().min(0).max(1).optional(),
    reason: comment.optional(),
  }),
  flag_irrelevant: optionalPayload(z.strictObject({ reason: comment.optional() })),
  flag_missing: z.strictObject({ missing_text: comment, location_hint: comment.optional() }),
  correct_citation: z.strictObject({
    cited_fragment_id: label,
    relation: label.default('CITES'),
    correction_type: z.enum(['add', 'remove']),
  }),
  rate_usefulness: z.strictObject({
    rating: z.number().int().min(1).max(5),
    aspect: z.enum(['relevance', 'clarity', 'credibility']).optional(),
  }),
  add_note: z.strictObject({ note: comment }),
  score: z
    .strictObject({
      name: label.describe('The score name, e.g. `helpfulness`; a score config of that name validates and maps it'),
      value: z.number().finite().optional().describe('A numeric or boolean (1/0) value'),
      stringValue: label.optional().describe("A categorical value's label, or `true`/`false`"),
      configId: label.optional().describe('The score config to validate against; defaults to the config named `name`'),
      comment: comment.optional(),
    })
    .refine((s) => s.value !== undefined || s.stringValue !== undefined, {
      message: 'at least one of value, stringValue is required',
      path: ['value'],
    }),
  preference: preferencePayloadSchema,
  edit: z.strictObject({
    original: text.optional().describe("Defaults to the response's answer"),
    edited: text,
    phase: z.enum(['immediate', 'long_term']).default('immediate'),
    elapsedMs: elapsedMs.optional(),
  }),
  retry: z.strictObject({ rephrasedQuery: text.min(1), elapsedMs: elapsedMs.optional() }),
  abandon: optionalPayload(z.strictObject({ stage: label.optional(), elapsedMs: elapsedMs.optional() })),
  continue: optionalPayload(z.strictObject({ action: label.optional(), elapsedMs: elapsedMs.optional() })),
  implicit_accept: optionalPayload(z.strictObject({ action: label.optional(), details: z.record(z.string(), z.unknown()).optional() })),
  implicit_reject: optionalPayload(z.strictObject({ reason: comment.optional(), followUpQuery: text.optional() })),
  outcome: z.strictObject({
    metric: label,
    value: z.number().finite(),
    source: z.enum(['integration', 'user_report']),
    artifactId: label.optional(),
  }),
} as const;

/** The payload type of one event type, e.g. `FeedbackPayload<'rating'>`. */
export type FeedbackPayload<T extends keyof typeof PAYLOAD_SCHEMAS> = z.output<(typeof PAYLOAD_SCHEMAS)[T]>;
