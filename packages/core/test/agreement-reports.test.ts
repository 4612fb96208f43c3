import { describe, expect, it } from 'vitest';
import { judgeCalibration, type CalibrationPair } from '../src/agreement/judge-calibration.js';
import { majorityLabel, median } from '../src/agreement/majority.js';
import { queueAgreement, type AgreementReview } from '../src/agreement/queue-agreement.js';
import { agreementReviewOf } from '../src/agreement/stored-review.js';

// Three reviewers on four items; every figure below is worked by hand in the comments.
//   i1: ana approve, ben approve, cy approve
//   i2: ana approve, ben reject,  cy approve
//   i3: ana reject,  ben reject
//   i4: ana approve (one review: left out of agreement)
const reviews: AgreementReview[] = [
  { itemId: 'i1', reviewer: 'ana', label: 'approve', scores: { accuracy: 80 }, seconds: 10 },
  { itemId: 'i1', reviewer: 'ben', label: 'approve', scores: { accuracy: 70 }, seconds: 5 },
  { itemId: 'i1', reviewer: 'cy', label: 'approve' },
  { itemId: 'i2', reviewer: 'ana', label: 'approve', scores: { accuracy: 50 }, seconds: 20 },
  { itemId: 'i2', reviewer: 'ben', label: 'reject', scores: { accuracy: 50 }, seconds: 15 },
  { itemId: 'i2', reviewer: 'cy', label: 'approve', scores: { accuracy: 60 } },
  { itemId: 'i3', reviewer: 'ana', label: 'reject', scores: { accuracy: 90 }, seconds: 30 },
  { itemId: 'i3', reviewer: 'ben', label: 'reject', seconds: 100 },
  { itemId: 'i4', reviewer: 'ana', label: 'approve', seconds: 40 },
];

