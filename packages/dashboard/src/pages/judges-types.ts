/**
 * The shapes the Judges page reads (issue 28; docs/evaluators.md): the evaluator, its calls and
 * its calibration report, as `GET /v1/evaluators…` answers them. Types only: nothing here ships.
 */

/** A statistic with its 95 % interval and the units it rests on (core's Estimate). */
export interface Estimate { value: number | null; low: number | null; high: number | null; n: number }

/**
 * The weight rule's state at its last (hourly) check: its events weigh `factor` × the human
 * weight; `kappa` and `n` are over `window` (the 30 days to `checkedAt`; null before a check).
 */
export interface WeightState { factor: number; kappa: number | null; n: number; checkedAt: string | null; window: { from: string; to: string } | null; rule: string }

/** Calls by status. */
export interface CallCounts { pending: number; done: number; dead: number }

/** An evaluator as the API shows it (never its secret, but in the create answer). */
export interface Evaluator {
  id: string;
  name: string;
  url: string;
  kind: 'pointwise' | 'pairwise';
  output: 'thumbs' | 'rating' | 'score';
  scoreConfigId: string | null;
  sample: number;
  filter: Record<string, unknown>;
  timeoutMs: number;
  ratePerMinute: number;
  enabled: boolean;
  version: number;
  weight: WeightState;
  createdAt: string;
  updatedAt: string;
  calls?: CallCounts;
}

/** A backfill with its progress (`GET /v1/evaluators/:id/backfills`). */
export interface Backfill {
  id: string;
  evaluatorVersion: number;
  since: string;
  until: string;
  limit: number;
  status: 'running' | 'done';
  considered: number;
  queued: number;
  calls: CallCounts;
  createdAt: string;
  finishedAt: string | null;
}

/** One call of the log. */
export interface EvaluatorCall {
  id: number;
  evaluatorVersion: number;
  responseId: string;
  responseBId: string | null;
  origin: 'new' | 'backfill';
  status: 'pending' | 'done' | 'dead';
  deadLetter: boolean;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  latencyMs: number | null;
  createdAt: string;
  completedAt: string | null;
}

/** Figures of a set of pairs (the whole period, or one week). */
export interface CalibrationFigures { n: number; agreement: Estimate; cohenKappa: Estimate; weightedKappa: Estimate | null; spearman: Estimate | null }

/** `GET /v1/evaluators/:id/calibration`. */
export interface Calibration extends CalibrationFigures {
  from: string;
  to: string;
  judged: number;
  kind: 'binary' | 'nominal' | 'rating' | null;
  confusion: { labels: Array<string | number>; counts: number[][]; n: number };
  weeks: Array<CalibrationFigures & { week: string }>;
  disagreements: Array<{ unitId: string; responseId: string; judge: string | number; human: string | number; week: string; distance: number }>;
}
