/**
 * Training-data exports as streams: a workspace's responses are read one keyset page at a time
 * in normalized-prompt order, cut into prompt groups, and each group is turned into its format's
 * rows by the pure builders of `@feedloop/core`. Memory holds one page and the group it ends in,
 * never the workspace; a consumer that stops reading stops the reads (pull-based backpressure).
 * Each page is its own statement, never one long transaction: an export does not hold PGlite's
 * one connection or a Postgres snapshot for its whole run (rows written meanwhile may or may not
 * be in it). Pages are sized to a time, not a count ({@link EXPORT_PAGE_MS}): a statement, once
 * started, holds PGlite's one connection to its end, and every request's statement that arrives
 * meanwhile waits for it (issue 22).
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

/** Responses read a page at most. */
export const EXPORT_PAGE_SIZE = 1_000;

/**
 * What the slowest statement of a page should take: a statement, once started, holds PGlite's one
 * connection to its end, and a request's statement that arrives meanwhile waits for it (issue 22:
 * a page of 1,000 responses took 50-120 ms there). Each page is sized from the last one's time
 * ({@link nextPageSize}). A page's time includes a statement's fixed cost (planning, the round
 * trip), so pages are never smaller than {@link MIN_PAGE_SIZE}: smaller ones would mostly add
 * statements. On Postgres, where a page's statements hold only their own connection, its pages
 * soon grow to {@link EXPORT_PAGE_SIZE} (once the planner has statistics: on a table never
 * analyzed, a page's statement sorts every response left in the workspace, tens of ms at 2,000).
 */
export const EXPORT_PAGE_MS = 25;
/** Responses of the first page, before any was timed. */
const FIRST_PAGE_SIZE = 250;
/** Responses a page at least. */
const MIN_PAGE_SIZE = 100;

/**
 * The next page's size from this one's and the time of its slowest statement: twice as large
 * while well under {@link EXPORT_PAGE_MS}, smaller in proportion when over it, within
 * {@link MIN_PAGE_SIZE} and {@link EXPORT_PAGE_SIZE}.
 *
 * @example
 * nextPageSize(250, 50) // 125: a page of 250 took twice the time a page may take
 */
export function nextPageSize(size: number, slowestMs: number): number {
  if (slowestMs > EXPORT_PAGE_MS) return Math.max(MIN_PAGE_SIZE, Math.floor((size * EXPORT_PAGE_MS) / slowestMs));
  if (slowestMs < EXPORT_PAGE_MS / 2) return Math.min(EXPORT_PAGE_SIZE, 2 * size);
  return size;
}

/** What to export. */
export interface ExportRequest {
  format: ExportFormat;
  filters: ExportFilters;
  options: ExportOptions;
  /** Responses a page, fixed; default sized to a time (see {@link EXPORT_PAGE_MS}). */
  pageSize?: number;
}

/** Rows gathered before they are handed on (written, stringified) together. */
const CHUNK_ROWS = 250;

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

/** Runs `read`, adding its time to `slowest` when it is the slowest so far. */
async function timed<T>(read: () => Promise<T>, slowest: { ms: number }): Promise<T> {
  const t0 = performance.now();
  const result = await read();
  slowest.ms = Math.max(slowest.ms, performance.now() - t0);
  return result;
}

/**
 * A workspace's prompt groups (responses sharing a normalized prompt, with their counted events),
 * read page by page: one statement for a page's responses, one for their events. The group a
 * page ends in is held over until the next page shows it complete. `pageSize`: responses a page,
 * fixed; by default each page is sized to a time ({@link nextPageSize}). `withHistory`: each
 * response also carries its session's earlier turns (multi-turn `openai-chat`).
 *
 * @example
 * for await (const group of promptGroups(db, 'ws-1', {})) console.log(group.responses.length);
 */
export async function* promptGroups(
  db: SqlExecutor,
  workspaceId: string,
  filters: ExportFilters,
  pageSize?: number,
  withHistory = false,
): AsyncGenerator<PromptGroup> {
  let cursor = FIRST_CURSOR;
  let pending: PromptGroup | undefined;
  let size = pageSize ?? FIRST_PAGE_SIZE;
  for (;;) {
    const slowest = { ms: 0 };
    const page = await timed(() => readResponsePage(db, workspaceId, filters, cursor, size), slowest);
    const records =
      page.length === 0 ? [] : await timed(() => readResponseEvents(db, workspaceId, page.map((p) => p.response), filters.unused, filters.trust), slowest);
    if (withHistory) await timed(() => addConversationHistory(db, workspaceId, records), slowest);
    const groups = groupsOf(page.map((p, i) => ({ key: p.key, record: records[i] as ResponseRecord })));
    const first = groups[0];
    if (pending && first?.key === pending.key) first.responses.unshift(...pending.responses);
    else if (pending) groups.unshift(pending);
    const full = page.length === size;
    // Without a full page there is no next one: every group is complete.
    pending = full ? groups.pop() : undefined;
    yield* groups;
    const last = page.at(-1);
    if (!full || !last) {
      if (pending) yield pending;
      return;
    }
    cursor = { key: last.key, id: last.response.id };
    if (pageSize === undefined) size = nextPageSize(size, slowest.ms);
  }
}