describe('queueAgreement', () => {
  const report = queueAgreement(reviews);

  it('counts items and leaves single reviews out', () => {
    expect(report.items).toEqual({ reviewed: 4, withTwoOrMore: 3 });
    expect(report.resamples).toBe(1000);
    expect(queueAgreement(reviews, { resamples: 300 }).resamples).toBe(300);
    // per item agreeing pairs: i1 1, i2 1/3 (ana–cy of three pairs), i3 1 → mean 7/9
    expect(report.percentAgreement.value).toBeCloseTo(7 / 9, 12);
    expect(report.percentAgreement.n).toBe(3);
  });

  it("gives Cohen's kappa per reviewer pair", () => {
    const byPair = Object.fromEntries(report.cohenKappa.map((pair) => [pair.reviewers.join('-'), pair]));
    // ana–ben on i1 (A,A) i2 (A,R) i3 (R,R): p_o 2/3, p_e 2/9 + 2/9 → κ = 0.4
    expect(byPair['ana-ben']!.value).toBeCloseTo(0.4, 12);
    expect(byPair['ana-ben']!.n).toBe(3);
    // ana–cy agree on both shared items but both only said approve: κ undefined
    expect(byPair['ana-cy']).toMatchObject({ value: null, n: 2 });
    // ben–cy on i1 (A,A) i2 (R,A): p_o 1/2, p_e 1/2 → κ = 0
    expect(byPair['ben-cy']!.value).toBeCloseTo(0, 12);
  });

  it("gives Fleiss' kappa over the most common review count", () => {
    // i1 [3, 0] and i2 [2, 1] (3 reviewers): P̄ = (1 + 1/3)/2, P_e = (5/6)² + (1/6)² → κ = −0.2
    expect(report.fleissKappa?.reviewersPerItem).toBe(3);
    expect(report.fleissKappa?.n).toBe(2);
    expect(report.fleissKappa?.value).toBeCloseTo(-0.2, 12);
  });

  it("gives Krippendorff's alpha for labels (nominal) and each score (interval, missing allowed)", () => {
    // coincidences: o_AA 3 + 1, o_AR = o_RA = 1, o_RR 2 → n_A 5, n_R 3, α = 1 − 7·2/(64 − 25 − 9) = 8/15
    expect(report.krippendorffAlpha.labels.value).toBeCloseTo(8 / 15, 12);
    // accuracy: i1 [80, 70], i2 [50, 50, 60], i3 [90] (unpairable). Within: 200 + 200; expected
    // 2(5·19,900 − 310²) = 6,800; α = 1 − 4·400/6,800 = 13/17
    expect(report.krippendorffAlpha.scores).toHaveLength(1);
    expect(report.krippendorffAlpha.scores[0]!.name).toBe('accuracy');
    expect(report.krippendorffAlpha.scores[0]!.value).toBeCloseTo(13 / 17, 12);
    expect(report.krippendorffAlpha.scores[0]!.n).toBe(2);
  });

  it('brackets every estimate by its interval and repeats it exactly', () => {
    for (const estimate of [report.percentAgreement, report.krippendorffAlpha.labels, report.fleissKappa!]) {
      expect(estimate.low!).toBeLessThanOrEqual(estimate.value!);
      expect(estimate.high!).toBeGreaterThanOrEqual(estimate.value!);
    }
    expect(queueAgreement(reviews)).toEqual(report);
  });

  it('gives per reviewer: items done, median seconds, agreement with the others’ majority', () => {
    const byName = Object.fromEntries(report.reviewers.map((reviewer) => [reviewer.reviewer, reviewer]));
    expect(byName['ana']).toMatchObject({ itemsDone: 4, medianSeconds: 25 });
    // ana: i1 with majority approve ✓, i2 others split (left out), i3 with reject ✓ → 2 of 2
    expect(byName['ana']!.agreementWithMajority).toMatchObject({ rate: 1, n: 2 });
    // ben: i1 ✓, i2 others say approve, ben reject ✗, i3 ✓ → 2 of 3
    expect(byName['ben']!.agreementWithMajority.rate).toBeCloseTo(2 / 3, 12);
    expect(byName['ben']).toMatchObject({ itemsDone: 3, medianSeconds: 15 });
    expect(byName['cy']).toMatchObject({ itemsDone: 2, medianSeconds: null });
    expect(byName['cy']!.agreementWithMajority).toMatchObject({ rate: 1, n: 1 });
  });

  it('measures position bias over pairwise reviews, overall and per reviewer, ties left out', () => {
    const pairwise = queueAgreement([
      { itemId: 'p1', reviewer: 'ana', label: 'a', firstPositionWon: true },
      { itemId: 'p1', reviewer: 'ben', label: 'a', firstPositionWon: false },
      { itemId: 'p2', reviewer: 'ana', label: 'b', firstPositionWon: true },
      { itemId: 'p2', reviewer: 'ben', label: 'tie', firstPositionWon: null },
      { itemId: 'p3', reviewer: 'ana', label: 'b', firstPositionWon: true },
    ]);
    expect(pairwise.positionBias).toMatchObject({ n: 4, firstWins: 3, share: 0.75 });
    const ana = pairwise.reviewers.find((reviewer) => reviewer.reviewer === 'ana')!;
    expect(ana.positionBias).toMatchObject({ n: 3, firstWins: 3, share: 1 });
    expect(ana.positionBias.low!).toBeLessThan(1);
    expect(pairwise.reviewers.find((reviewer) => reviewer.reviewer === 'ben')!.positionBias).toMatchObject({ n: 1, firstWins: 0 });
  });

  it('lets a later review by the same reviewer replace the earlier one', () => {
    const again = queueAgreement([...reviews, { itemId: 'i2', reviewer: 'ben', label: 'approve' }]);
    // i2 now all approve: mean agreement (1 + 1 + 1)/3
    expect(again.percentAgreement.value).toBeCloseTo(1, 12);
  });

  it('counts a review without a label for its scores and time only', () => {
    const unlabelled = queueAgreement([...reviews, { itemId: 'i3', reviewer: 'cy', label: null, scores: { accuracy: 90 }, seconds: 7 }]);
    // labels as before; i3's accuracy now [90, 90] pairs: within 0, values 80 70 50 50 60 90 90
    expect(unlabelled.percentAgreement.value).toBeCloseTo(7 / 9, 12);
    expect(unlabelled.fleissKappa).toMatchObject({ reviewersPerItem: 3, n: 2 });
    expect(unlabelled.krippendorffAlpha.scores[0]!.n).toBe(3);
    expect(unlabelled.reviewers.find((reviewer) => reviewer.reviewer === 'cy')).toMatchObject({ itemsDone: 3, medianSeconds: 7 });
    expect(unlabelled.reviewers.find((reviewer) => reviewer.reviewer === 'cy')!.agreementWithMajority.n).toBe(1);
  });

  it('has nothing to say about a queue without shared items', () => {
    const lone = queueAgreement([{ itemId: 'x', reviewer: 'ana', label: 'approve' }]);
    expect(lone.percentAgreement).toEqual({ value: null, low: null, high: null, n: 0 });
    expect(lone.fleissKappa).toBeNull();
    expect(lone.cohenKappa).toEqual([]);
    expect(queueAgreement([]).items).toEqual({ reviewed: 0, withTwoOrMore: 0 });
  });
});

