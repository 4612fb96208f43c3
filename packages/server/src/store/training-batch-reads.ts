/**
 * What a training batch's file is built from: the events `training_applied_events` gives its id
 * (migration 0017) on their responses, read as the exports read them. The rows are built by
 * core's export builders (`trainingBatchRows`, in `pipeline/training-batch-lines.ts`); a batch
 * judges an answer by the events it holds, so a pair or an SFT example is made when both of its
 * events are in it.
 */
import type { PromptGroup } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import { addConversationHistory, readResponseEvents, readResponsesById, readWholeSignal, toExportEvent, type StoredEventRow } from './export-reads.js';
import { signalFactColumns, signalFactNames } from './stored-learning-signal.js';

/** Responses whose events are read in one statement. */
const PAGE = 1_000;

/**
 * A `corrections` batch's corrections in log order, each alone on its response (one prompt group
 * a correction, keyed by its event id). A batch holds at most 10,000 events, read whole: its
 * responses in one statement, where a page at a time cost a scan of the workspace's responses
 * a page.
 *
 * @example
 * const groups = await readBatchCorrections(db, ws, 'tb_0190…');
 */
export async function readBatchCorrections(db: SqlExecutor, workspaceId: string, batchId: string): Promise<PromptGroup[]> {
  const stored = await db.query<StoredEventRow>(
    // The signal row by its primary key (LATERAL, fenced with OFFSET 0, as in readResponseEvents).
    `SELECT e.response_id, e.id, e.type, e.payload, e.user_id, e.target_id, e.metadata, e.edit_distance, e.occurred_at,
            s.weight, s.learning_signal, ${signalFactNames('s')}, e.verified, e.source, NULL AS premise_text, NULL AS hypothesis_text
       FROM feedback_events e
       LEFT JOIN LATERAL (SELECT weight, learning_signal, ${signalFactColumns('s')} FROM feedback_signals s
                           WHERE s.workspace_id = $1 AND s.event_id = e.id OFFSET 0) s ON true
      WHERE e.workspace_id = $1 AND e.applied_to_training = $2
      ORDER BY e.seq`,
    [workspaceId, batchId],
  );
  const rows = stored.map((r) => readWholeSignal(workspaceId, r));
  const responses = new Map((await readResponsesById(db, workspaceId, [...new Set(rows.map((r) => r.response_id))])).map((k) => [k.response.id, k.response]));
  return rows.flatMap((row) => {
    const response = responses.get(row.response_id);
    return response ? [{ key: row.id, responses: [{ response, events: [toExportEvent(row, response)] }] }] : [];
  });
}

/**
 * A batch's events (and only those) on their responses, cut into prompt groups as an export's
 * pages are; with `history`, each response with its conversation's earlier turns (`openai-chat`).
 * A batch holds at most 10,000 events, read whole.
 *
 * @example
 * for (const group of await readBatchGroups(db, ws, 'tb_0190…', false)) rows.push(...trainingBatchRows('kto', group, tally));
 */
export async function readBatchGroups(db: SqlExecutor, workspaceId: string, batchId: string, history: boolean): Promise<PromptGroup[]> {
  const claimed = await db.query<{ event_id: string; response_id: string }>(
    `SELECT a.event_id, e.response_id
       FROM training_applied_events a
       JOIN feedback_events e ON e.workspace_id = a.workspace_id AND e.id = a.event_id
      WHERE a.workspace_id = $1 AND a.batch_id = $2`,
    [workspaceId, batchId],
  );
  const eventIds = new Set(claimed.map((c) => c.event_id));
  const responses = await readResponsesById(db, workspaceId, [...new Set(claimed.map((c) => c.response_id))]);
  const groups: PromptGroup[] = [];
  for (let at = 0; at < responses.length; at += PAGE) {
    const page = responses.slice(at, at + PAGE);
    const records = await readResponseEvents(db, workspaceId, page.map((p) => p.response));
    if (history) await addConversationHistory(db, workspaceId, records);
    page.forEach((p, i) => {
      const record = records[i];
      if (!record) return;
      const own = { response: record.response, events: record.events.filter((e) => eventIds.has(e.id)) };
      const last = groups.at(-1);
      if (last && last.key === p.key) last.responses.push(own);
      else groups.push({ key: p.key, responses: [own] });
    });
  }
  return groups;
}
