/**
 * A judge held to the humans (issue 28): on the units that have both an automated judge's answer
 * and a human label, how often they agree, how far beyond chance (Cohen's kappa), and for
 * ratings how far apart (quadratic-weighted kappa, Spearman's rho); per ISO week so drift shows;
 * and the disagreements, worst first, which are what a team reads to fix its judge. Pure: the
 * route pairs the answers with the human labels and hands them here.
 *
 * @module
 */
import { bootstrapEstimates, type BootstrapOptions, type Estimate } from './bootstrap.js';
import { categoriesOf, type Category } from './categories.js';
import { cohenKappaStatistic } from './cohen-kappa.js';
import { confusionMatrix, type ConfusionMatrix } from './confusion-matrix.js';
import { spearmanStatistic } from './spearman.js';
import { summedStatistic, type SummedStatistic } from './summed-statistic.js';
import { weightedKappaStatistic } from './weighted-kappa.js';

/** What a judge answers: thumbs (binary), a label (nominal), or a rating (ordinal numbers). */
export type CalibrationKind = 'binary' | 'nominal' | 'rating';

/** One unit judged by both sides. */
export interface CalibrationPair {
  /** The response (or pairwise item) both sides labelled. */
  unitId: string;
  judge: Category;
  human: Category;
  /** The unit's ISO week, e.g. `2026-W48`. */
  week: string;
  kind: CalibrationKind;
}

/** The figures of one set of pairs. */
export interface CalibrationFigures {
  n: number;
  /** Share of units where judge and humans gave the same label. */
  agreement: Estimate;
  cohenKappa: Estimate;
  /** Ratings only: quadratic-weighted kappa; null for other kinds. */
  weightedKappa: Estimate | null;
  /** Ratings only: Spearman's rho with ties; null for other kinds. */
  spearman: Estimate | null;
}

/** One disagreement, for the team to read. */
export interface CalibrationDisagreement {
  unitId: string;
  judge: Category;
  human: Category;
  week: string;
  /** How far apart: |judge − human| for ratings, 1 for a label mismatch. */
  distance: number;
}

/** A judge's calibration report. */
export interface JudgeCalibration extends CalibrationFigures {
  kind: CalibrationKind | null;
  /** Rows: the judge's label; columns: the human label. */
  confusion: ConfusionMatrix;
  /** Per week, oldest first. */
  weeks: (CalibrationFigures & { week: string })[];
  /** Worst first (largest distance, then the most recent week, then unit id). */
  disagreements: CalibrationDisagreement[];
}

/** Options of {@link judgeCalibration}. */
export interface CalibrationOptions extends BootstrapOptions {
  /** Disagreements listed at most (default 100). */
  maxDisagreements?: number;
}

/**
 * Builds a judge's calibration report. All pairs must be of one kind (an evaluator has one output
 * kind); a rating pair must hold numbers.
 *
 * @example
 * judgeCalibration([
 *   { unitId: 'r1', judge: 'positive', human: 'positive', week: '2026-W48', kind: 'binary' },
 *   { unitId: 'r2', judge: 'positive', human: 'negative', week: '2026-W48', kind: 'binary' },
 * ]).agreement.value // 0.5
 */
export function judgeCalibration(pairs: readonly CalibrationPair[], options: CalibrationOptions = {}): JudgeCalibration {
  const kinds = new Set(pairs.map((pair) => pair.kind));
  if (kinds.size > 1) throw new RangeError(`calibration pairs must share one kind, got ${[...kinds].sort().join(', ')}`);
  const kind = pairs[0]?.kind ?? null;
  if (kind === 'rating') {
    for (const pair of pairs) {
      if (typeof pair.judge !== 'number' || typeof pair.human !== 'number') throw new RangeError(`rating pairs need numbers (unit ${pair.unitId})`);
    }
  }
  const labels = categoriesOf(pairs.flatMap((pair) => [pair.judge, pair.human]));
  const weekNames = [...new Set(pairs.map((pair) => pair.week))].sort();
  const distance = (pair: CalibrationPair): number =>
    kind === 'rating' ? Math.abs((pair.judge as number) - (pair.human as number)) : pair.judge === pair.human ? 0 : 1;
  const disagreements = pairs
    .filter((pair) => distance(pair) > 0)
    .map((pair) => ({ unitId: pair.unitId, judge: pair.judge, human: pair.human, week: pair.week, distance: distance(pair) }))
    .sort((a, b) => b.distance - a.distance || (a.week < b.week ? 1 : a.week > b.week ? -1 : 0) || (a.unitId < b.unitId ? -1 : a.unitId > b.unitId ? 1 : 0))
    .slice(0, options.maxDisagreements ?? 100);
  return {
    kind,
    ...figures(pairs, kind, labels, options),
    confusion: confusionMatrix(
      pairs.map((pair) => [pair.judge, pair.human] as const),
      labels,
    ),
    weeks: weekNames.map((week) => ({ week, ...figures(pairs.filter((pair) => pair.week === week), kind, labels, options) })),
    disagreements,
  };
}

function figures(pairs: readonly CalibrationPair[], kind: CalibrationKind | null, labels: readonly Category[], options: BootstrapOptions): CalibrationFigures {
  const statistics: SummedStatistic[] = [
    summedStatistic(
      2,
      pairs.map((pair) => [
        [0, pair.judge === pair.human ? 1 : 0],
        [1, 1],
      ]),
      (totals) => (totals[1]! > 0 ? totals[0]! / totals[1]! : null),
    ),
    cohenKappaStatistic(
      pairs.map((pair) => [pair.judge, pair.human] as const),
      labels,
    ),
  ];
  if (kind === 'rating') {
    const numeric = pairs.map((pair) => [pair.judge as number, pair.human as number] as const);
    statistics.push(weightedKappaStatistic(numeric, 'quadratic'), spearmanStatistic(numeric));
  }
  const [agreement, cohenKappa, weightedKappa, spearman] = bootstrapEstimates(statistics, options);
  return { n: pairs.length, agreement: agreement!, cohenKappa: cohenKappa!, weightedKappa: weightedKappa ?? null, spearman: spearman ?? null };
}
