/**
 * Claims events from the outbox and loads them with their responses and workspace settings, in
 * one statement. Claiming deletes the events' `pipeline_pending` rows with SKIP LOCKED: two
 * workers (or a job and the sweep) never process the same event, and a rolled-back transaction
 * puts the rows back. An outbox row carries its event's seq and received_at, which lead to the
 * event's row in one partition of the log (migration 0053).
 */
import {
  resolveWorkspaceSettings,
  type ResponseContext,
  type StoredEvent,
  type WorkspaceSettings,
} from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import type { EventKey } from './pipeline-pending.js';
import type { FeedbackEventRow } from './feedback-event-row.js';
import type { KnownResponseTags } from './response-list-tags.js';

/**
 * Index probes per key (LATERAL, fenced with OFFSET 0): the planner guesses json_to_recordset at
 * 100 rows and, with plain joins, hashed whole tables instead (100 ms a claim at 50,000 events).
 */
const PROBE = 'OFFSET 0';

/** The outbox rows of the keys `k`, taken by another transaction or not: skipped (Postgres, many workers). */
const CLAIM_SHARED = `
       DELETE FROM pipeline_pending p
        USING (SELECT q.workspace_id, q.event_id FROM k
                 CROSS JOIN LATERAL (SELECT workspace_id, event_id FROM pipeline_pending q
                                      WHERE q.workspace_id = k.ws AND q.event_id = k.id FOR UPDATE SKIP LOCKED) AS q) AS l
        WHERE p.workspace_id = l.workspace_id AND p.event_id = l.event_id
       RETURNING p.workspace_id, p.event_id, p.seq, p.received_at`;

/**
 * The same on a one-connection database (PGlite): nobody else can hold the rows, so no lock probe,
 * and the rows found by their keys are deleted by their physical address (a TID scan; nothing can
 * move them within the statement). Planned as a join, the delete followed the outbox's statistics,
 * taken while it was nearly empty (the upkeep's vacuum and analysis find it drained whenever
 * processing keeps up): under a backlog built since, the planner estimated one row and joined
 * every outbox row to every key (380-780 ms a claim of 1,000 events, batched ingest at a sixth of
 * its rate; docs/benchmarks.md, "Thirteenth session").
 */
const CLAIM_EXCLUSIVE = `
       DELETE FROM pipeline_pending p
        WHERE p.ctid = ANY (ARRAY(SELECT q.ctid FROM k
                                   CROSS JOIN LATERAL (SELECT ctid FROM pipeline_pending q WHERE q.workspace_id = k.ws AND q.event_id = k.id ${PROBE}) AS q))
       RETURNING p.workspace_id, p.event_id, p.seq, p.received_at`;

/**
 * The response's list tags, for processing to write only the tags it does not have yet (one probe
 * of `response_list_tags_response` per event instead of two statements' probes per tag).
 */
const TAGS_READ = `(SELECT array_agg(t.tag) FROM response_list_tags t WHERE t.workspace_id = e.workspace_id AND t.response_id = e.response_id)`;

/** A claimed event with everything the stages need. */
export interface ClaimedEvent {
  event: StoredEvent;
  /** null when the response is gone (the event then fails processing, with that reason). */
  response: ResponseContext | null;
  /** Documents the response used: its context documents, else its sources. */
  documentIds: string[];
  settings: WorkspaceSettings;
  /** How many events this one stands for: 1 / the implicit sample rate it was kept at (1: not sampled). */
  sampleWeight: number;
  /**
   * What processing made of it before, when it was processed already: a retracted event comes
   * back to the outbox so that the pipeline reverses what it counted (feedback-retraction.ts).
   */
  prior: PriorSignal | null;
  /**
   * The response's list tags as the claim found them, with its creation time as stored (the tags'
   * key, store/response-list-tags.ts): read only by an exclusive claim (one connection: nobody
   * changes them before this transaction ends). Null: not read, or the response is gone.
   */
  listTags: KnownResponseTags | null;
  /**
   * A `judge` event's evaluator's current weight factor (evaluators.weight_factor, core's
   * `judgeWeightFactor`); undefined for other events and for a judge event that names no evaluator
   * of its workspace (it weighs 0).
   */
  judgeWeightFactor?: number;
}

