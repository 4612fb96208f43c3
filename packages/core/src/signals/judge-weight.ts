/**
 * How much an automated evaluator's (a judge's) signal counts in a response's composite score.
 * A judge is a model grading a model: until it is shown to agree with the team's humans its
 * answers are stored, shown and counted by source, but weigh nothing.
 */
import type { WorkspaceSettings } from '../workspace-settings.js';
import type { ScoredSignal } from './signal-types.js';

/**
 * The weight of one `judge` signal in the composite score: 0 for now, whatever the signal.
 *
 * Issue 28 (evaluators with calibration) replaces the body: the evaluator's weight (default
 * 0.3 × `humanWeight`) only while its kappa against human labels over the last 30 days is at
 * least 0.6 with n ≥ 50; below that, 0. Everything the rule needs reaches this function: the
 * signal (with its `evaluatorId`), the human weight of the same type and class, the settings.
 * It is the only place a judge's weight is decided; `compositeScore` calls it for every signal
 * whose source is `judge` (reviews keep their human weight).
 *
 * @param signal the judge's signal (`source: 'judge'`, `evaluatorId` from `metadata.evaluatorId`).
 * @param humanWeight what the same signal would weigh from a person: its class's (or score config's) weight.
 * @example
 * judgeWeight({ ...thumbsUp, source: 'judge', evaluatorId: 'gpt-judge' }, 1, settings) // 0
 */
export function judgeWeight(signal: ScoredSignal, humanWeight: number, settings: WorkspaceSettings): number {
  void signal;
  void humanWeight;
  void settings;
  return 0;
}
