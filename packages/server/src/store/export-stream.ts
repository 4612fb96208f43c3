/**
 * Training-data exports as streams: a workspace's responses are read one keyset page at a time
 * in normalized-prompt order, cut into prompt groups, and each group is turned into its format's
 * rows by the pure builders of `@feedloop/core`. Memory holds one page and the group it ends in,
 * never the workspace; a consumer that stops reading stops the reads (pull-based backpressure).
 * Each page is its own statement, never one long transaction: an export does not hold PGlite's
 * one connection or a Postgres snapshot for its whole run (rows written meanwhile may or may not
 * be in it).
 * The HTTP route, the CLI and training batches all call {@link exportJsonl} or {@link exportRows}.
 */
import { Readable } from 'node:stream';
import {
  buildRows,
  checkRow,
  emptyReport,
  emptyTally,
  exclusionReasons,
  trainingExamples,
  type ExportFormat,
  type ExportOptions,
  type ExportTally,
  type PromptGroup,
  type ResponseRecord,
  type TrainingExample,
  type ValidationReport,
} from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import { addConversationHistory, FIRST_CURSOR, readResponseEvents, readResponsePage, type ExportFilters } from './export-reads.js';

/** Responses read a page. */
export const EXPORT_PAGE_SIZE = 1_000;

/** What to export. */
export interface ExportRequest {
  format: ExportFormat;
  filters: ExportFilters;
  options: ExportOptions;
  /** Responses a page; default {@link EXPORT_PAGE_SIZE}. */
  pageSize?: number;
}

/** A response of a page with its events and its normalized prompt's key. */
interface KeyedRecord {
  key: string;
  record: ResponseRecord;
}

/** Cuts keyed records into groups of one key. */
function groupsOf(records: readonly KeyedRecord[]): PromptGroup[] {
  const groups: PromptGroup[] = [];
  for (const { key, record } of records) {
    const last = groups.at(-1);
    if (last && last.key === key) last.responses.push(record);
    else groups.push({ key, responses: [record] });
  }
  return groups;
}

/**
 * A workspace's prompt groups (responses sharing a normalized prompt, with their counted events),
 * read page by page: one statement for a page's responses, one for their events. The group a
 * page ends in is held over until the next page shows it complete. `withHistory`: each response
 * also carries its session's earlier turns (multi-turn `openai-chat`).
 *
 * @example
 * for await (const group of promptGroups(db, 'ws-1', {})) console.log(group.responses.length);
 */
export async function* promptGroups(
  db: SqlExecutor,
  workspaceId: string,
  filters: ExportFilters,
  pageSize = EXPORT_PAGE_SIZE,
  withHistory = false,
): AsyncGenerator<PromptGroup> {
  let cursor = FIRST_CURSOR;
  let pending: PromptGroup | undefined;
  for (;;) {
    const page = await readResponsePage(db, workspaceId, filters, cursor, pageSize);
    const records = page.length === 0 ? [] : await readResponseEvents(db, workspaceId, page.map((p) => p.response), filters.unused, filters.trust);
    if (withHistory) await addConversationHistory(db, workspaceId, records);
    const groups = groupsOf(page.map((p, i) => ({ key: p.key, record: records[i] as ResponseRecord })));
    const first = groups[0];
    if (pending && first?.key === pending.key) first.responses.unshift(...pending.responses);
    else if (pending) groups.unshift(pending);
    const full = page.length === pageSize;
    // Without a full page there is no next one: every group is complete.
    pending = full ? groups.pop() : undefined;
    yield* groups;
    const last = page.at(-1);
    if (!full || !last) {
      if (pending) yield pending;
      return;
    }
    cursor = { key: last.key, id: last.response.id };
  }
}

