/**
 * The reads behind training-data exports: a workspace's responses in normalized-prompt order, one
 * keyset page at a time (index `responses_prompt_key`, migration 0010), and the counted events of
 * a page's responses with what the pipeline made of them.
 */
import type { ExportEvent, ExportResponse, LearningSignal, ResponseRecord } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import { expandLearningSignal, signalFactColumns, signalFactNames, withWholeContext, type ReadLearningSignal, type SignalFactRow, type StoredLearningSignal } from './stored-learning-signal.js';

/** Which responses an export reads; all optional. */
export interface ExportFilters {
  /** Responses created at or after this instant. */
  from?: Date;
  /** Responses created before this instant. */
  to?: Date;
  agent?: string;
  model?: string;
  variant?: string;
  /** Responses whose composite score is at least this (unscored responses are left out). */
  minScore?: number;
  /** Leave out the events already in a training batch of this kind (`training_applied_events`). */
  unused?: string;
  /**
   * Which feedback is read: `verified` (the default) only events verified for their user (secret
   * key, or a feedback token naming them); `all` public-key events too (issue 22: an unverified
   * correction must not become training data unless asked for).
   */
  trust?: ExportTrust;
}

/** The `trust` values of an export: verified feedback only (the default), or all of it. */
export const EXPORT_TRUST = ['verified', 'all'] as const;
/** One of {@link EXPORT_TRUST}. */
export type ExportTrust = (typeof EXPORT_TRUST)[number];

/** Where a page starts: after this normalized-prompt key and response id. */
export interface PromptCursor {
  key: string;
  id: string;
}

/** The first cursor: before every key (md5 keys are 32 hex digits). */
export const FIRST_CURSOR: PromptCursor = { key: '', id: '' };

/** A response of a page with its normalized prompt's key. */
export interface KeyedResponse {
  key: string;
  response: ExportResponse;
}

interface ResponseRow {
  key: string;
  id: string;
  query: string;
  answer: string;
  context_document_ids: string[];
  sources: string[];
  context_token_count: number | null;
  model: string | null;
  agent: string | null;
  query_type: string | null;
  experiment_id: string | null;
  variant: string | null;
  metadata: Record<string, unknown>;
  created_at: Date;
  score: number | null;
}

/** The normalized prompt's key; the very expression of index responses_prompt_key. */
const PROMPT_KEY = "md5(lower(regexp_replace(btrim(r.query), '\\s+', ' ', 'g')))";

const PAGE_SQL = `
  SELECT ${PROMPT_KEY} AS key, r.id, r.query, r.answer, r.context_document_ids, r.sources, r.context_token_count, r.model, r.agent,
         r.query_type, r.experiment_id, r.variant, r.metadata, r.created_at, s.score
  FROM responses r
  LEFT JOIN response_scores s ON s.workspace_id = r.workspace_id AND s.response_id = r.id
  WHERE r.workspace_id = $1 AND (${PROMPT_KEY}, r.id) > ($2::text, $3::text)
    AND ($4::timestamptz IS NULL OR r.created_at >= $4)
    AND ($5::timestamptz IS NULL OR r.created_at < $5)
    AND ($6::text IS NULL OR r.agent = $6)
    AND ($7::text IS NULL OR r.model = $7)
    AND ($8::text IS NULL OR r.variant = $8)
    AND ($9::float8 IS NULL OR s.score >= $9)
  ORDER BY ${PROMPT_KEY}, r.id
  LIMIT $10`;

/**
 * One page of a workspace's responses after `cursor`, in (normalized prompt key, id) order, with
 * their composite scores; filters apply before the limit.
 *
 * @example
 * const page = await readResponsePage(db, 'ws-1', { agent: 'sql' }, FIRST_CURSOR, 1000);
 */
export async function readResponsePage(
  db: SqlExecutor,
  workspaceId: string,
  filters: ExportFilters,
  cursor: PromptCursor,
  limit: number,
): Promise<KeyedResponse[]> {
  const rows = await db.query<ResponseRow>(PAGE_SQL, [
    workspaceId,
    cursor.key,
    cursor.id,
    filters.from ?? null,
    filters.to ?? null,
    filters.agent ?? null,
    filters.model ?? null,
    filters.variant ?? null,
    filters.minScore ?? null,
    limit,
  ]);
  return rows.map(toKeyedResponse);
}

/** A page row as the export's response. */
function toKeyedResponse(r: ResponseRow): KeyedResponse {
  return {
    key: r.key,
    response: {
      id: r.id,
      query: r.query,
      answer: r.answer,
      contextDocumentIds: r.context_document_ids,
      sources: r.sources,
      contextTokenCount: r.context_token_count,
      model: r.model,
      agent: r.agent,
      queryType: r.query_type,
      experimentId: r.experiment_id,
      variant: r.variant,
      metadata: r.metadata,
      createdAt: r.created_at,
      score: r.score,
    },
  };
}

