/**
 * The export stream holds a page, never the workspace: 100,000 events (25,000 responses) are
 * exported while the heap is measured after a forced GC every few chunks, on both stores. The
 * 1 M-event run is `npm run bench export` (bench/export.bench.ts); figures in docs/exports.md.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DEFAULT_EXPORT_OPTIONS, emptyTally, type ExportFormat } from '@feedloop/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlClient } from '../src/db/sql-client.js';
import { exportJsonl } from '../src/store/export-stream.js';
import { createWorkspace } from '../src/store/workspaces.js';
import { seedExportData } from './export-seed.js';
import { BACKENDS, type TestDatabase } from './harness.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const RESPONSES = 25_000;
const PAGE = 500;

/** Streams an export, sampling the heap after a GC every 10 chunks: bytes, lines, peak growth. */
async function measure(db: SqlClient, workspaceId: string, format: ExportFormat, dedup: boolean) {
  gc();
  const base = process.memoryUsage().heapUsed;
  let peak = 0;
  let bytes = 0;
  let lines = 0;
  let chunks = 0;
  const tally = emptyTally();
  const t0 = performance.now();
  for await (const chunk of exportJsonl(db, workspaceId, { format, filters: {}, options: { ...DEFAULT_EXPORT_OPTIONS, dedup }, pageSize: PAGE }, tally)) {
    const text = String(chunk);
    bytes += Buffer.byteLength(text);
    lines += text.split('\n').length - 1;
    if (++chunks % 10 === 0) {
      gc();
      peak = Math.max(peak, process.memoryUsage().heapUsed - base);
    }
  }
  return { bytes, lines, peakMb: peak / 2 ** 20, rowsPerSecond: lines / ((performance.now() - t0) / 1000), tally };
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`export streaming on ${backend.name}`, () => {
    let database: TestDatabase;
    let workspaceId: string;

    beforeAll(async () => {
      database = await backend.open();
      workspaceId = (await createWorkspace(database.db, { name: 'bulk' })).workspace.id;
      await seedExportData(database.db, workspaceId, { responses: RESPONSES, eventsPerResponse: 4, groupSize: 2 });
    }, 300_000);
    afterAll(async () => {
      await database.close();
    });

    it('exports 100,000 events with a heap that does not grow with them', async () => {
      const signals = await measure(database.db, workspaceId, 'learning-signals', true);
      console.log(`${backend.name} learning-signals: ${signals.lines} rows, ${(signals.bytes / 2 ** 20).toFixed(1)} MB, ${Math.round(signals.rowsPerSecond)} rows/s, heap peak +${signals.peakMb.toFixed(1)} MB`);
      expect(signals.lines).toBe(RESPONSES * 4);
      // Whole output is ~40 MB; a page's worth is a few MB. Holding the export would exceed this.
      expect(signals.bytes / 2 ** 20).toBeGreaterThan(30);
      expect(signals.peakMb).toBeLessThan(12);

      const kto = await measure(database.db, workspaceId, 'trl-kto', false);
      console.log(`${backend.name} trl-kto: ${kto.lines} rows, ${Math.round(kto.rowsPerSecond)} rows/s, heap peak +${kto.peakMb.toFixed(1)} MB`);
      // One row per thumbs vote and per rating that is not 3 stars (one in five).
      expect(kto.lines).toBe(RESPONSES + (RESPONSES * 4) / 5);
      expect(kto.tally.excluded.tie).toBe(RESPONSES / 5);
      expect(kto.peakMb).toBeLessThan(12);
    }, 300_000);

    it('reads only as fast as its consumer: a paused reader stops the page reads', async () => {
      let statements = 0;
      const counting: SqlClient = Object.create(database.db, {
        query: { value: (...args: Parameters<SqlClient['query']>) => (statements++, database.db.query(...args)) },
      });
      const stream = exportJsonl(counting, workspaceId, { format: 'trl-kto', filters: {}, options: DEFAULT_EXPORT_OPTIONS, pageSize: 100 });
      const first = await new Promise<unknown>((resolve) => stream.once('data', resolve));
      stream.pause();
      expect(String(first).length).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 300));
      const whilePaused = statements;
      await new Promise((r) => setTimeout(r, 300));
      // 250 pages of 2 statements make the whole export; a paused reader holds it to a few.
      expect(statements).toBe(whilePaused);
      expect(statements).toBeLessThan(20);
      stream.destroy();
    });

    it('streams in normalized-prompt groups across page boundaries: each pair of responses sharing a question is one group', async () => {
      const dpo = await measure(database.db, workspaceId, 'trl-dpo', true);
      // Dedup keeps one pair per question: at most RESPONSES / 2 (+1 for the odd group at the edges).
      expect(dpo.lines).toBeLessThanOrEqual(RESPONSES / 2 + 1);
      expect(dpo.lines).toBeGreaterThan(RESPONSES / 4);
      expect(dpo.tally.excluded.duplicate).toBeGreaterThan(0);
    }, 300_000);
  });
}
