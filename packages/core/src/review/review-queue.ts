/**
 * Review queues (issue 27): the shape of a queue as the API takes it, and the limits it keeps.
 * One definition gives the server's validation and the dashboard's types. A rule's `filter` is
 * the response list's filter vocabulary (`GET /v1/responses`), checked by the server, which owns
 * that list; here it is only a JSON object.
 */
import { z } from 'zod';
import { idSchema } from '../event-schema.js';

/** Reviewers an item needs at most. */
export const MAX_REVIEWERS_PER_ITEM = 5;
/** How long `next` holds an item for its reviewer by default (ten minutes). */
export const DEFAULT_RESERVATION_SECONDS = 600;
/** The longest reservation a queue may ask for (a day). */
export const MAX_RESERVATION_SECONDS = 86_400;
/** Members and rules a queue may list. */
export const MAX_QUEUE_MEMBERS = 500;
export const MAX_QUEUE_RULES = 20;
/** Instructions (markdown) at most, in characters. */
export const MAX_INSTRUCTIONS_LENGTH = 20_000;

/** The two kinds of queue: one response per item, or two answers to one query side by side. */
export const REVIEW_QUEUE_KINDS = ['single', 'pairwise'] as const;
/** One of {@link REVIEW_QUEUE_KINDS}. */
export type ReviewQueueKind = (typeof REVIEW_QUEUE_KINDS)[number];

/**
 * What a single review may hold: each flag turns a field of the review on; `scoreConfigs` lists
 * the score configs (ids) whose named scores the review may give.
 */
export const rubricSchema = z.strictObject({
  verdict: z.boolean().default(true),
  issues: z.boolean().default(true),
  qualityScores: z.boolean().default(false),
  correction: z.boolean().default(true),
  comment: z.boolean().default(true),
  scoreConfigs: z.array(idSchema).max(20).optional(),
});
/** A queue's rubric, defaults applied. */
export type Rubric = z.output<typeof rubricSchema>;

/** A rule: responses matching `filter` join the queue, `sample` of them (0–1, decided per response). */
export const queueRuleSchema = z.strictObject({
  filter: z.record(z.string(), z.unknown()).describe("The response list's filters (GET /v1/responses query fields)"),
  sample: z.number().min(0).max(1).default(1),
});
/** A rule, defaults applied. */
export type QueueRule = z.output<typeof queueRuleSchema>;

const queueFields = {
  name: z.string().trim().min(1).max(200),
  instructions: z.string().max(MAX_INSTRUCTIONS_LENGTH).describe('Markdown shown to reviewers'),
  rubric: rubricSchema,
  reviewersPerItem: z.number().int().min(1).max(MAX_REVIEWERS_PER_ITEM),
  reservationSeconds: z.number().int().min(10).max(MAX_RESERVATION_SECONDS),
  members: z.array(idSchema).max(MAX_QUEUE_MEMBERS).describe('Reviewer key ids of the workspace'),
  rules: z.array(queueRuleSchema).max(MAX_QUEUE_RULES),
  datasetId: idSchema.nullable().describe('A dataset the approved or corrected items go to'),
};

/** `POST /v1/review-queues`. */
export const reviewQueueInputSchema = z.strictObject({
  name: queueFields.name,
  kind: z.enum(REVIEW_QUEUE_KINDS).default('single'),
  instructions: queueFields.instructions.default(''),
  rubric: queueFields.rubric.prefault({}),
  reviewersPerItem: queueFields.reviewersPerItem.default(1),
  reservationSeconds: queueFields.reservationSeconds.default(DEFAULT_RESERVATION_SECONDS),
  members: queueFields.members.default([]),
  rules: queueFields.rules.default([]),
  datasetId: queueFields.datasetId.optional(),
});
/** A new queue, defaults applied. */
export type ReviewQueueInput = z.output<typeof reviewQueueInputSchema>;

/** `PATCH /v1/review-queues/:id`: any field but the kind (items are made for one kind). */
export const reviewQueuePatchSchema = z.strictObject({
  name: queueFields.name.optional(),
  instructions: queueFields.instructions.optional(),
  rubric: queueFields.rubric.optional(),
  reviewersPerItem: queueFields.reviewersPerItem.optional(),
  reservationSeconds: queueFields.reservationSeconds.optional(),
  members: queueFields.members.optional(),
  rules: queueFields.rules.optional(),
  datasetId: queueFields.datasetId.optional(),
});
/** A queue change. */
export type ReviewQueuePatch = z.output<typeof reviewQueuePatchSchema>;

/**
 * A 32-bit hash of a string: FNV-1a, then MurmurHash3's finalizer so every bit depends on every
 * character (FNV-1a's lowest bit alone is the parity of the characters' lowest bits: "ann" and
 * "ben" would always see a pair in the same order). Stable across processes and browsers.
 */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * Whether a rule's sample keeps a response: decided by a hash of (queue, response), so the same
 * response gets the same answer however often the pipeline sees it, and about `sample` of all
 * responses are kept.
 *
 * @example
 * sampleKeeps('rq_1', 'r1', 1) // true
 * sampleKeeps('rq_1', 'r1', 0) // false
 */
export function sampleKeeps(queueId: string, responseId: string, sample: number): boolean {
  if (sample >= 1) return true;
  if (sample <= 0) return false;
  return hash32(`${queueId}\u0000${responseId}`) / 0x1_0000_0000 < sample;
}

/**
 * The order a pairwise item's two responses are shown to one reviewer: randomized per (item,
 * reviewer) by a hash, so a reviewer sees the same order on every visit, and across reviewers
 * each response is first about half the time (position bias can be measured).
 *
 * @example
 * pairOrder('ri_1', 'ann', 'r1', 'r2') // ['r2', 'r1'] or ['r1', 'r2'], always the same for ann
 */
export function pairOrder(itemId: string, reviewer: string, a: string, b: string): [string, string] {
  return hash32(`${itemId}\u0000${reviewer}`) % 2 === 0 ? [a, b] : [b, a];
}
