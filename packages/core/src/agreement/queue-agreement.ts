/**
 * The agreement report of a review queue (issue 27): how far the queue's reviewers agree, who
 * agrees with whom, and whether pairwise reviewers favour a position. Pure: the route reads the
 * queue's reviews and hands them here.
 *
 * Every agreement figure rests on items with at least two reviews (one review agrees with
 * nothing). Figures over those items are bootstrapped together (the item is the resampled unit,
 * so one set of draws serves them all); a reviewer pair's kappa is bootstrapped over the items
 * that pair shares.
 *
 * @module
 */
import { bootstrapEstimate, bootstrapEstimates, resamplesWithin, type BootstrapOptions, type Estimate } from './bootstrap.js';
import { categoriesOf } from './categories.js';
import { cohenKappaStatistic } from './cohen-kappa.js';
import { fleissKappaStatistic } from './fleiss-kappa.js';
import { krippendorffAlphaStatistic } from './krippendorff-alpha.js';
import { majorityLabel, median } from './majority.js';
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
  const statistics = 2 + (fleissRaters === null ? 0 : 1) + scoreNames.length + pairs.size;
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
    ],
    settings,
  );
  const [percent, labelAlpha] = together;
  const fleiss = fleissRaters === null ? null : { ...together[2]!, reviewersPerItem: fleissRaters };
  const scoreAlphas = together.slice(fleissRaters === null ? 2 : 3).map((estimate, index) => ({ name: scoreNames[index]!, ...estimate }));

  return {
    resamples,
    items: { reviewed: items.length, withTwoOrMore: shared.length },
    percentAgreement: percent!,
    cohenKappa: pairKappas(pairs, labels, settings),
    fleissKappa: fleiss,
    krippendorffAlpha: { labels: labelAlpha!, scores: scoreAlphas },
    reviewers: reviewerNames.map((name) => reviewerFigures(name, items)),
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

// Each pair of reviewers with the label pairs of the items both labelled, keyed "a\0b" (a < b).
function reviewerPairs(labelled: readonly AgreementReview[][], reviewers: readonly string[]): Map<string, [string, string][]> {
  const pairs = new Map<string, [string, string][]>();
  for (const item of labelled) {
    const byReviewer = new Map(item.map((review) => [review.reviewer, review.label!]));
    const present = reviewers.filter((name) => byReviewer.has(name));
    for (let i = 0; i < present.length; i += 1) {
      for (let j = i + 1; j < present.length; j += 1) {
        const key = `${present[i]}\u0000${present[j]}`;
        let list = pairs.get(key);
        if (!list) pairs.set(key, (list = []));
        list.push([byReviewer.get(present[i]!)!, byReviewer.get(present[j]!)!]);
      }
    }
  }
  return pairs;
}

function pairKappas(pairs: ReadonlyMap<string, [string, string][]>, labels: readonly (string | number)[], options: BootstrapOptions): PairKappa[] {
  return [...pairs.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, list]) => {
      const [first, second] = key.split('\u0000') as [string, string];
      return { reviewers: [first, second], ...bootstrapEstimate(cohenKappaStatistic(list, labels), options) };
    });
}

function reviewerFigures(name: string, items: readonly AgreementReview[][]): ReviewerAgreement {
  const own: AgreementReview[] = [];
  let agreed = 0;
  let compared = 0;
  for (const item of items) {
    const mine = item.find((review) => review.reviewer === name);
    if (!mine) continue;
    own.push(mine);
    const others = item.filter((review) => review !== mine && review.label !== null);
    if (others.length === 0 || mine.label === null) continue;
    const majority = majorityLabel(others.map((review) => review.label));
    if (majority === null) continue;
    compared += 1;
    if (majority === mine.label) agreed += 1;
  }
  const interval = wilsonInterval(agreed, compared);
  return {
    reviewer: name,
    itemsDone: own.length,
    medianSeconds: median(own.flatMap((review) => (typeof review.seconds === 'number' && review.seconds >= 0 ? [review.seconds] : []))),
    agreementWithMajority: { rate: interval.rate, low: interval.lower, high: interval.upper, n: compared },
    positionBias: positionBias(own.map((review) => review.firstPositionWon)),
  };
}