/**
 * Some responses of a workspace by id, in (normalized prompt key, id) order like an export's
 * pages, with their composite scores: the responses of a training batch's events, or of a
 * dataset's new items (`complete`: bare responses left out).
 *
 * @example
 * const responses = await readResponsesById(db, 'ws-1', ['r-1', 'r-2']);
 */
export async function readResponsesById(
  db: SqlExecutor,
  workspaceId: string,
  ids: readonly string[],
  options: { complete?: boolean } = {},
): Promise<KeyedResponse[]> {
  // complete: leave out bare responses (a trace known by id only, migration 0031): no query or answer yet.
  const rows = await db.query<ResponseRow>(
    `SELECT ${PROMPT_KEY} AS key, r.id, r.query, r.answer, r.context_document_ids, r.sources, r.context_token_count, r.model, r.agent,
            r.query_type, r.experiment_id, r.variant, r.metadata, r.created_at, s.score
       FROM responses r
       LEFT JOIN response_scores s ON s.workspace_id = r.workspace_id AND s.response_id = r.id
      WHERE r.workspace_id = $1 AND r.id = ANY ($2::text[]) AND NOT ($3::boolean AND r.bare)
      ORDER BY 1, r.id`,
    [workspaceId, ids, options.complete === true],
  );
  return rows.map(toKeyedResponse);
}

/** A counted event as {@link readResponseEvents} reads it (and `store/training-batch-reads.ts`). */
export interface EventRow {
  response_id: string;
  id: string;
  type: string;
  payload: Record<string, unknown>;
  user_id: string | null;
  target_id: string | null;
  metadata: Record<string, unknown> | null;
  edit_distance: number | null;
  occurred_at: Date;
  weight: number | null;
  /** With its context whole ({@link readWholeSignal}). */
  learning_signal: ReadLearningSignal | null;
  premise_text: string | null;
  hypothesis_text: string | null;
  verified: boolean;
  source: string;
}

/** An event row as a query reads it: the stored learning signal, and its signal row's columns beside it (`signalFactColumns`). */
export type StoredEventRow = Omit<EventRow, 'learning_signal'> & { learning_signal: StoredLearningSignal | null } & SignalFactRow;

/**
 * An event row as read with its learning signal's context made whole again from the signal row's
 * columns (store/stored-learning-signal.ts).
 *
 * @example
 * const rows = (await db.query<StoredEventRow>(sql, params)).map((r) => readWholeSignal(workspaceId, r));
 */
export function readWholeSignal<R extends Pick<StoredEventRow, 'response_id' | 'id' | 'type' | 'learning_signal' | keyof SignalFactRow>>(
  workspaceId: string,
  row: R,
): Omit<R, keyof SignalFactRow | 'learning_signal'> & { learning_signal: ReadLearningSignal | null } {
  const { s_session_id: _s, s_user_id: _u, s_polarity: _p, s_severity: _v, s_categories: _c, ...rest } = row;
  const learning_signal = row.learning_signal && withWholeContext(row.learning_signal, { workspaceId, responseId: row.response_id, eventId: row.id, type: row.type }, row);
  return { ...(rest as Omit<R, keyof SignalFactRow | 'learning_signal'>), learning_signal };
}

/**
 * An event row as the exports' event, its stored learning signal expanded against its response.
 *
 * @example
 * record.events.push(toExportEvent(row, record.response));
 */
export function toExportEvent(row: EventRow, response: ExportResponse): ExportEvent {
  const learningSignal: LearningSignal | null = row.learning_signal && expandLearningSignal(row.learning_signal, response);
  return {
    id: row.id,
    type: row.type,
    payload: row.payload,
    userId: row.user_id,
    targetId: row.target_id,
    metadata: row.metadata,
    editDistance: row.edit_distance,
    occurredAt: row.occurred_at,
    weight: row.weight,
    learningSignal,
    ...(row.premise_text !== null || row.hypothesis_text !== null ? { targetTexts: { premise: row.premise_text, hypothesis: row.hypothesis_text } } : {}),
    verified: row.verified,
    source: row.source,
  };
}

/**
 * The counted events of some responses: neither content duplicates nor replaced votes, and not
 * dropped or failed by the pipeline (an event it has not processed yet is read, without weight or
 * learning signal). Each response's events come in the order they were stored. With `unused`, the
 * events already in a training batch of that kind are left out; with `trust` `verified` (the
 * default), the events not verified for their user are.
 *
 * @example
 * const records = await readResponseEvents(db, 'ws-1', page.map((p) => p.response));
 */
