/**
 * The feedback event taxonomy: every event type feedloop accepts and the signal source it belongs to.
 * Drawn from the five seed documents (ADR-016, ADR-004, ADR-0012, Phase 4.1, Feedback-and-RLHF).
 */

/** Where a signal comes from: a person saying it, behaviour implying it, or a measured result. */
export const SIGNAL_SOURCES = ['explicit', 'implicit', 'outcome'] as const;
/** One of {@link SIGNAL_SOURCES}. */
export type SignalSource = (typeof SIGNAL_SOURCES)[number];

/** Every feedback event type with its signal source; the order is the documentation order. */
export const EVENT_TYPE_SOURCES = {
  thumbs_up: 'explicit',
  thumbs_down: 'explicit',
  rating: 'explicit',
  skip: 'explicit',
  comment: 'explicit',
  error_categories: 'explicit',
  quality_scores: 'explicit',
  review: 'explicit',
  correction: 'explicit',
  escalation: 'explicit',
  correct_label: 'explicit',
  flag_irrelevant: 'explicit',
  flag_missing: 'explicit',
  correct_citation: 'explicit',
  rate_usefulness: 'explicit',
  add_note: 'explicit',
  score: 'explicit',
  edit: 'implicit',
  retry: 'implicit',
  abandon: 'implicit',
  continue: 'implicit',
  implicit_accept: 'implicit',
  implicit_reject: 'implicit',
  outcome: 'outcome',
} as const satisfies Record<string, SignalSource>;

/** A feedback event type name, e.g. `thumbs_up` or `correction`. */
export type FeedbackEventType = keyof typeof EVENT_TYPE_SOURCES;

/** All event type names. */
export const FEEDBACK_EVENT_TYPES = Object.keys(EVENT_TYPE_SOURCES) as FeedbackEventType[];

/** The label actions of the ADR-0012 feedback tool; they target a part of a response by `targetId`. */
export const LABEL_ACTION_TYPES = [
  'correct_label',
  'flag_irrelevant',
  'flag_missing',
  'correct_citation',
  'rate_usefulness',
  'add_note',
] as const satisfies readonly FeedbackEventType[];

/**
 * Vote types that replace each other: a user's newest vote on a response is the one that counts.
 * Ratings form their own slot per aspect, so a 4-star "clarity" vote does not replace a thumbs up.
 */
export const THUMBS_TYPES = ['thumbs_up', 'thumbs_down'] as const satisfies readonly FeedbackEventType[];

/**
 * Tells whether a string names a known event type.
 *
 * @example
 * isFeedbackEventType('thumbs_up') // true
 * isFeedbackEventType('like') // false
 */
export function isFeedbackEventType(value: unknown): value is FeedbackEventType {
  return typeof value === 'string' && Object.hasOwn(EVENT_TYPE_SOURCES, value);
}

/**
 * The signal source a type belongs to; used when an event does not say its source.
 *
 * @example
 * sourceOfType('retry') // 'implicit'
 */
export function sourceOfType(type: FeedbackEventType): SignalSource {
  return EVENT_TYPE_SOURCES[type];
}
