/**
 * `feedloop import oasst|hh-rlhf|jsonl <path>`: reads a dataset and replays it through the
 * public API of a running server (see import-replay.ts).
 */
import type { ApiTarget } from './api-client.js';
import { readGenericJsonl } from './import-jsonl.js';
import { readHhRlhf } from './import-hh-rlhf.js';
import { readOasst } from './import-oasst.js';
import { replayRecords, type ImportRecord, type ImportReport } from './import-replay.js';

/** The formats `feedloop import` reads. */
export const IMPORT_SOURCES = ['oasst', 'hh-rlhf', 'jsonl'] as const;
/** One of {@link IMPORT_SOURCES}. */
export type ImportSource = (typeof IMPORT_SOURCES)[number];

const READERS: Record<ImportSource, (path: string) => AsyncIterable<ImportRecord>> = {
  oasst: readOasst,
  'hh-rlhf': readHhRlhf,
  jsonl: readGenericJsonl,
};

/** Whether `name` is an import format. */
export function isImportSource(name: string | undefined): name is ImportSource {
  return (IMPORT_SOURCES as readonly string[]).includes(name ?? '');
}

/**
 * Imports the file at `path`, read as `source`, into the workspace of `target.key`.
 *
 * @example
 * const report = await importFile('hh-rlhf', 'harmless-base-test.jsonl.gz', { url: 'http://127.0.0.1:8787', key });
 */
export function importFile(source: ImportSource, path: string, target: ApiTarget, onProgress?: (report: ImportReport) => void): Promise<ImportReport> {
  return replayRecords(READERS[source](path), target, onProgress ? { onProgress } : {});
}

/** One line summing up a report. */
export function describeImport(r: ImportReport): string {
  return (
    `responses: ${r.responses.created} created, ${r.responses.duplicate} already there, ${r.responses.rejected} rejected; ` +
    `feedback: ${r.events.accepted} accepted, ${r.events.duplicate} already there, ${r.events.rejected} rejected`
  );
}