/** The rows each group builds, gathered into arrays of at least `size` (the last may be shorter). */
async function* chunked<T>(groups: AsyncIterable<PromptGroup>, build: (group: PromptGroup) => T[], size: number): AsyncGenerator<T[]> {
  let batch: T[] = [];
  for await (const group of groups) {
    for (const row of build(group)) batch.push(row);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/**
 * The rows of an export, in arrays of about a page (so callers write in large chunks), counted in
 * `tally` as they go: read `tally` once the iteration ends.
 *
 * @example
 * const tally = emptyTally();
 * for await (const rows of exportRows(db, 'ws-1', { format: 'trl-dpo', filters: {}, options }, tally)) write(rows);
 */
export function exportRows(db: SqlExecutor, workspaceId: string, request: ExportRequest, tally: ExportTally = emptyTally()): AsyncGenerator<unknown[]> {
  const size = request.pageSize ?? EXPORT_PAGE_SIZE;
  const history = request.format === 'openai-chat';
  return chunked(promptGroups(db, workspaceId, request.filters, size, history), (group) => buildRows(request.format, group, request.options, tally), size);
}

/**
 * An export as JSONL: a Readable of text chunks, each many complete lines. It reads the database
 * only as fast as its consumer reads it.
 *
 * @example
 * exportJsonl(db, 'ws-1', { format: 'trl-kto', filters: { agent: 'sql' }, options }).pipe(createWriteStream('kto.jsonl'));
 */
export function exportJsonl(db: SqlExecutor, workspaceId: string, request: ExportRequest, tally: ExportTally = emptyTally()): Readable {
  async function* lines(): AsyncGenerator<string> {
    for await (const rows of exportRows(db, workspaceId, request, tally)) {
      let chunk = '';
      for (const row of rows) chunk += `${JSON.stringify(row)}\n`;
      yield chunk;
    }
  }
  return Readable.from(lines(), { objectMode: false });
}

/**
 * Runs an export without keeping its rows, checking each against its format's published rules
 * (the validator of `@feedloop/core`): counts of rows, problems by kind, tokens, what was read
 * (responses, and their counted events by type) and what made no row, by reason (`deduplicated`,
 * `leftOut`: core's {@link exclusionReasons}).
 *
 * @example
 * await validateExport(db, 'ws-1', request, 16_385)
 * // { format: 'trl-dpo', rows: 5, read: { responses: 9303, events: 7964, … }, deduplicated: { samePrompt: 258 }, leftOut: { sameText: 1490, … }, … }
 */
export async function validateExport(db: SqlExecutor, workspaceId: string, request: ExportRequest, maxTokens: number): Promise<ValidationReport> {
  const report = emptyReport(request.format, maxTokens);
  const tally = emptyTally();
  const { read } = report;
  const groups = promptGroups(db, workspaceId, request.filters, request.pageSize ?? EXPORT_PAGE_SIZE, request.format === 'openai-chat');
  for await (const group of groups) {
    for (const { events } of group.responses) {
      read.responses++;
      read.events += events.length;
      for (const e of events) read.eventsByType[e.type] = (read.eventsByType[e.type] ?? 0) + 1;
    }
    for (const row of buildRows(request.format, group, request.options, tally)) checkRow(report, row, request.options);
  }
  // The raw counters keep their published shape; the breakdowns (same text, unpaired) are in leftOut.
  const { tie, contradictory, duplicate, missingText } = tally.excluded;
  report.excluded = { tie, contradictory, duplicate, ...(missingText === undefined ? {} : { missingText }) };
  Object.assign(report, exclusionReasons(request.format, request.options, tally.excluded));
  return report;
}

/**
 * Phase 4.1's training export: the `TrainingExample`s (with contrast pairs) of a workspace, a
 * page's groups at a time, counted in `tally`.
 *
 * @example
 * for await (const examples of trainingExampleRows(db, 'ws-1', {})) write(examples);
 */
export function trainingExampleRows(
  db: SqlExecutor,
  workspaceId: string,
  filters: ExportFilters,
  tally: ExportTally = emptyTally(),
  pageSize = EXPORT_PAGE_SIZE,
): AsyncGenerator<TrainingExample[]> {
  return chunked(
    promptGroups(db, workspaceId, filters, pageSize),
    (group) => {
      const examples = trainingExamples(group, tally.excluded);
      tally.rows += examples.length;
      return examples;
    },
    pageSize,
  );
}
