/**
 * The agreement statistics against the worked examples of the papers that defined them (issue 28:
 * "Kappa and alpha computations checked against published worked examples (Cohen 1960; Fleiss
 * 1971)"). The textbook examples (Wikipedia's, scikit-learn's vectors, Krippendorff 2011) are in
 * agreement-statistics.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { cohenKappa, kappaOfTable, type RatingPair } from '../src/agreement/cohen-kappa.js';
import { confusionMatrix } from '../src/agreement/confusion-matrix.js';
import { fleissKappa } from '../src/agreement/fleiss-kappa.js';
import { judgeCalibration } from '../src/agreement/judge-calibration.js';
import { percentAgreement } from '../src/agreement/percent-agreement.js';

// Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and Psychological
// Measurement 20, 37-46, table 1: two judges sort 200 subjects into 3 categories (rows judge A,
// columns judge B), as proportions; p_o = .70, p_c = .41, κ = .29 / .59 = .49. Cohen (1968,
// Psychological Bulletin 70, 213-220) reuses the table and reports κ = .492 (and weighted
// κ = .348, which needs weights of its own that weightedKappa does not take). Transcribed from R
// package psych, man/kappa.Rd (cohen.kappa examples: "data matrix taken from Cohen", "cohen
// reports .492 and .348"; github.com/cran/psych).
const cohen1960 = [
  [0.44, 0.07, 0.09],
  [0.05, 0.2, 0.05],
  [0.01, 0.03, 0.06],
];
const COHEN_SUBJECTS = 200;
const categories = ['1', '2', '3'];
/** The 200 subjects as (judge A, judge B) pairs. */
const cohenPairs: RatingPair<string>[] = cohen1960.flatMap((row, a) =>
  row.flatMap((share, b) => Array.from({ length: Math.round(share * COHEN_SUBJECTS) }, () => [categories[a]!, categories[b]!] as const)),
);

// Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological
// Bulletin 76(5), 378-382, table 1: 30 patients, each diagnosed by 6 of the psychiatrists into 5
// categories (1 depression, 2 personality disorder, 3 schizophrenia, 4 neurosis, 5 other).
// Published κ = .430; R's irr::kappam.fleiss(diagnoses) gives 0.4302445. Transcribed from
// statsmodels, statsmodels/stats/tests/test_inter_rater.py (`diagnoses`, test_fleiss_kappa_irr,
// and test_aggregate_raters's category totals 26, 26, 30, 55, 43; github.com/statsmodels/statsmodels).
const diagnoses = [
  [4, 4, 4, 4, 4, 4],
  [2, 2, 2, 5, 5, 5],
  [2, 3, 3, 3, 3, 5],
  [5, 5, 5, 5, 5, 5],
  [2, 2, 2, 4, 4, 4],
  [1, 1, 3, 3, 3, 3],
  [3, 3, 3, 3, 5, 5],
  [1, 1, 3, 3, 3, 4],
  [1, 1, 4, 4, 4, 4],
  [5, 5, 5, 5, 5, 5],
  [1, 4, 4, 4, 4, 4],
  [1, 2, 4, 4, 4, 4],
  [2, 2, 2, 3, 3, 3],
  [1, 4, 4, 4, 4, 4],
  [2, 2, 4, 4, 4, 5],
  [3, 3, 3, 3, 3, 5],
  [1, 1, 1, 4, 5, 5],
  [1, 1, 1, 1, 1, 2],
  [2, 2, 4, 4, 4, 4],
  [1, 3, 3, 5, 5, 5],
  [5, 5, 5, 5, 5, 5],
  [2, 4, 4, 4, 4, 4],
  [2, 2, 4, 5, 5, 5],
  [1, 1, 4, 4, 4, 4],
  [1, 4, 4, 4, 4, 5],
  [2, 2, 2, 2, 2, 4],
  [1, 1, 1, 1, 5, 5],
  [2, 2, 4, 4, 4, 4],
  [1, 3, 3, 3, 3, 3],
  [5, 5, 5, 5, 5, 5],
];
const DIAGNOSES = 5;
/** The subjects × categories table of counts Fleiss' kappa takes. */
const diagnosisCounts = diagnoses.map((ratings) => Array.from({ length: DIAGNOSES }, (_, c) => ratings.filter((r) => r === c + 1).length));

describe('Cohen (1960): two judges, 200 subjects, 3 categories', () => {
  it('p_o = .70, p_c = .41, κ = .492', () => {
    expect(cohenPairs).toHaveLength(COHEN_SUBJECTS);
    expect(percentAgreement(cohenPairs.map((pair) => [...pair]))).toBeCloseTo(0.7, 12);
    const rowShares = cohen1960.map((row) => row.reduce((a, b) => a + b, 0));
    const columnShares = categories.map((_, j) => cohen1960.reduce((sum, row) => sum + row[j]!, 0));
    expect(rowShares.reduce((sum, share, i) => sum + share * columnShares[i]!, 0)).toBeCloseTo(0.41, 12);

    const kappa = cohenKappa(cohenPairs);
    expect(kappa).toBeCloseTo(0.29 / 0.59, 12);
    expect(kappa).toBeCloseTo(0.492, 3);
    // The same from the table of proportions, as the paper gives it.
    expect(kappaOfTable(cohen1960.flat(), 3)).toBeCloseTo(0.29 / 0.59, 12);
  });

  it('is what a judge calibration reports with judge A as the judge and judge B as the humans', () => {
    const report = judgeCalibration(cohenPairs.map(([judge, human], i) => ({ unitId: `s${i}`, judge, human, week: '2026-11-23', kind: 'nominal' as const })));
    expect(report.n).toBe(COHEN_SUBJECTS);
    expect(report.agreement.value).toBeCloseTo(0.7, 12);
    expect(report.cohenKappa.value).toBeCloseTo(0.29 / 0.59, 12);
    expect(report.confusion).toEqual(confusionMatrix(cohenPairs, categories));
    expect(report.confusion.counts).toEqual(cohen1960.map((row) => row.map((share) => Math.round(share * COHEN_SUBJECTS))));
    expect(report.disagreements).toHaveLength(COHEN_SUBJECTS * 0.3);
  });
});

describe('Fleiss (1971): 30 patients, 6 psychiatrists each, 5 diagnoses', () => {
  it('κ = .430 (0.4302445 as R irr computes it)', () => {
    expect(diagnoses.every((ratings) => ratings.length === 6)).toBe(true);
    expect(diagnosisCounts.reduce((totals, row) => totals.map((t, c) => t + row[c]!), [0, 0, 0, 0, 0])).toEqual([26, 26, 30, 55, 43]);
    const kappa = fleissKappa(diagnosisCounts);
    expect(kappa).toBeCloseTo(0.430, 3);
    expect(kappa).toBeCloseTo(0.4302445, 7);
  });

  it("agrees with the mean pairwise agreement P̄ and the chance agreement of the category shares", () => {
    // κ = (P̄ − P̄_e) / (1 − P̄_e): P̄ from percentAgreement, P̄_e from the table's totals.
    const observed = percentAgreement(diagnoses)!;
    const totals = [26, 26, 30, 55, 43];
    const chance = totals.reduce((sum, t) => sum + (t / 180) ** 2, 0);
    expect(fleissKappa(diagnosisCounts)).toBeCloseTo((observed - chance) / (1 - chance), 12);
  });
});
