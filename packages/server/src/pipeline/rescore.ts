/**
 * Composite scores: recomputes each response processing marked dirty from all its current signals
 * (replaced votes left out). Recomputing rather than adding keeps time decay and the conflict
 * rule exact. A run reads dirty marks without locking them, recomputes, and deletes each mark only
 * if its version is unchanged: processing never waits for a rescore, and an event processed
 * meanwhile keeps its response dirty. Many events on one response between two runs cost one
 * recompute. A judge's signal is weighed by its evaluator's current factor here, and its stored
 * weight (feedback_signals.weight) set again when that factor changed since processing: the
 * responses an evaluator answered are marked when its factor changes (judge-weights.ts).
 */
import {
  compositeScore,
  resolveWorkspaceSettings,
  scoreReward,
  experimentFacts,
  isUserSource,
  storedSignalWeight,
  type SignalSource,
  type FeedbackEventType,
  type Polarity,
  type ScoredSignal,
  type SignalClass,
  type WorkspaceSettings,
} from '@feedloop/core';
import type { SqlClient } from '../db/sql-client.js';
import { setSignalWeights } from '../store/feedback-signals.js';
import { clearScoreMarks, readScoreInputs, readScoreMarks, writeScores, type ScoreInputRow } from '../store/response-scores.js';
import { batchSizerFor, type BatchSizer } from './batch-sizer.js';
import { updateExperimentTotals } from '../store/experiment-upkeep.js';
import { addRuleMatches } from './review-rules.js';

/** This module's URL: the embedded database's thread imports it to run {@link rescoreDirtyResponsesTimed} next to the database. */
export const RESCORE_MODULE = import.meta.url;

/** Responses rescored per transaction at most: bounds the rows parsed at once. Embedded, a transaction is sized by time (batch-sizer.ts). */
const RESCORE_BATCH = 200;
/** A stored weight this close to the rule's is the same (a float's round trip through JSON and the database). */
const WEIGHT_TOLERANCE = 1e-12;
/** Responses rescored per run at most, so one run never holds a worker for long; the rest waits for the next run. */
const RESCORE_PER_RUN = 2_000;

/**
 * Rescores dirty responses until none is left (or the round limit).
 *
 * @returns how many responses were rescored.
 * @example
 * await rescoreDirtyResponses(db) // 12
 */
export async function rescoreDirtyResponses(db: SqlClient, now: Date = new Date()): Promise<number> {
  return (await rescoreDirtyResponsesTimed(db, now)).rescored;
}

/** What a timed run did. */
export interface RescoreRun {
  rescored: number;
  /** How long its transactions held the database (not how long they waited for it). */
  heldMs: number;
  /** Whether it stopped with marks likely left: at its budget or its limit, its last transaction full. */
  more: boolean;
}

/**
 * {@link rescoreDirtyResponses}, also saying how long its transactions held the database: the
 * pipeline paces its runs by it (rescore-pacing.ts). With `budgetMs`, no further transaction starts
 * once the run's have held that long (the first always runs).
 *
 * @example
 * await rescoreDirtyResponsesTimed(db) // { rescored: 12, heldMs: 8.4, more: false }
 */
