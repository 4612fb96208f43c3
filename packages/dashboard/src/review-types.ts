/**
 * The shapes of the review API (issue 27; docs/review.md) as the dashboard reads them, and the
 * lists it offers. The verdicts and issues repeat core's REVIEW_VERDICTS and OUTPUT_ISSUES: the
 * dashboard imports core's modules one by one, and those sit beside zod schemas that would more
 * than double the bundle.
 */

/** core's REVIEW_VERDICTS, in key order (1, 2, 3). */
export const VERDICTS = ['approved', 'changes_requested', 'rejected'] as const;
/** A verdict. */
export type Verdict = (typeof VERDICTS)[number];
/** Each verdict in words. */
export const VERDICT_LABELS: Record<Verdict, string> = { approved: 'Approved', changes_requested: 'Changes requested', rejected: 'Rejected' };
/** core's OUTPUT_ISSUES. */
export const ISSUES = ['hallucination', 'missed_requirement', 'style_issue', 'security_concern', 'performance_concern'] as const;
/** The quality scores of a review (0–100 each). */
export const QUALITY = ['accuracy', 'completeness', 'styleMatch'] as const;

/** A queue's rubric: which fields a single review holds. */
export interface Rubric { verdict: boolean; issues: boolean; qualityScores: boolean; correction: boolean; comment: boolean; scoreConfigs?: string[] }
/** A rule: responses matching `filter` join the queue, `sample` of them. */
export interface QueueRule { filter: Record<string, string | number | boolean>; sample: number }
/** A queue's items by state. */
export interface Progress { total: number; pending: number; inProgress: number; done: number }

/** A queue as `GET /v1/review-queues` lists it. */
export interface Queue {
  id: string; name: string; kind: 'single' | 'pairwise'; instructions: string; rubric: Rubric;
  reviewersPerItem: number; reservationSeconds: number; members: string[]; rules: QueueRule[]; datasetId: string | null;
  createdAt?: string; updatedAt?: string;
  progress?: Progress;
  /** This reviewer's own reviews in the queue (a reviewer key's listing). */
  reviewed?: number;
}

/** A feedback event on a response, as the reviewing screen lists it. */
export interface PriorFeedback { id: string; type: string; userId: string | null; source: string; occurredAt: string; payload: unknown }
/** One response of an item, in this reviewer's order. */
export interface ItemResponse {
  id: string; query: string; answer: string;
  /** The sources (URLs or ids, or objects) and context documents the answer was made from. */
  sources: unknown[]; contextDocumentIds: unknown[];
  model: string | null; agent: string | null; experimentId: string | null; variant: string | null; createdAt: string;
  /** Feedback so far, newest first (this queue's own reviews left out). */
  feedback: PriorFeedback[];
}
/** A score config a rubric lists (its named scores may be given). */
export interface RubricScore { id: string; name: string; dataType: string; min?: number | null; max?: number | null; categories?: Array<{ value: number; label: string }> | null }

/** What `POST /v1/review-queues/:id/next` answers: the reserved item and all it shows. */
export interface Reserved {
  queue: { id: string; name: string; kind: 'single' | 'pairwise'; instructions: string; rubric: Rubric; reviewersPerItem: number };
  /** Who reviews: the reviewer key's name (or the member a secret key acts for). */
  reviewer: string;
  item: { id: string; state: 'open' | 'done'; reviews: number };
  reservation: { reservedAt: string; expiresAt: string } | null;
  /** The response ids in the order shown to this reviewer (pairwise: randomized per item and reviewer). */
  order: string[];
  /** One response (single), or the pair, in that order. */
  responses: ItemResponse[];
  /** Named scores' configs, when the server sends them (a reviewer key cannot read /v1/score-configs). */
  scoreConfigs?: RubricScore[];
}

/** A single review as sent. */
export interface SingleReviewBody {
  verdict?: Verdict; issues?: string[]; qualityScores?: Partial<Record<(typeof QUALITY)[number], number>>;
  correction?: string; scores?: Array<{ name: string; value?: number; stringValue?: string }>; comment?: string;
}
