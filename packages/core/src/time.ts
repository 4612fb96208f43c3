/**
 * Time constants shared by every layer, defined once (issue 25: `DAY_MS` was written in seven
 * files). UTC days throughout: feedloop's days are UTC days.
 */

/** Milliseconds in a (UTC) day. */
export const DAY_MS = 86_400_000;
