/**
 * Replays imported records through the public batch routes: each chunk's responses first
 * (`POST /v1/responses/batch`), then their feedback (`POST /v1/feedback/batch`). Records carry
 * stable ids derived from the source's ids, so a second run is answered `duplicate` item by item
 * and stores nothing new.
 */
import { requestWithRetry, type ApiTarget } from './api-client.js';

/** A response as the API takes it, with the id the importer derived. */
export type ImportResponse = { id: string; query: string; answer: string } & Record<string, unknown>;

/** A feedback event as the API takes it, with the id the importer derived. */
export type ImportEvent = { id: string; responseId: string; type: string } & Record<string, unknown>;

/** One response of the source with the feedback it received. */
export interface ImportRecord {
  response: ImportResponse;
  events: ImportEvent[];
}

/** What a replay did, item by item as the server answered. */
export interface ImportReport {
  responses: { created: number; duplicate: number; rejected: number };
  events: { accepted: number; duplicate: number; rejected: number };
  /** The first rejections, with the server's code and message. */
  errors: Array<{ id: string; code: string; message: string }>;
}

/** Items per batch request: the API's batch limit. */
const BATCH_MAX = 1_000;
/** Rejections kept in the report; the counts hold them all. */
const ERRORS_KEPT = 20;

interface BatchResult {
  id: string;
  status: string;
  error?: { code: string; message: string };
}

/**
 * Sends every record to the server, `chunk` records at a time, and counts the answers.
 *
 * @example
 * const report = await replayRecords(readOasst('trees.jsonl'), { url, key });
 * // second run: report.responses.created === 0 && report.events.accepted === 0
 */
export async function replayRecords(
  records: AsyncIterable<ImportRecord>,
  target: ApiTarget,
  options: { chunk?: number; onProgress?: (report: ImportReport) => void } = {},
): Promise<ImportReport> {
  const chunkSize = Math.min(options.chunk ?? 500, BATCH_MAX);
  const report: ImportReport = { responses: { created: 0, duplicate: 0, rejected: 0 }, events: { accepted: 0, duplicate: 0, rejected: 0 }, errors: [] };
  let chunk: ImportRecord[] = [];
  const flush = async (): Promise<void> => {
    if (chunk.length === 0) return;
    const responses = chunk.map((r) => r.response);
    for (const r of await postBatch(target, '/v1/responses/batch', 'responses', responses)) count(report, 'responses', r);
    const events = chunk.flatMap((r) => r.events);
    for (let i = 0; i < events.length; i += BATCH_MAX) {
      for (const r of await postBatch(target, '/v1/feedback/batch', 'events', events.slice(i, i + BATCH_MAX))) count(report, 'events', r);
    }
    chunk = [];
    options.onProgress?.(report);
  };
  for await (const record of records) {
    chunk.push(record);
    if (chunk.length >= chunkSize) await flush();
  }
  await flush();
  return report;
}

async function postBatch(target: ApiTarget, path: string, field: 'responses' | 'events', items: readonly unknown[]): Promise<BatchResult[]> {
  if (items.length === 0) return [];
  const res = await requestWithRetry(target, 'POST', path, { [field]: items });
  const body = (await res.json().catch(() => undefined)) as { results?: BatchResult[]; error?: { code: string; message: string } } | undefined;
  if (res.status !== 207 || !body?.results) {
    throw new Error(`POST ${path}: ${res.status} ${body?.error ? `${body.error.code}: ${body.error.message}` : 'unexpected answer'}`);
  }
  return body.results;
}

function count(report: ImportReport, kind: 'responses' | 'events', r: BatchResult): void {
  const tally = report[kind] as Record<string, number>;
  if (r.status in tally) tally[r.status] = (tally[r.status] ?? 0) + 1;
  else tally.rejected = (tally.rejected ?? 0) + 1;
  if (r.status === 'rejected' && report.errors.length < ERRORS_KEPT) {
    report.errors.push({ id: r.id, code: r.error?.code ?? 'unknown', message: r.error?.message ?? '' });
  }
}