describe('judgeCalibration', () => {
  const binary: CalibrationPair[] = [
    { unitId: 'r1', judge: 'positive', human: 'positive', week: '2026-W47', kind: 'binary' },
    { unitId: 'r2', judge: 'positive', human: 'negative', week: '2026-W47', kind: 'binary' },
    { unitId: 'r3', judge: 'negative', human: 'negative', week: '2026-W47', kind: 'binary' },
    { unitId: 'r4', judge: 'negative', human: 'negative', week: '2026-W47', kind: 'binary' },
    { unitId: 'r5', judge: 'positive', human: 'positive', week: '2026-W48', kind: 'binary' },
    { unitId: 'r6', judge: 'negative', human: 'positive', week: '2026-W48', kind: 'binary' },
  ];

  it('gives agreement, kappa, the confusion matrix, weeks and disagreements for thumbs', () => {
    const report = judgeCalibration(binary);
    expect(report.n).toBe(6);
    expect(report.agreement.value).toBeCloseTo(4 / 6, 12);
    // judge 3/3, humans 3/3: p_e 1/2, p_o 2/3 → κ = 1/3
    expect(report.cohenKappa.value).toBeCloseTo(1 / 3, 12);
    expect(report.weightedKappa).toBeNull();
    expect(report.spearman).toBeNull();
    expect(report.confusion).toEqual({ labels: ['negative', 'positive'], counts: [[2, 1], [1, 2]], n: 6 });
    expect(report.weeks.map((week) => week.week)).toEqual(['2026-W47', '2026-W48']);
    // W47: p_o 3/4, p_e (2/4)(1/4) + (2/4)(3/4) = 1/2 → κ = 1/2; W48: p_o 1/2, p_e 1/2 → κ = 0
    expect(report.weeks[0]!.cohenKappa.value).toBeCloseTo(0.5, 12);
    expect(report.weeks[0]!.n).toBe(4);
    expect(report.weeks[1]!.cohenKappa.value).toBeCloseTo(0, 12);
    // equal distance: the most recent week first
    expect(report.disagreements.map((item) => item.unitId)).toEqual(['r6', 'r2']);
  });

  it('adds quadratic-weighted kappa and Spearman for ratings, worst disagreement first', () => {
    const ratings: CalibrationPair[] = [
      [5, 5],
      [4, 5],
      [1, 3],
      [2, 2],
      [3, 3],
    ].map(([judge, human], index) => ({ unitId: `r${index + 1}`, judge: judge!, human: human!, week: '2026-W48', kind: 'rating' }));
    const report = judgeCalibration(ratings);
    expect(report.agreement.value).toBeCloseTo(3 / 5, 12);
    // Σ w·O = 1 + 4 = 5; Σ w·E = (15 + 2·10 + 2·30)/5 = 19 → κ_w = 14/19
    expect(report.weightedKappa?.value).toBeCloseTo(14 / 19, 12);
    // scipy.stats.spearmanr([5,4,1,2,3], [5,5,3,2,3]) = 0.7905694150420948
    expect(report.spearman?.value).toBeCloseTo(0.7905694150420948, 12);
    expect(report.disagreements.map((item) => [item.unitId, item.distance])).toEqual([
      ['r3', 2],
      ['r2', 1],
    ]);
  });

  it('refuses mixed kinds and non-numeric ratings, and is empty without pairs', () => {
    expect(() => judgeCalibration([binary[0]!, { ...binary[1]!, kind: 'nominal' }])).toThrow(RangeError);
    expect(() => judgeCalibration([{ unitId: 'x', judge: 'good', human: 3, week: 'w', kind: 'rating' }])).toThrow(RangeError);
    const empty = judgeCalibration([]);
    expect(empty).toMatchObject({ n: 0, kind: null, weeks: [], disagreements: [] });
    expect(empty.agreement.value).toBeNull();
  });

  it('caps the disagreement list', () => {
    expect(judgeCalibration(binary, { maxDisagreements: 1 }).disagreements).toHaveLength(1);
  });
});

describe('majorityLabel and median', () => {
  it('finds the unique mode, or none on a split', () => {
    expect(majorityLabel(['a', 'a', 'b'])).toBe('a');
    expect(majorityLabel(['a', 'b'])).toBeNull();
    expect(majorityLabel([])).toBeNull();
    expect(median([30, 10, 20, 40])).toBe(25);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([])).toBeNull();
  });
});

describe('agreementReviewOf', () => {
  const pair = { itemId: 'p1', reviewer: 'ana', scores: { accuracy: 80, tone: 'warm' }, seconds: 9, responseId: 'r1', responseBId: 'r2' };

  it('names a pairwise preference by side, whatever order the reviewer saw', () => {
    expect(agreementReviewOf({ ...pair, label: 'r2', firstResponseId: 'r2' })).toEqual({
      itemId: 'p1', reviewer: 'ana', label: 'b', scores: { accuracy: 80 }, seconds: 9, firstPositionWon: true,
    });
    expect(agreementReviewOf({ ...pair, label: 'r1', firstResponseId: 'r2' })).toMatchObject({ label: 'a', firstPositionWon: false });
    expect(agreementReviewOf({ ...pair, label: 'tie', firstResponseId: 'r2' })).toMatchObject({ label: 'tie', firstPositionWon: null });
    expect(agreementReviewOf({ ...pair, label: 'r9', firstResponseId: 'r2' })).toMatchObject({ label: null, firstPositionWon: null });
    expect(agreementReviewOf({ ...pair, label: 'r1', firstResponseId: null })).toMatchObject({ label: 'a', firstPositionWon: null });
  });

  it('keeps a single review\'s verdict as it is', () => {
    expect(agreementReviewOf({ ...pair, responseBId: null, label: 'approved', firstResponseId: null })).toMatchObject({ label: 'approved', firstPositionWon: null });
  });
});
