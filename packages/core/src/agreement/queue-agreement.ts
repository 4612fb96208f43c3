/**
 * The agreement report of a review queue (issue 27): how far the queue's reviewers agree, who
 * agrees with whom, and whether pairwise reviewers favour a position. Pure: the route reads the
 * queue's reviews and hands them here.
 *
 * Every agreement figure rests on items with at least two reviews (one review agrees with
 * nothing). Every figure is bootstrapped with the same draws: the item is the resampled unit,
 * and a reviewer pair's kappa is computed on the drawn items that pair both labelled.
 *
 * @module
 */
import { bootstrapEstimates, resamplesWithin, type BootstrapOptions, type Estimate } from './bootstrap.js';
import { categoriesOf } from './categories.js';
import { cohenKappaStatistic } from './cohen-kappa.js';
import { fleissKappaStatistic } from './fleiss-kappa.js';
import { krippendorffAlphaStatistic } from './krippendorff-alpha.js';
import { majorityOfCounts, median } from './majority.js';
import { percentAgreementStatistic } from './percent-agreement.js';
import { positionBias, type PositionBias } from './position-bias.js';
import { wilsonInterval } from '../stats/wilson.js';

/** One review of a queue item, as the agreement report reads it. */
export interface AgreementReview {
  itemId: string;
  /** Who reviewed: the reviewer key's name. */
  reviewer: string;
  /**
   * The review's label: a verdict, or for pairwise items the preferred side or `tie`. Labels must
   * mean the same across items: give a pairwise preference as the item's side (e.g. `a` / `b`),
   * not as a response id, which differs on every item. Null: the review gave no label (its
   * scores and time still count).
   */
  label: string | null;
  /** Numeric scores by name (quality scores, score configs); absent names are missing values. */
  scores?: Readonly<Record<string, number>> | null;
  /** Time spent on the item. */
  seconds?: number | null;
  /** Pairwise: whether the response shown first won; null for a tie or an unknown order. */
  firstPositionWon?: boolean | null;
}

/** An estimate for one pair of reviewers. */
export interface PairKappa extends Estimate {
  reviewers: [string, string];
}

/** A score's interval alpha. */
export interface ScoreAlpha extends Estimate {
  name: string;
}

/** A proportion with its Wilson interval. */
export interface Proportion {
  rate: number | null;
  low: number | null;
  high: number | null;
  n: number;
}

/** One reviewer's figures. */
export interface ReviewerAgreement {
  reviewer: string;
  /** Distinct items reviewed. */
  itemsDone: number;
  medianSeconds: number | null;
  /** How often the reviewer's label equals the other reviewers' majority (items without one are left out). */
  agreementWithMajority: Proportion;
  positionBias: PositionBias;
}

/** The queue's agreement report. */
export interface QueueAgreement {
  /** Bootstrap resamples behind every interval. */
  resamples: number;
  items: {
    /** Items with at least one review. */
    reviewed: number;
    /** Items with two or more reviews: the agreement figures' units. */
    withTwoOrMore: number;
  };
  percentAgreement: Estimate;
  cohenKappa: PairKappa[];
  /**
   * Over the items with the most common number of labelled reviews (`reviewersPerItem`, at least
   * 2); null with no such items.
   */
  fleissKappa: (Estimate & { reviewersPerItem: number }) | null;
  krippendorffAlpha: { labels: Estimate; scores: ScoreAlpha[] };
  reviewers: ReviewerAgreement[];
  /** Share of first-position wins over all pairwise reviews (ties left out). */
  positionBias: PositionBias;
}

/**
 * Builds a queue's agreement report from its reviews. When a reviewer reviewed an item more than
 * once, the last row counts. Without `options.resamples`, the resamples fit a budget of draws
 * ({@link resamplesWithin}: items × statistics), so a big queue's read stays bounded.
 *
 * @example
 * queueAgreement([
 *   { itemId: 'i1', reviewer: 'ana', label: 'approve' },
 *   { itemId: 'i1', reviewer: 'ben', label: 'approve' },
 *   { itemId: 'i2', reviewer: 'ana', label: 'reject' },
 *   { itemId: 'i2', reviewer: 'ben', label: 'approve' },
 * ]).percentAgreement.value // 0.5
 */