/** A processed event's signal, as a retraction reverses it. */
export interface PriorSignal {
  status: 'counted' | 'dropped' | 'failed';
  polarity: string | null;
  severity: string | null;
  categories: string[];
  value: number | null;
  weight: number | null;
}

/**
 * A claimed event's columns with its response's (`r_*`, null when the response is gone), as the
 * claim's JSON document carries them: timestamps as ISO strings.
 */
type ClaimedJson = Pick<
  FeedbackEventRow,
  | 'workspace_id'
  | 'id'
  | 'response_id'
  | 'type'
  | 'source'
  | 'user_id'
  | 'session_id'
  | 'target_id'
  | 'payload'
  | 'metadata'
  | 'edit_distance'
  | 'duplicate_of'
  | 'superseded_by'
  | 'sample_weight'
> & {
  occurred_at: string;
  received_at: string;
  retracted: boolean;
  p_status: PriorSignal['status'] | null;
  p_polarity: string | null;
  p_severity: string | null;
  p_categories: string[] | null;
  p_value: number | null;
  p_weight: number | null;
  r_session_id: string | null;
  r_user_id: string | null;
  query: string | null;
  answer: string;
  sources: string[];
  context_document_ids: string[];
  model: string | null;
  agent: string | null;
  query_type: string | null;
  experiment_id: string | null;
  variant: string | null;
  /** Null when the response is gone (the LEFT JOIN found none). */
  r_created_at: string | null;
  /** The response's list tags (an exclusive claim only; else null). */
  r_tags: string[] | null;
  /** A judge event's evaluator's weight factor; null for other events. */
  judge_factor: number | null;
};

/**
 * Claims and loads the given events; events already processed (or being processed by another
 * transaction) are left out. `exclusive`: the database has one connection (PGlite), so no other
 * transaction can hold an outbox row while this one runs, and the claim deletes the rows by key
 * without the per-row lock probe (SKIP LOCKED) that shared databases need.
 *
 * @example
 * const claimed = await claimEvents(tx, [['ws_1', '0190…']]);
 */
