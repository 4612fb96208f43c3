/**
 * What an evaluator is (issue 28; docs/evaluators.md): an automated judge, an HTTP endpoint a team
 * runs, that feedloop asks about responses (pointwise) or pairs of responses (pairwise). Pure:
 * the shapes, the defaults, and which changes make a new version.
 *
 * @module
 */

/** Pointwise: one response at a time. Pairwise: the two responses of a pairwise review item. */
export const EVALUATOR_KINDS = ['pointwise', 'pairwise'] as const;
/** One of {@link EVALUATOR_KINDS}. */
export type EvaluatorKind = (typeof EVALUATOR_KINDS)[number];

/** What a pointwise judge answers: thumbs (up/down), a rating (1-5 stars), or a score. */
export const EVALUATOR_OUTPUTS = ['thumbs', 'rating', 'score'] as const;
/** One of {@link EVALUATOR_OUTPUTS}. */
export type EvaluatorOutput = (typeof EVALUATOR_OUTPUTS)[number];

/** The settings of an evaluator that decide what it answers. */
export interface EvaluatorAnswerSettings {
  url: string;
  kind: EvaluatorKind;
  output: EvaluatorOutput;
  scoreConfigId: string | null;
  filter: Record<string, unknown>;
}

/** Defaults of the optional fields of a new evaluator, in one place. */
export const EVALUATOR_DEFAULTS = Object.freeze({
  sample: 1,
  timeoutMs: 10_000,
  ratePerMinute: 60,
  enabled: true,
});

/** Bounds of the numeric fields. */
export const EVALUATOR_LIMITS = Object.freeze({
  timeoutMsMin: 100,
  timeoutMsMax: 120_000,
  ratePerMinuteMin: 1,
  ratePerMinuteMax: 10_000,
});

/** A JSON value with its object keys sorted, so two equal filters compare equal whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Whether a change of settings makes a new evaluator version: a change of what is asked, where,
 * or how the answer is read (url, kind, output, scoreConfigId, filter). Name, sample, timeout,
 * budget and enabled change no answer, so they keep the version (and the items judged under it).
 *
 * @example
 * versionChanges(before, { ...before, url: 'https://judge.example/v2' }) // true
 * versionChanges(before, { ...before })                                  // false
 */
export function versionChanges(before: EvaluatorAnswerSettings, after: EvaluatorAnswerSettings): boolean {
  return (
    before.url !== after.url ||
    before.kind !== after.kind ||
    before.output !== after.output ||
    before.scoreConfigId !== after.scoreConfigId ||
    canonical(before.filter) !== canonical(after.filter)
  );
}
