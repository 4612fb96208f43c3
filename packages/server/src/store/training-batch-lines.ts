/**
 * The rows of a training batch's file, and which events each kind of batch takes. A batch holds
 * the events `training_applied_events` gives its id (migration 0017); each kind writes them in one
 * export format, through a {@link BatchLines} function. `corrections` writes each correction as a
 * TRL DPO pair by the exports' correction rule (prompt = the response's query, chosen = the
 * corrected text, rejected = the text corrected, by default the answer); the other kinds run the
 * export builders of `@feedloop/core` over the batch's own events (a batch judges an answer by
 * the events it holds, so a pair or an SFT example is made when both of its events are in it).
 */
import {
  buildRows,
  DEFAULT_EXPORT_OPTIONS,
  emptyTally,
  type ExportFormat,
  type ExportOptions,
  type PromptGroup,
  type RowProvenance,
  type TrainingBatchKindName,
} from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import { addConversationHistory, readResponseEvents, readResponsesById } from './export-reads.js';

/** A corrections row's provenance: one correction, verified for its user (the only kind claimed). */
const CORRECTION_PROVENANCE: RowProvenance = { trust: 'verified', verifiedEvents: 1, unverifiedEvents: 0 };

/** Yields the JSONL lines (no newline) of one batch: its events' rows, in log order. */
export type BatchLines = (db: SqlExecutor, workspaceId: string, batchId: string) => AsyncIterable<string>;

/** Events read a page at a time, so a batch of any size is written in bounded memory. */
const PAGE = 1_000;

/**
 * A batch of corrections as `trl-dpo` rows (`prompt`, `chosen`, `rejected`).
 *
 * @example
 * for await (const line of correctionDpoLines(db, ws, 'tb_0190…')) file.write(`${line}\n`);
 * // {"prompt":"What were sales last month?","chosen":"SELECT sum(total) FROM sales","rejected":"SELECT * FROM sales"}
 */
export async function* correctionDpoLines(db: SqlExecutor, workspaceId: string, batchId: string): AsyncGenerator<string> {
  let after = -1;
  for (;;) {
    const rows = await db.query<{ seq: string; prompt: string; chosen: string; rejected: string }>(
      `SELECT e.seq::text AS seq, r.query AS prompt, e.payload->>'corrected' AS chosen, COALESCE(e.payload->>'original', r.answer) AS rejected
         FROM feedback_events e JOIN responses r ON r.workspace_id = e.workspace_id AND r.id = e.response_id
        WHERE e.workspace_id = $1 AND e.applied_to_training = $2 AND e.seq > $3
        ORDER BY e.seq LIMIT ${PAGE}`,
      [workspaceId, batchId, after],
    );
    // Claims take verified corrections only (store/training-examples.ts): each row is one.
    for (const r of rows) yield JSON.stringify({ prompt: r.prompt, chosen: r.chosen, rejected: r.rejected, provenance: CORRECTION_PROVENANCE });
    if (rows.length < PAGE) return;
    after = Number(rows[rows.length - 1]?.seq);
  }
}

/**
 * A batch's rows in an export format: the batch's events (and only those) on their responses,
 * cut into prompt groups and built by the export's builders without dedup (every example a
 * batch claimed is written once). A batch holds at most 10,000 events, read whole.
 *
 * @example
 * const ktoLines = exportFormatLines('trl-kto');
 * for await (const line of ktoLines(db, ws, 'tb_0190…')) file.write(`${line}\n`);
 * // {"prompt":"What were sales last month?","completion":"SELECT * FROM sales","label":false}
 */
export function exportFormatLines(format: ExportFormat, options: Partial<ExportOptions> = {}): BatchLines {
  const buildOptions: ExportOptions = { ...DEFAULT_EXPORT_OPTIONS, dedup: false, ...options };
  return async function* (db, workspaceId, batchId) {
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
    const tally = emptyTally();
    for (let at = 0; at < responses.length; at += PAGE) {
      const page = responses.slice(at, at + PAGE);
      const records = await readResponseEvents(db, workspaceId, page.map((p) => p.response));
      if (format === 'openai-chat') await addConversationHistory(db, workspaceId, records);
      page.forEach((p, i) => {
        const record = records[i];
        if (!record) return;
        const own = { response: record.response, events: record.events.filter((e) => eventIds.has(e.id)) };
        const last = groups.at(-1);
        if (last && last.key === p.key) last.responses.push(own);
        else groups.push({ key: p.key, responses: [own] });
      });
    }
    for (const group of groups) for (const row of buildRows(format, group, buildOptions, tally)) yield JSON.stringify(row);
  };
}

/** What a kind of batch takes and how its file is written. */
export interface TrainingBatchKind {
  /**
   * The events that are examples of this kind: an SQL condition on `e` (feedback_events) and `s`
   * (its feedback_signals row, counted). Both the claim and the threshold check use it.
   */
  examples: string;
  /** The export format of its file (a `GET /v1/exports/:format` name). */
  format: ExportFormat;
  lines: BatchLines;
}

/** Ratings that say something (3 stars is a tie) and the positive ones; ratings are integers 1-5. */
const DECIDED_RATING = "(e.type = 'rating' AND e.payload->>'rating' IN ('1', '2', '4', '5'))";
const POSITIVE_RATING = "(e.type = 'rating' AND e.payload->>'rating' IN ('4', '5'))";

/**
 * The kinds of training batches. `corrections` is ADR-0012's trigger (50 corrections); its
 * condition also reads `applied_to_training`, which its claims keep set, so migration 0011's
 * partial index serves it. The other kinds are opt-in (`FEEDLOOP_TRAINING_BATCH_KINDS`).
 */
export const TRAINING_BATCH_KINDS: Record<TrainingBatchKindName, TrainingBatchKind> = {
  corrections: { examples: "e.type = 'correction' AND e.applied_to_training IS NULL", format: 'trl-dpo', lines: correctionDpoLines },
  sft: {
    examples: `(e.type IN ('correction', 'thumbs_up') OR ${POSITIVE_RATING} OR (e.type = 'review' AND e.payload->>'verdict' = 'approved'))`,
    format: 'openai-chat',
    lines: exportFormatLines('openai-chat'),
  },
  preference: {
    examples: `(e.type IN ('correction', 'thumbs_up', 'thumbs_down', 'review') OR ${DECIDED_RATING})`,
    format: 'trl-dpo',
    lines: exportFormatLines('trl-dpo'),
  },
  kto: { examples: `(e.type IN ('thumbs_up', 'thumbs_down') OR ${DECIDED_RATING})`, format: 'trl-kto', lines: exportFormatLines('trl-kto') },
  reward: { examples: 's.learning_signal IS NOT NULL', format: 'learning-signals', lines: exportFormatLines('learning-signals', { kind: 'event' }) },
  nli: {
    examples: "e.type = 'correct_label' AND jsonb_typeof(e.payload->'correct_relation') = 'string'",
    format: 'nli',
    lines: exportFormatLines('nli'),
  },
};

export type { TrainingBatchKindName };
