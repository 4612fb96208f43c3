/**
 * Composite scores: recomputes each response processing marked dirty from all its current signals
 * (replaced votes left out). Recomputing rather than adding keeps time decay and the conflict
 * rule exact. A run reads dirty marks without locking them, recomputes, and deletes each mark only
 * if its version is unchanged: processing never waits for a rescore, and an event processed
 * meanwhile keeps its response dirty. Many events on one response between two runs cost one
 * recompute.
 */
import {
  compositeScore,
  resolveWorkspaceSettings,
  experimentFacts,
  type FeedbackEventType,
  type Polarity,
  type ScoredSignal,
  type SignalClass,
  type WorkspaceSettings,
} from '@feedloop/core';
import type { SqlClient } from '../db/sql-client.js';
import { batchSizerFor } from './batch-sizer.js';
import { updateExperimentTotals } from './experiment-upkeep.js';

/** This module's URL: the embedded database's thread imports it to run {@link rescoreDirtyResponses} next to the database. */
export const RESCORE_MODULE = import.meta.url;

/** Responses rescored per transaction at most: bounds the rows parsed at once. Embedded, a transaction is sized by time (batch-sizer.ts). */
const RESCORE_BATCH = 200;
/** Responses rescored per run at most, so one run never holds a worker for long; the rest waits for the next run. */
const RESCORE_PER_RUN = 2_000;

/** One signal of a claimed response as the JSON document carries it (`event_id` null: the response has none). */
interface ScoreInputRow {
  claimed_ws: string;
  claimed_rid: string;
  event_id: string | null;
  type: string;
  user_id: string | null;
  signal_class: string;
  polarity: string;
  value: number;
  occurred_at: string;
  edit_distance: number | null;
  verified: boolean | null;
}

/**
 * Rescores dirty responses until none is left (or the round limit).
 *
 * @returns how many responses were rescored.
 * @example
 * await rescoreDirtyResponses(db) // 12
 */
export async function rescoreDirtyResponses(db: SqlClient, now: Date = new Date()): Promise<number> {
  let total = 0;
  const sizer = batchSizerFor(db, RESCORE_BATCH);
  while (total < RESCORE_PER_RUN) {
    const size = sizer.size;
    let heldMs = 0;
    const n = await db.transaction(async (tx) => {
      const started = performance.now();
      const marks = await tx.query<{ ws: string; rid: string; version: number }>(
        'SELECT workspace_id AS ws, response_id AS rid, version FROM score_dirty LIMIT $1',
        [size],
        { prepare: true },
      );
      if (marks.length === 0) return 0;
      // One JSON document, not a row per signal: PGlite decodes each row's columns slowly (see load-claimed.ts).
      const [doc] = await tx.query<{ signals: string | null; settings: string | null }>(
        `WITH claimed AS (SELECT ws AS workspace_id, rid AS response_id FROM json_to_recordset($1::json) AS x(ws text, rid text)),
         found AS (
           SELECT c.workspace_id AS claimed_ws, c.response_id AS claimed_rid, s.event_id, s.type,
                  s.user_id, s.signal_class, s.polarity, s.value, s.occurred_at, s.edit_distance, s.verified
             FROM claimed c
             JOIN workspaces w ON w.id = c.workspace_id
             LEFT JOIN LATERAL (
               SELECT s.*, e.edit_distance, e.verified FROM feedback_signals s
                 JOIN feedback_event_ids k ON k.workspace_id = s.workspace_id AND k.id = s.event_id
                 JOIN feedback_events e ON e.workspace_id = k.workspace_id AND e.seq = k.seq AND e.received_at = k.received_at
                                       AND e.superseded_by IS NULL
                WHERE s.workspace_id = c.workspace_id AND s.response_id = c.response_id AND s.status = 'counted' OFFSET 0) AS s ON true)
         SELECT (SELECT json_agg(f) FROM found f)::text AS signals,
                (SELECT json_object_agg(w.id, w.settings) FROM workspaces w WHERE w.id IN (SELECT claimed_ws FROM found))::text AS settings`,
        [JSON.stringify(marks)],
        { prepare: true },
      );
      const rows = JSON.parse(doc?.signals ?? '[]') as ScoreInputRow[];
      const stored = JSON.parse(doc?.settings ?? '{}') as Record<string, unknown>;
      const settingsOf = new Map<string, WorkspaceSettings>();
      const byResponse = new Map<string, { ws: string; rid: string; settings: WorkspaceSettings; signals: ScoredSignal[] }>();
      for (const r of rows) {
        const k = `${r.claimed_ws}\u0000${r.claimed_rid}`;
        let entry = byResponse.get(k);
        if (!entry) {
          let settings = settingsOf.get(r.claimed_ws);
          if (!settings) settingsOf.set(r.claimed_ws, (settings = resolveWorkspaceSettings(stored[r.claimed_ws])));
          byResponse.set(k, (entry = { ws: r.claimed_ws, rid: r.claimed_rid, settings, signals: [] }));
        }
        if (r.event_id === null) continue; // a response whose signals are all gone (e.g. replaced)
        entry.signals.push({
          eventId: r.event_id,
          type: r.type as FeedbackEventType,
          userId: r.user_id,
          signalClass: r.signal_class as SignalClass,
          polarity: r.polarity as Polarity,
          value: r.value,
          occurredAt: new Date(r.occurred_at),
          editDistance: r.edit_distance,
          verified: r.verified !== false,
        });
      }
      const scores = [...byResponse.values()]
        .map(({ ws, rid, settings, signals }) => ({ ws, rid, ...compositeScore(signals, settings, now) }))
        .sort((a, b) => (a.ws === b.ws ? (a.rid < b.rid ? -1 : 1) : a.ws < b.ws ? -1 : 1));
      await tx.query(
        `INSERT INTO response_scores AS r (workspace_id, response_id, score, confidence, weight_sum, signal_count, conflicts, computed_at)
         SELECT ws, rid, score, confidence, "weightSum", "signalCount", conflicts, $2::timestamptz
           FROM json_to_recordset($1::json) AS x(ws text, rid text, score double precision, confidence double precision, "weightSum" double precision, "signalCount" int, conflicts jsonb)
         ON CONFLICT (workspace_id, response_id) DO UPDATE
           SET score = EXCLUDED.score, confidence = EXCLUDED.confidence, weight_sum = EXCLUDED.weight_sum,
               signal_count = EXCLUDED.signal_count, conflicts = EXCLUDED.conflicts, computed_at = EXCLUDED.computed_at`,
        [JSON.stringify(scores), now.toISOString()],
        { prepare: true },
      );
      const signalsOf = new Map([...byResponse.values()].map((e) => [`${e.ws}\u0000${e.rid}`, e.signals]));
      await updateExperimentTotals(
        tx,
        scores.map((s) => ({ ws: s.ws, rid: s.rid, facts: experimentFacts(signalsOf.get(`${s.ws}\u0000${s.rid}`) ?? [], s.score) })),
      );
      await tx.query(
        `DELETE FROM score_dirty AS d USING json_to_recordset($1::json) AS x(ws text, rid text, version bigint)
          WHERE d.workspace_id = x.ws AND d.response_id = x.rid AND d.version = x.version`,
        [JSON.stringify(marks)],
        { prepare: true },
      );
      heldMs = performance.now() - started;
      return marks.length;
    }, { background: true });
    sizer.record(n, heldMs);
    total += n;
    if (n < size) break;
  }
  return total;
}
