/**
 * Size limits shared by validation, the HTTP layer and the docs. One place, so a limit is never
 * stated twice with two values.
 */
export const LIMITS = {
  /** Client-made ids (event, response, user, session, target): 1-128 characters. */
  idMaxLength: 128,
  /** Query, answer and correction texts. */
  textMaxLength: 200_000,
  /** Comments, notes, reasons. */
  commentMaxLength: 10_000,
  /** Short labels: aspect, model, agent, metric names. */
  labelMaxLength: 200,
  /** Events or responses in one batch request. */
  batchMaxItems: 1_000,
  /** Sources or context document ids on one response. */
  sourcesMaxItems: 1_000,
  /**
   * Levels of objects and arrays in one event or response (the item itself is level 1): deep
   * enough for any real metadata, far below what the database's JSON parser or a recursive
   * `JSON.stringify` would fail on (issue 22).
   */
  jsonMaxDepth: 32,
  /** How far an `occurredAt` may lie in the future (clock skew allowance), in ms. */
  futureSkewMs: 5 * 60_000,
} as const;

/** Client ids: letters, digits and `_ - . : @ /`; no spaces or control characters. */
export const ID_PATTERN = /^[A-Za-z0-9_\-.:@/]+$/;