export async function readResponseEvents(
  db: SqlExecutor,
  workspaceId: string,
  responses: readonly ExportResponse[],
  unused?: string,
  trust: ExportTrust = 'verified',
): Promise<ResponseRecord[]> {
  const stored = await db.query<StoredEventRow>(
    // One index probe a response (feedback_events_response in each partition), and one a event in
    // feedback_signals. Without the OFFSET 0 fence the planner flattens the LATERAL into a merge
    // join over the workspace's whole partition and a hash of all its signals, for every page
    // (ANY($2) did the same): O(workspace) a page.
    `SELECT e.response_id, e.id, e.type, e.payload, e.user_id, e.target_id, e.metadata, e.edit_distance, e.occurred_at,
            e.weight, e.learning_signal, e.verified, e.source, ${signalFactNames('e')},
            -- A label correction's texts from the registered targets (issue 24): an edge's fragment
            -- and claim, or the fragment or claim itself.
            CASE rt.kind WHEN 'edge' THEN rf.text WHEN 'fragment' THEN rt.text END AS premise_text,
            CASE rt.kind WHEN 'edge' THEN rc.text WHEN 'claim' THEN rt.text END AS hypothesis_text
     FROM unnest($2::text[]) AS page (response_id)
     CROSS JOIN LATERAL (
       SELECT e.*, sg.status, sg.weight, sg.learning_signal, ${signalFactColumns('sg')}
       FROM feedback_events e
       LEFT JOIN feedback_signals sg ON sg.workspace_id = e.workspace_id AND sg.event_id = e.id
       WHERE e.workspace_id = $1 AND e.response_id = page.response_id AND e.duplicate_of IS NULL AND e.superseded_by IS NULL AND e.retracted_at IS NULL
         AND ($4::boolean OR e.verified)
         AND ($3::text IS NULL OR NOT EXISTS (SELECT 1 FROM training_applied_events a WHERE a.workspace_id = $1 AND a.kind = $3 AND a.event_id = e.id))
       OFFSET 0
     ) e
     LEFT JOIN registered_targets rt ON e.type = 'correct_label' AND rt.workspace_id = $1 AND rt.target_id = e.target_id
     LEFT JOIN registered_targets rf ON rf.workspace_id = $1 AND rf.target_id = rt.fragment_id
     LEFT JOIN registered_targets rc ON rc.workspace_id = $1 AND rc.target_id = rt.claim_id
     WHERE e.status IS NULL OR e.status = 'counted'
     ORDER BY e.response_id, e.seq`,
    [workspaceId, responses.map((r) => r.id), unused ?? null, trust === 'all'],
  );
  const records = new Map<string, ResponseRecord>(responses.map((response) => [response.id, { response, events: [] }]));
  for (const row of stored.map((r) => readWholeSignal(workspaceId, r))) {
    const record = records.get(row.response_id);
    if (record) record.events.push(toExportEvent(row, record.response));
  }
  return [...records.values()];
}

/** Earlier turns a multi-turn example carries at most (the newest ones): bounds a row and a page's memory. */
export const MAX_HISTORY_TURNS = 20;

/**
 * Gives each response of `records` that belongs to a session its conversation so far: the
 * session's responses created before it (query and answer), oldest first, at most
 * {@link MAX_HISTORY_TURNS} (the newest). One statement a page, one probe of index
 * `responses_session` a response with a session.
 *
 * @example
 * await addConversationHistory(db, 'ws-1', records); // records[i].response.history = [{ query, answer }, …]
 */
export async function addConversationHistory(db: SqlExecutor, workspaceId: string, records: readonly ResponseRecord[]): Promise<void> {
  if (records.length === 0) return;
  const rows = await db.query<{ response_id: string; query: string; answer: string }>(
    `SELECT p.id AS response_id, h.query, h.answer
       FROM responses p
       CROSS JOIN LATERAL (
         SELECT h.query, h.answer, h.created_at, h.id FROM responses h
          WHERE h.workspace_id = p.workspace_id AND h.session_id = p.session_id AND (h.created_at, h.id) < (p.created_at, p.id)
          ORDER BY h.created_at DESC, h.id DESC LIMIT ${MAX_HISTORY_TURNS}) h
      WHERE p.workspace_id = $1 AND p.id = ANY ($2::text[]) AND p.session_id IS NOT NULL
      ORDER BY p.id, h.created_at, h.id`,
    [workspaceId, records.map((r) => r.response.id)],
  );
  const byId = new Map(records.map((r) => [r.response.id, r.response]));
  for (const row of rows) {
    const response = byId.get(row.response_id);
    if (!response) continue;
    (response.history ??= []).push({ query: row.query, answer: row.answer });
  }
}