export async function claimEvents(tx: SqlExecutor, keys: readonly EventKey[], exclusive = false): Promise<ClaimedEvent[]> {
  if (keys.length === 0) return [];
  // One JSON document for the whole claim, not a row per event: decoding each row's columns
  // (three timestamps, four JSON values, arrays) was half the claim's time on PGlite
  // (50-60 ms for 250 events; 22-24 ms as one document).
  const [doc] = await tx.query<{ events: string | null; settings: string | null }>(
    `WITH k AS (SELECT * FROM json_to_recordset($1::json) AS k(ws text, id text)),
     claimed AS (${exclusive ? CLAIM_EXCLUSIVE : CLAIM_SHARED}),
     found AS (
       SELECT e.seq, e.workspace_id, e.id, e.response_id, e.type, e.source, e.user_id, e.session_id, e.target_id, e.payload, e.metadata,
              e.edit_distance, e.occurred_at, e.received_at, e.duplicate_of, e.superseded_by, e.sample_weight,
              e.retracted_at IS NOT NULL AS retracted, p.status AS p_status, p.polarity AS p_polarity, p.severity AS p_severity,
              p.categories AS p_categories, p.value AS p_value, p.weight AS p_weight,
              r.session_id AS r_session_id, r.user_id AS r_user_id, r.query, r.answer, r.sources, r.context_document_ids,
              r.model, r.agent, r.query_type, r.experiment_id, r.variant, r.created_at AS r_created_at, ${exclusive ? TAGS_READ : 'NULL::text[]'} AS r_tags,
              v.weight_factor AS judge_factor
         FROM claimed c
         CROSS JOIN LATERAL (SELECT e.* FROM feedback_events e
                              WHERE e.workspace_id = c.workspace_id AND e.seq = c.seq AND e.received_at = c.received_at ${PROBE}) AS e
         LEFT JOIN LATERAL (SELECT * FROM responses r WHERE r.workspace_id = e.workspace_id AND r.id = e.response_id ${PROBE}) AS r ON true
         -- Only a retracted event can have been processed before (the claim makes processing once):
         -- the others skip the probe (a one-time filter), which the hot path would pay per event.
         LEFT JOIN LATERAL (SELECT * FROM feedback_signals p
                             WHERE e.retracted_at IS NOT NULL AND p.workspace_id = e.workspace_id AND p.event_id = e.id ${PROBE}) AS p ON true
         -- A judge's signal weighs by its evaluator's current factor, as in the composite score (rescore.ts).
         LEFT JOIN LATERAL (SELECT v.weight_factor FROM evaluators v
                             WHERE e.source = 'judge' AND v.id = e.metadata->>'evaluatorId' AND v.workspace_id = e.workspace_id ${PROBE}) AS v ON true)
     SELECT (SELECT json_agg(f ORDER BY f.seq) FROM found f)::text AS events,
            (SELECT json_object_agg(w.id, w.settings) FROM workspaces w WHERE w.id IN (SELECT workspace_id FROM found))::text AS settings`,
    [JSON.stringify(keys.map(([ws, id]) => ({ ws, id })))],
    { prepare: true },
  );
  if (!doc?.events) return [];
  const rows = JSON.parse(doc.events) as ClaimedJson[];
  const stored = JSON.parse(doc.settings ?? '{}') as Record<string, unknown>;
  const settingsOf = new Map<string, WorkspaceSettings>();
  // Read from the parsed rows as they are: a copy of each (`{ ...json }`, ~40 keys) with its
  // timestamps made Dates cost 15 µs an event, four times the rest of this mapping.
  return rows.map((r) => {
    let settings = settingsOf.get(r.workspace_id);
    if (!settings) {
      settings = resolveWorkspaceSettings(stored[r.workspace_id]);
      settingsOf.set(r.workspace_id, settings);
    }
    const response = r.query === null || r.r_created_at === null ? null : toResponseContext(r, r.query, new Date(r.r_created_at));
    const prior: PriorSignal | null =
      r.p_status === null
        ? null
        : { status: r.p_status, polarity: r.p_polarity, severity: r.p_severity, categories: r.p_categories ?? [], value: r.p_value, weight: r.p_weight };
    // The stored text, not a Date: the tags' key needs the timestamp's microseconds.
    const listTags = exclusive && r.r_created_at !== null ? { tags: new Set(r.r_tags ?? []), createdAt: r.r_created_at } : null;
    return {
      event: toStoredEvent(r),
      response,
      documentIds: response ? documentsOf(r) : [],
      settings,
      sampleWeight: r.sample_weight ?? 1,
      prior,
      listTags,
      ...(typeof r.judge_factor === 'number' ? { judgeWeightFactor: r.judge_factor } : {}),
    };
  });
}

function toStoredEvent(r: ClaimedJson): StoredEvent {
  // The row was validated as a FeedbackEvent before it was stored; type and payload agree. One
  // literal of a fixed shape: spreading parts into it made each a slower object to build and read.
  const event = {
    type: r.type,
    payload: r.payload,
    id: r.id,
    workspaceId: r.workspace_id,
    responseId: r.response_id,
    source: r.source as StoredEvent['source'],
    userId: r.user_id,
    sessionId: r.session_id,
    targetId: r.target_id,
    metadata: r.metadata ?? undefined,
    editDistance: r.edit_distance,
    occurredAt: new Date(r.occurred_at),
    receivedAt: new Date(r.received_at),
    duplicateOf: r.duplicate_of,
    supersededBy: r.superseded_by,
  } as StoredEvent;
  if (r.retracted) event.retracted = true;
  return event;
}

function toResponseContext(r: ClaimedJson, query: string, createdAt: Date): ResponseContext {
  return {
    id: r.response_id,
    query,
    answer: r.answer,
    model: r.model,
    agent: r.agent,
    queryType: r.query_type,
    experimentId: r.experiment_id,
    variant: r.variant,
    contextDocumentIds: r.context_document_ids,
    sessionId: r.r_session_id,
    userId: r.r_user_id,
    createdAt,
  };
}

function documentsOf(r: ClaimedJson): string[] {
  return r.context_document_ids.length > 0 ? r.context_document_ids : r.sources;
}