/**
 * How long an export works on the requests' thread before it lets the others' callbacks run: a
 * page's groups are built and its rows stringified between two awaits of nothing but promises, so
 * a page of 1,000 responses was one block of tens of milliseconds that every request waited for
 * (issue 22).
 */
const SLICE_MS = 5;

/**
 * The rows each group builds, gathered into arrays of at least `size` (the last may be shorter),
 * giving the event loop a turn every {@link SLICE_MS}. Exports and dataset exports share it.
 *
 * @example
 * for await (const rows of chunked(groups, (g) => buildRows('trl-sft', g, options, tally), 250)) write(rows);
 */
export async function* chunked<T>(groups: AsyncIterable<PromptGroup>, build: (group: PromptGroup) => T[], size: number): AsyncGenerator<T[]> {
  let batch: T[] = [];
  let since = performance.now();
  for await (const group of groups) {
    for (const row of build(group)) batch.push(row);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
    if (performance.now() - since >= SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      since = performance.now();
    }
  }
  if (batch.length > 0) yield batch;
}

/**
 * The rows of an export, in arrays of a few hundred (so callers write in large chunks), counted in
 * `tally` as they go: read `tally` once the iteration ends.
 *
 * @example
 * const tally = emptyTally();
 * for await (const rows of exportRows(db, 'ws-1', { format: 'trl-dpo', filters: {}, options }, tally)) write(rows);
 */
export function exportRows(db: SqlExecutor, workspaceId: string, request: ExportRequest, tally: ExportTally = emptyTally()): AsyncGenerator<unknown[]> {
  const history = request.format === 'openai-chat';
  return chunked(
    promptGroups(db, workspaceId, request.filters, request.pageSize, history),
    (group) => buildRows(request.format, group, request.options, tally),
    request.pageSize ?? CHUNK_ROWS,
  );
}

/**
 * An export as JSONL: a Readable of text chunks, each many complete lines. It reads the database
 * only as fast as its consumer reads it.
 *
 * @example
 * exportJsonl(db, 'ws-1', { format: 'trl-kto', filters: { agent: 'sql' }, options }).pipe(createWriteStream('kto.jsonl'));
 */
export function exportJsonl(db: SqlExecutor, workspaceId: string, request: ExportRequest, tally: ExportTally = emptyTally()): Readable {
  return jsonlOf(exportRows(db, workspaceId, request, tally));
}

/**
 * Arrays of rows as a JSONL Readable of text chunks, each many complete lines, pulled only as
 * fast as its consumer reads.
 *
 * @example
 * jsonlOf(exportRows(db, 'ws-1', request)).pipe(out);
 */
export function jsonlOf(batches: AsyncIterable<unknown[]>): Readable {
  async function* lines(): AsyncGenerator<string> {
    for await (const rows of batches) {
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
  const groups = promptGroups(db, workspaceId, request.filters, request.pageSize ?? EXPORT_PAGE_SIZE, request.format === 'openai-chat');
  return validateGroups(groups, request.format, request.options, maxTokens, buildRows);
}

/**
 * The validator's report of the rows `build` makes of `groups` (an export's, a dataset
 * version's), without keeping the rows.
 *
 * @example
 * await validateGroups(groups, 'trl-dpo', options, 16_385, buildRows)
 */
export async function validateGroups(
  groups: AsyncIterable<PromptGroup>,
  format: ExportFormat,
  options: ExportOptions,
  maxTokens: number,
  build: (format: ExportFormat, group: PromptGroup, options: ExportOptions, tally: ExportTally) => unknown[],
): Promise<ValidationReport> {
  const report = emptyReport(format, maxTokens);
  const tally = emptyTally();
  const { read } = report;
  for await (const group of groups) {
    for (const { events } of group.responses) {
      read.responses++;
      read.events += events.length;
      for (const e of events) read.eventsByType[e.type] = (read.eventsByType[e.type] ?? 0) + 1;
    }
    for (const row of build(format, group, options, tally)) checkRow(report, row, options);
  }
  // The raw counters keep their published shape; the breakdowns (same text, unpaired) are in leftOut.
  const { tie, contradictory, duplicate, missingText } = tally.excluded;
  report.excluded = { tie, contradictory, duplicate, ...(missingText === undefined ? {} : { missingText }) };
  Object.assign(report, exclusionReasons(format, options, tally.excluded));
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
  pageSize?: number,
): AsyncGenerator<TrainingExample[]> {
  return chunked(
    promptGroups(db, workspaceId, filters, pageSize),
    (group) => {
      const examples = trainingExamples(group, tally.excluded);
      tally.rows += examples.length;
      return examples;
    },
    pageSize ?? CHUNK_ROWS,
  );
}