export async function rescoreDirtyResponsesTimed(db: SqlClient, now: Date = new Date(), budgetMs = Infinity): Promise<RescoreRun> {
  let total = 0;
  let totalHeldMs = 0;
  let more = false;
  const sizer = sizerOf(db);
  while (total < RESCORE_PER_RUN) {
    let size = 0;
    let heldMs = 0;
    const n = await db.transaction(async (tx) => {
      const started = performance.now();
      // Sized once the connection is this run's: embedded, the requests that came meanwhile have
      // been let in first (pglite-thread.ts), so the sizer sees whether they keep coming.
      size = sizer.size;
      const marks = await readScoreMarks(tx, size);
      if (marks.length === 0) return 0;
      const { rows, settings: stored } = await readScoreInputs(tx, marks);
      const settingsOf = new Map<string, WorkspaceSettings>();
      const byResponse = new Map<string, { ws: string; rid: string; settings: WorkspaceSettings; signals: ScoredSignal[] }>();
      const reweighed: Array<{ workspaceId: string; eventId: string; weight: number }> = [];
      for (const r of rows) {
        const k = `${r.claimed_ws}\u0000${r.claimed_rid}`;
        let entry = byResponse.get(k);
        if (!entry) {
          let settings = settingsOf.get(r.claimed_ws);
          if (!settings) settingsOf.set(r.claimed_ws, (settings = resolveWorkspaceSettings(stored[r.claimed_ws])));
          byResponse.set(k, (entry = { ws: r.claimed_ws, rid: r.claimed_rid, settings, signals: [] }));
        }
        if (r.event_id === null) continue; // a response whose signals are all gone (e.g. replaced)
        const signal: ScoredSignal = {
          eventId: r.event_id,
          type: r.type as FeedbackEventType,
          userId: r.user_id,
          signalClass: r.signal_class as SignalClass,
          polarity: r.polarity as Polarity,
          value: r.value,
          occurredAt: new Date(r.occurred_at),
          editDistance: r.edit_distance,
          verified: r.verified !== false,
          ...scoreWeighting(r),
          ...(r.source ? { source: r.source as SignalSource } : {}),
          ...(r.evaluator_id ? { evaluatorId: r.evaluator_id } : {}),
          ...(typeof r.judge_factor === 'number' ? { judgeWeightFactor: r.judge_factor } : {}),
        };
        entry.signals.push(signal);
        // A judge's stored weight follows its evaluator's factor as the score does (set at processing; the factor may have changed since).
        if (signal.source === 'judge') {
          const weight = storedSignalWeight(signal, r.sample_weight ?? 1, entry.settings);
          if (typeof r.weight !== 'number' || Math.abs(r.weight - weight) > WEIGHT_TOLERANCE) reweighed.push({ workspaceId: r.claimed_ws, eventId: r.event_id, weight });
        }
      }
      const scores = [...byResponse.values()]
        .map(({ ws, rid, settings, signals }) => ({ ws, rid, ...compositeScore(signals, settings, now) }))
        .sort((a, b) => (a.ws === b.ws ? (a.rid < b.rid ? -1 : 1) : a.ws < b.ws ? -1 : 1));
      await writeScores(tx, scores, now);
      // In key order, as the scores: two workers' rescores of the same responses never deadlock on them.
      await setSignalWeights(tx, reweighed.sort((a, b) => (a.workspaceId === b.workspaceId ? (a.eventId < b.eventId ? -1 : 1) : a.workspaceId < b.workspaceId ? -1 : 1)));
      const signalsOf = new Map([...byResponse.values()].map((e) => [`${e.ws}\u0000${e.rid}`, e.signals]));
      await updateExperimentTotals(
        tx,
        // An experiment compares what users said of each variant: reviews and judges stay out of its votes.
        scores.map((s) => ({ ws: s.ws, rid: s.rid, facts: experimentFacts(userSignals(signalsOf.get(`${s.ws}\u0000${s.rid}`) ?? []), s.score) })),
      );
      // A score range rule of a review queue matches once the new score is written.
      await addRuleMatches(tx, scores.map((s) => ({ workspaceId: s.ws, responseId: s.rid })));
      await clearScoreMarks(tx, marks);
      heldMs = performance.now() - started;
      return marks.length;
    }, { background: true });
    sizer.record(n, heldMs);
    total += n;
    totalHeldMs += heldMs;
    more = n === size;
    if (!more || totalHeldMs >= budgetMs) break;
  }
  return { rescored: total, heldMs: totalHeldMs, more };
}

/**
 * One sizer per database client, kept from run to run: a sizer made for each run started at 10
 * responses and doubled up to {@link RESCORE_BATCH} without ever learning what a response costs,
 * so a run's last transactions held the embedded connection ~100 ms each whatever the load.
 */
const sizers = new WeakMap<SqlClient, BatchSizer>();

function sizerOf(db: SqlClient): BatchSizer {
  let sizer = sizers.get(db);
  if (!sizer) sizers.set(db, (sizer = batchSizerFor(db, RESCORE_BATCH)));
  return sizer;
}

/** The signals of a response's users (no reviewer's, no judge's). */
function userSignals(signals: readonly ScoredSignal[]): ScoredSignal[] {
  return signals.filter((s) => s.source === undefined || isUserSource(s.source));
}

/**
 * A named score's part in the composite (issue 26 §1): its config's weight (0 without a config,
 * or without a numeric value: the score then leaves the composite alone) and its value scaled to
 * [-1, 1]. Other signals keep their class's weight.
 */
function scoreWeighting(r: ScoreInputRow): { scoreWeight?: number; value?: number } {
  if (r.type !== 'score') return {};
  const config = r.score_config;
  if (!config || r.score_value === null || r.score_value === undefined) return { scoreWeight: 0 };
  const reward = scoreReward(r.score_value, {
    dataType: config.dataType,
    ...(config.min !== null ? { min: config.min } : {}),
    ...(config.max !== null ? { max: config.max } : {}),
    ...(config.categories !== null ? { categories: config.categories } : {}),
  });
  return { scoreWeight: config.weight, value: reward };
}
