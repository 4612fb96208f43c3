/**
 * The shapes the processing pipeline passes between its stages (dedup → enrich → classify →
 * weigh → learning signal → apply). Each stage is a pure function over these; the server's
 * adapters load them from the store and write their results back.
 */
import type { FeedbackEvent } from '../event-schema.js';
import type { FeedbackEventType, SignalSource } from '../event-types.js';

/** Whether a signal says the response was good, bad, or neither. */
export type Polarity = 'positive' | 'negative' | 'neutral';

/** How urgently a negative signal asks for attention. */
export type Severity = 'none' | 'low' | 'medium' | 'high';

/**
 * The ADR-004 signal classes weights are set for. `explicit_neutral` (a comment, a skip, a note)
 * is counted but carries no weight by default.
 */
export const SIGNAL_CLASSES = [
  'explicit_positive',
  'explicit_negative',
  'explicit_neutral',
  'immediate_edit',
  'long_term_edit',
  'abandonment',
  'retry',
  'continued_use',
  'outcome',
] as const;

/** One of {@link SIGNAL_CLASSES}. */
export type SignalClass = (typeof SIGNAL_CLASSES)[number];

/** The response an event is about, as the enrich stage attaches it. */
export interface ResponseContext {
  id: string;
  query: string;
  answer: string;
  model: string | null;
  agent: string | null;
  queryType: string | null;
  experimentId: string | null;
  variant: string | null;
  contextDocumentIds: string[];
  sessionId: string | null;
  userId: string | null;
  createdAt: Date;
}

/** A feedback event as stored: the validated event plus what ingest decided about it. */
export type StoredEvent = FeedbackEvent & {
  id: string;
  workspaceId: string;
  userId: string | null;
  sessionId: string | null;
  targetId: string | null;
  /** ADR-016 percentage (0-100) of changed characters, for corrections and edits. */
  editDistance: number | null;
  occurredAt: Date;
  receivedAt: Date;
  /** Set when ingest found a content duplicate inside the dedup window. */
  duplicateOf: string | null;
  /** Set when the same voter's newer vote replaced this one. */
  supersededBy: string | null;
  /** True when the event was retracted (it stays in the log, and counts for nothing). */
  retracted?: boolean;
};

/** An event with its response, session and user attached (the enrich stage's output). */
export interface EnrichedEvent {
  event: StoredEvent;
  response: ResponseContext;
  /** The event's session, else the response's. */
  sessionId: string | null;
  /** The event's user, else the response's. */
  userId: string | null;
}

/** What the classify stage makes of one event. */
export interface Classification {
  polarity: Polarity;
  severity: Severity;
  /** Error categories, review issues and RAG categories the event names, deduplicated. */
  categories: string[];
  signalClass: SignalClass;
  /** How good the event says the response is, in [-1, 1]; the learning signal's reward. */
  value: number;
  /** true: this event accepts the response as it was; false: it rejects or corrects it; null: says nothing of it. */
  firstPass: boolean | null;
}

/** A learning signal in the Feedback-and-RLHF seed's shape. */
export interface LearningSignal {
  signal_type: string;
  input: string;
  expected_output: string | null;
  actual_output: string;
  /** In [-1, 1]. */
  reward: number;
  context: Record<string, unknown>;
}

/** One classified signal of a response, as the composite score reads it. */
export interface ScoredSignal {
  eventId: string;
  type: FeedbackEventType;
  userId: string | null;
  signalClass: SignalClass;
  polarity: Polarity;
  value: number;
  occurredAt: Date;
  editDistance: number | null;
  /**
   * Whether the signal is verified for its user (secret key, or a feedback token naming them);
   * absent counts as verified. An unverified signal's user is a claim (a public key's `userId`,
   * or the response's user inherited by an anonymous vote), so it never conflicts with, and so
   * never discounts, the verified signals of that user (issue 22).
   */
  verified?: boolean;
  /**
   * A named score's weight, from its config (issue 26 §1, default 0: the score leaves the
   * composite alone); when set it replaces the signal class's weight, and `value` is the score
   * scaled to [-1, 1] (core's `scoreReward`).
   */
  scoreWeight?: number;
  /**
   * Who gave the signal (core's `SignalSource`); absent counts as its type's own. A `review`
   * weighs as a user's signal of its type; a `judge` weighs what `judgeWeight` says (0 until
   * its evaluator is calibrated: docs/evaluators.md).
   */
  source?: SignalSource;
  /** A judge signal's evaluator (`metadata.evaluatorId`). */
  evaluatorId?: string;
  /** A judge signal's evaluator's current weight factor (`judgeWeightFactor`: 0 or 0.3); absent weighs 0. */
  judgeWeightFactor?: number;
}

/** Two signals of one user on one response that disagree, and what the score made of it. */
export interface SignalConflict {
  kind: string;
  userId: string | null;
  earlierEventId: string;
  laterEventId: string;
  resolution: string;
}

/** A response's composite quality from all its signals. */
export interface CompositeScore {
  /** Weighted, decayed mean of the signals' values in [-1, 1]; null when no signal carries weight. */
  score: number | null;
  /** In [0, 1): grows with the total effective weight behind the score. */
  confidence: number;
  /** Sum of effective weights (after decay and conflict discounts). */
  weightSum: number;
  signalCount: number;
  conflicts: SignalConflict[];
}