export function queueAgreement(reviews: readonly AgreementReview[], options: BootstrapOptions = {}): QueueAgreement {
  const byItem = new Map<string, Map<string, AgreementReview>>();
  for (const review of reviews) {
    let item = byItem.get(review.itemId);
    if (!item) byItem.set(review.itemId, (item = new Map()));
    item.set(review.reviewer, review);
  }
  const items = [...byItem.values()].map((item) => [...item.values()]);
  const shared = items.filter((item) => item.length >= 2);
  const reviewerNames = [...new Set(reviews.map((review) => review.reviewer))].sort();
  const labels = categoriesOf(reviews.map((review) => review.label));

  const labelUnits = shared.map((item) => item.map((review) => review.label));
  // Fleiss needs the same number of labels on every unit it counts: an item's labelled reviews.
  const labelled = shared.map((item) => item.filter((review) => review.label !== null));
  const fleissRaters = commonCount(labelled.map((item) => item.length).filter((count) => count >= 2));
  const scoreNames = [...new Set(shared.flatMap((item) => item.flatMap((review) => Object.keys(review.scores ?? {}))))].sort();
  const pairs = reviewerPairs(labelled, reviewerNames);
  const pairKeys = [...pairs.keys()].sort();
  const statistics = 2 + (fleissRaters === null ? 0 : 1) + scoreNames.length + pairKeys.length;
  const resamples = options.resamples ?? resamplesWithin(shared.length * statistics);
  const settings: BootstrapOptions = { ...options, resamples };
  const together = bootstrapEstimates(
    [
      percentAgreementStatistic(labelUnits),
      krippendorffAlphaStatistic(labelUnits, 'nominal'),
      ...(fleissRaters === null
        ? []
        : [fleissKappaStatistic(labelled.map((item) => (item.length === fleissRaters ? labelCounts(item, labels) : null)), fleissRaters, labels.length)]),
      ...scoreNames.map((name) =>
        krippendorffAlphaStatistic(
          shared.map((item) => item.map((review) => scoreOf(review, name))),
          'interval',
        ),
      ),
      ...pairKeys.map((key) => cohenKappaStatistic(pairs.get(key)!, labels)),
    ],
    settings,
  );
  const [percent, labelAlpha] = together;
  const fleiss = fleissRaters === null ? null : { ...together[2]!, reviewersPerItem: fleissRaters };
  const scoresFrom = fleissRaters === null ? 2 : 3;
  const scoreAlphas = together.slice(scoresFrom, scoresFrom + scoreNames.length).map((estimate, index) => ({ name: scoreNames[index]!, ...estimate }));
  const pairKappas = together.slice(scoresFrom + scoreNames.length).map((estimate, index): PairKappa => {
    const [first, second] = pairKeys[index]!.split('\u0000') as [string, string];
    return { reviewers: [first, second], ...estimate };
  });

  return {
    resamples,
    items: { reviewed: items.length, withTwoOrMore: shared.length },
    percentAgreement: percent!,
    cohenKappa: pairKappas,
    fleissKappa: fleiss,
    krippendorffAlpha: { labels: labelAlpha!, scores: scoreAlphas },
    reviewers: reviewerFigures(reviewerNames, items),
    positionBias: positionBias(items.flat().map((review) => review.firstPositionWon)),
  };
}

function scoreOf(review: AgreementReview, name: string): number | null {
  const value = review.scores?.[name];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function labelCounts(item: readonly AgreementReview[], labels: readonly (string | number)[]): number[] {
  return labels.map((label) => item.filter((review) => review.label === label).length);
}

// The review count most items share (ties: the larger count, which compares more raters).
function commonCount(counts: readonly number[]): number | null {
  const frequency = new Map<number, number>();
  for (const count of counts) frequency.set(count, (frequency.get(count) ?? 0) + 1);
  let best: number | null = null;
  for (const [count, times] of frequency) {
    if (best === null || times > frequency.get(best)! || (times === frequency.get(best)! && count > best)) best = count;
  }
  return best;
}

// Each pair of reviewers with, per item (aligned with `labelled`), the two labels when both
// labelled it, else null; keyed "a\0b" (a < b). Aligned rows let every pair's kappa be resampled
// with the same draws of items as the other figures.
function reviewerPairs(labelled: readonly AgreementReview[][], reviewers: readonly string[]): Map<string, ([string, string] | null)[]> {
  const pairs = new Map<string, ([string, string] | null)[]>();
  labelled.forEach((item, index) => {
    const byReviewer = new Map(item.map((review) => [review.reviewer, review.label!]));
    const present = reviewers.filter((name) => byReviewer.has(name));
    for (let i = 0; i < present.length; i += 1) {
      for (let j = i + 1; j < present.length; j += 1) {
        const key = `${present[i]}\u0000${present[j]}`;
        let list = pairs.get(key);
        if (!list) pairs.set(key, (list = new Array<[string, string] | null>(labelled.length).fill(null)));
        list[index] = [byReviewer.get(present[i]!)!, byReviewer.get(present[j]!)!];
      }
    }
  });
  return pairs;
}

// Every reviewer's figures in one pass over the items: per item, each reviewer's label is
// compared with the majority of the item's other labels (a unique mode; a split is left out).
function reviewerFigures(names: readonly string[], items: readonly AgreementReview[][]): ReviewerAgreement[] {
  const own = new Map(names.map((name) => [name, { reviews: [] as AgreementReview[], agreed: 0, compared: 0 }]));
  for (const item of items) {
    const counts = new Map<string, number>();
    for (const review of item) if (review.label !== null) counts.set(review.label, (counts.get(review.label) ?? 0) + 1);
    for (const review of item) {
      const figures = own.get(review.reviewer)!;
      figures.reviews.push(review);
      if (review.label === null) continue;
      const majority = majorityOfCounts(counts, review.label);
      if (majority === null) continue;
      figures.compared += 1;
      if (majority === review.label) figures.agreed += 1;
    }
  }
  return names.map((name) => {
    const { reviews, agreed, compared } = own.get(name)!;
    const interval = wilsonInterval(agreed, compared);
    return {
      reviewer: name,
      itemsDone: reviews.length,
      medianSeconds: median(reviews.flatMap((review) => (typeof review.seconds === 'number' && review.seconds >= 0 ? [review.seconds] : []))),
      agreementWithMajority: { rate: interval.rate, low: interval.lower, high: interval.upper, n: compared },
      positionBias: positionBias(reviews.map((review) => review.firstPositionWon)),
    };
  });
}

