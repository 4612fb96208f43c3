/**
 * ADR-016 context-document effectiveness, Bayesian-smoothed: a document's score is the mean of
 * the Beta posterior of "a response that used it was good" from a uniform prior, so a document
 * with one thumbs up does not outrank one with a hundred, and its 95 % interval says how sure
 * the score is. Flagged-irrelevant counts against it like a negative.
 *
 * @module
 */
import { betaQuantile } from '../stats/distributions.js';

/** A document's (or a source's) counts. */
export interface DocumentCounts {
  uses: number;
  positive: number;
  negative: number;
  flaggedIrrelevant: number;
  flaggedMissing: number;
}

/** The smoothed score and its interval. */
export interface DocumentScore {
  /** (positive + 1) / (positive + negative + flaggedIrrelevant + 2), in (0, 1). */
  effectiveness: number;
  /** The 95 % equal-tailed interval of the Beta(positive + 1, negative + flaggedIrrelevant + 1) posterior. */
  interval: [number, number];
}

const round = (x: number): number => Math.round(x * 10_000) / 10_000;

/**
 * Scores a document from its counts.
 *
 * @example
 * documentScore({ uses: 10, positive: 8, negative: 1, flaggedIrrelevant: 1, flaggedMissing: 0 })
 * // { effectiveness: 0.75, interval: [0.4822, 0.9398] } (approximately)
 */
export function documentScore(c: DocumentCounts): DocumentScore {
  const a = c.positive + 1;
  const b = c.negative + c.flaggedIrrelevant + 1;
  return { effectiveness: round(a / (a + b)), interval: [round(betaQuantile(0.025, a, b)), round(betaQuantile(0.975, a, b))] };
}

/**
 * The source a document belongs to: a URL's host, else the part of the id before its first `:`
 * or `/` (`kb:pricing-42` → `kb`), else the id itself.
 *
 * @example
 * documentSource('https://docs.example.com/a/b') // 'docs.example.com'
 * documentSource('kb:pricing-42') // 'kb'
 */
export function documentSource(documentId: string): string {
  const url = /^https?:\/\/(?:[^@/?#]*@)?([^/?#:]+)/i.exec(documentId);
  if (url?.[1]) return url[1].toLowerCase();
  const cut = documentId.search(/[:/]/);
  return cut > 0 ? documentId.slice(0, cut) : documentId;
}
