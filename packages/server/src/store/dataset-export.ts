/**
 * A dataset version as training data (issue 27): its frozen items read a page at a time in
 * normalized-prompt order, cut into prompt groups, and turned into a format's rows by core's
 * `datasetRows` (the exports' builders). Streamed and validated as `GET /v1/exports/:format` is
 * (store/export-stream.ts): memory holds a page and the group it ends in.
 */
import type { Readable } from 'node:stream';
import { datasetRows, emptyTally, type ExportFormat, type ExportOptions, type ExportTally, type PromptGroup, type ValidationReport } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import { itemEvents, readVersionItems, type ItemCursor } from './dataset-items.js';
import { chunked, jsonlOf, validateGroups } from './export-stream.js';

/** Items read a page. */
export const DATASET_EXPORT_PAGE_SIZE = 500;
/** Rows gathered before they are handed on together. */
const CHUNK_ROWS = 250;

/** Which dataset version to export, and how. */
export interface DatasetExportRequest {
  datasetId: string;
  version: number;
  format: ExportFormat;
  options: ExportOptions;
  /** Items a page; default {@link DATASET_EXPORT_PAGE_SIZE}. */
  pageSize?: number;
}

/**
 * A version's prompt groups: its items with their frozen events, those sharing a normalized
 * prompt together. The group a page ends in is held until the next page shows it complete.
 *
 * @example
 * for await (const group of datasetGroups(db, 'ws-1', 'ds_…', 3)) console.log(group.responses.length);
 */
export async function* datasetGroups(db: SqlExecutor, workspaceId: string, datasetId: string, version: number, pageSize = DATASET_EXPORT_PAGE_SIZE): AsyncGenerator<PromptGroup> {
  let after: ItemCursor | undefined;
  let pending: PromptGroup | undefined;
  for (;;) {
    const page = await readVersionItems(db, workspaceId, datasetId, version, after, pageSize);
    for (const item of page) {
      const record = { response: item.response, events: itemEvents(item) };
      if (pending && pending.key === item.promptKey) pending.responses.push(record);
      else {
        if (pending) yield pending;
        pending = { key: item.promptKey, responses: [record] };
      }
    }
    const last = page.at(-1);
    if (page.length < pageSize || !last) {
      if (pending) yield pending;
      return;
    }
    after = { promptKey: last.promptKey, responseId: last.responseId };
  }
}

/**
 * A version's rows in a format, as JSONL text chunks, counted in `tally`.
 *
 * @example
 * datasetExportJsonl(db, 'ws-1', { datasetId: 'ds_…', version: 3, format: 'trl-dpo', options }).pipe(out);
 */
export function datasetExportJsonl(db: SqlExecutor, workspaceId: string, request: DatasetExportRequest, tally: ExportTally = emptyTally()): Readable {
  const groups = datasetGroups(db, workspaceId, request.datasetId, request.version, request.pageSize);
  return jsonlOf(chunked(groups, (group) => datasetRows(request.format, group, request.options, tally), CHUNK_ROWS));
}

/**
 * The validator's report of a version's export (rows checked against the format's rules, what
 * was read, what made no row), as `GET /v1/exports/:format?validate=true` answers.
 *
 * @example
 * await validateDatasetExport(db, 'ws-1', request, 16_385) // { format: 'trl-sft', rows: 40, valid: 40, … }
 */
export function validateDatasetExport(db: SqlExecutor, workspaceId: string, request: DatasetExportRequest, maxTokens: number): Promise<ValidationReport> {
  const groups = datasetGroups(db, workspaceId, request.datasetId, request.version, request.pageSize);
  return validateGroups(groups, request.format, request.options, maxTokens, datasetRows);
}
