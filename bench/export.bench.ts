/**
 * Benchmark: training-data export of 1 M events (250,000 responses × 4 events, seeded in the
 * database by generate_series with their signals and scores) on Postgres, streamed through
 * `exportJsonl` (store/export-stream.ts) into a sink that only counts, as the HTTP route does.
 * - Throughput: rows/s and events read/s per format.
 * - Memory: RSS and heap of this process, sampled every 100 ms during each export, against the
 *   size of the export (the stream must not hold it).
 *   Baseline, same run: `COPY (SELECT the events' columns) TO STDOUT` of the same workspace, the
 *   fastest way Postgres has to hand over the raw rows (no grouping, no signals, no JSON rows).
 *
 * Run: npm run build && node --import tsx bench/export.bench.ts
 * Knobs: BENCH_DATABASE_URL, BENCH_EXPORT_RESPONSES (250000; 4 events each).
 */
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import copyStreams from 'pg-copy-streams';
import { DEFAULT_EXPORT_OPTIONS, emptyTally, type ExportFormat } from '../packages/core/src/index.js';
import { migrate } from '../packages/server/src/db/migrate.js';
import { openPostgres } from '../packages/server/src/db/postgres-client.js';
import { exportJsonl } from '../packages/server/src/store/export-stream.js';
import { createWorkspace } from '../packages/server/src/store/workspaces.js';
import { seedExportData } from '../packages/server/test/export-seed.js';
import { createFreshDatabase } from './bench-database.js';
import { dec, envInt, int, isMain, type BenchResult } from './bench-server.js';

const RESPONSES = envInt('BENCH_EXPORT_RESPONSES', 250_000);
const EVENTS = RESPONSES * 4;
const FORMATS: ExportFormat[] = ['learning-signals', 'trl-kto', 'trl-dpo', 'openai-chat'];

/** A sink that counts bytes and lines, as a slow or fast client would read them. */
function countingSink(): { sink: Writable; bytes: () => number; lines: () => number } {
  let bytes = 0;
  let lines = 0;
  const sink = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      const text = String(chunk);
      bytes += Buffer.byteLength(text);
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
      done();
    },
  });
  return { sink, bytes: () => bytes, lines: () => lines };
}

/** Peak RSS and heap of this process while `run` runs, sampled every 100 ms. */
async function withMemory<T>(run: () => Promise<T>): Promise<{ result: T; rssMb: number; heapMb: number; baseRssMb: number }> {
  const mb = (n: number) => n / 2 ** 20;
  const baseRssMb = mb(process.memoryUsage().rss);
  let rssMb = baseRssMb;
  let heapMb = 0;
  const sample = () => {
    const m = process.memoryUsage();
    rssMb = Math.max(rssMb, mb(m.rss));
    heapMb = Math.max(heapMb, mb(m.heapUsed));
  };
  const timer = setInterval(sample, 100);
  try {
    const result = await run();
    sample();
    return { result, rssMb, heapMb, baseRssMb };
  } finally {
    clearInterval(timer);
  }
}

/** Runs the benchmark; returns one result a format. */
export async function runExportBench(): Promise<BenchResult[]> {
  const fresh = await createFreshDatabase();
  const db = await openPostgres(fresh.url, { max: 4 });
  const results: BenchResult[] = [];
  try {
    await migrate(db);
    const { workspace } = await createWorkspace(db, { name: 'export-bench' });
    let t0 = performance.now();
    await seedExportData(db, workspace.id, { responses: RESPONSES, eventsPerResponse: 4, groupSize: 2 });
    console.log(`seeded ${int(EVENTS)} events on ${int(RESPONSES)} responses in ${dec((performance.now() - t0) / 1000, 1)} s`);

    const copyClient = new pg.Client({ connectionString: fresh.url });
    await copyClient.connect();
    const copySink = countingSink();
    t0 = performance.now();
    await pipeline(
      copyClient.query(
        copyStreams.to(
          `COPY (SELECT e.response_id, e.id, e.type, e.payload, e.user_id, e.occurred_at, s.weight, s.learning_signal FROM feedback_events e ` +
            `JOIN feedback_signals s ON s.workspace_id = e.workspace_id AND s.event_id = e.id WHERE e.workspace_id = '${workspace.id}') TO STDOUT`,
        ),
      ),
      copySink.sink,
    );
    const copyRate = copySink.lines() / ((performance.now() - t0) / 1000);
    await copyClient.end();
    console.log(`baseline COPY: ${int(copySink.lines())} rows, ${int(copyRate)} rows/s`);

    for (const format of FORMATS) {
      const tally = emptyTally();
      const out = countingSink();
      const start = performance.now();
      const { rssMb, heapMb, baseRssMb } = await withMemory(() =>
        pipeline(exportJsonl(db, workspace.id, { format, filters: {}, options: { ...DEFAULT_EXPORT_OPTIONS } }, tally), out.sink),
      );
      const seconds = (performance.now() - start) / 1000;
      const eventRate = EVENTS / seconds;
      console.log(
        `${format}: ${int(out.lines())} rows (${dec(out.bytes() / 2 ** 20, 1)} MB) in ${dec(seconds, 1)} s: ${int(out.lines() / seconds)} rows/s, ` +
          `${int(eventRate)} events read/s; RSS ${dec(baseRssMb, 0)} → peak ${dec(rssMb, 0)} MB, heap peak ${dec(heapMb, 0)} MB; excluded ${JSON.stringify(tally.excluded)}`,
      );
      results.push({
        name: `export ${format}, ${int(EVENTS)} events (${int(out.lines())} rows, ${dec(out.bytes() / 2 ** 20, 0)} MB; RSS peak ${dec(rssMb, 0)} MB)`,
        value: eventRate,
        unit: 'events/s',
        baseline: copyRate,
        baselineLabel: 'rows/s raw COPY of the events',
        ratio: eventRate / copyRate,
      });
    }
  } finally {
    await db.close();
    await fresh.drop();
  }
  return results;
}

if (isMain(import.meta.url)) {
  const { printTable } = await import('./bench-server.js');
  printTable(await runExportBench());
}
