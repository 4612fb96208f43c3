/**
 * Benchmark: making a training batch of 10,000 events of each kind on Postgres (the most a batch
 * takes, `TRAINING_BATCH_MAX_EVENTS`): the claim (`training_applied_events` rows, under the
 * workspace-and-kind lock), the file written through the kind's export builders, the batch row and
 * its `training.batch_ready` message, in one transaction. The workspace holds 40,000 responses
 * with 4 events each (seeded by generate_series, export-seed.ts: 10,000 corrections among them)
 * and 10,000 label corrections, so every kind has at least 10,000 unused examples.
 * Baseline, same run: `COPY` of 10,000 of the workspace's events with their signals to STDOUT,
 * the raw read of as many rows.
 *
 * Run: npm run build && node --import tsx bench/training-batches.bench.ts
 * Knobs: BENCH_DATABASE_URL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import copyStreams from 'pg-copy-streams';
import { TRAINING_BATCH_KIND_NAMES } from '../packages/core/src/index.js';
import { migrate } from '../packages/server/src/db/migrate.js';
import { openPostgres } from '../packages/server/src/db/postgres-client.js';
import { createTrainingBatch, TRAINING_BATCH_MAX_EVENTS } from '../packages/server/src/pipeline/training-batch-maker.js';
import { createWorkspace } from '../packages/server/src/store/workspaces.js';
import { seedExportData } from '../packages/server/test/export-seed.js';
import { createFreshDatabase } from './bench-database.js';
import { dec, int, isMain, type BenchResult } from './bench-server.js';

const RESPONSES = 40_000;

/** Runs the benchmark; returns one result a kind. */
export async function runTrainingBatchBench(): Promise<BenchResult[]> {
  const fresh = await createFreshDatabase();
  const db = await openPostgres(fresh.url, { max: 4 });
  const dir = mkdtempSync(join(tmpdir(), 'feedloop-batch-bench-'));
  const results: BenchResult[] = [];
  try {
    await migrate(db);
    const { workspace } = await createWorkspace(db, { name: 'batch-bench' });
    await seedExportData(db, workspace.id, { responses: RESPONSES, eventsPerResponse: 4, groupSize: 2 });
    await db.query(
      `INSERT INTO feedback_events (workspace_id, id, response_id, type, source, user_id, target_id, payload, occurred_at, received_at)
       SELECT $1, 'l' || g, 'r' || g, 'correct_label', 'explicit', 'u' || (g % 97), 'claim-' || g,
              jsonb_build_object('correct_relation', 'supports', 'confidence', 0.8), now(), now()
       FROM generate_series(1, $2::int) g`,
      [workspace.id, TRAINING_BATCH_MAX_EVENTS],
    );
    await db.query(
      `INSERT INTO feedback_signals (workspace_id, event_id, response_id, user_id, type, status, weight, value, occurred_at)
       SELECT workspace_id, id, response_id, user_id, type, 'counted', 1, 0.5, occurred_at FROM feedback_events
        WHERE workspace_id = $1 AND type = 'correct_label'`,
      [workspace.id],
    );
    await db.exec('ANALYZE feedback_events; ANALYZE feedback_signals');

    const copyClient = new pg.Client({ connectionString: fresh.url });
    await copyClient.connect();
    let lines = 0;
    const t0 = performance.now();
    await pipeline(
      copyClient.query(
        copyStreams.to(
          `COPY (SELECT e.response_id, e.id, e.type, e.payload, s.weight, s.learning_signal FROM feedback_events e JOIN feedback_signals s ` +
            `ON s.workspace_id = e.workspace_id AND s.event_id = e.id WHERE e.workspace_id = '${workspace.id}' LIMIT ${TRAINING_BATCH_MAX_EVENTS}) TO STDOUT`,
        ),
      ),
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
          done();
        },
      }),
    );
    const copyRate = lines / ((performance.now() - t0) / 1000);
    await copyClient.end();
    console.log(`baseline COPY: ${int(lines)} rows, ${int(copyRate)} rows/s`);

    for (const kind of TRAINING_BATCH_KIND_NAMES) {
      const start = performance.now();
      const made = await createTrainingBatch(db, { workspaceId: workspace.id, kind, minEvents: 1, dir, stream: false });
      const seconds = (performance.now() - start) / 1000;
      if (!made) throw new Error(`no ${kind} batch`);
      const rate = made.batch.eventCount / seconds;
      console.log(`${kind}: ${int(made.batch.eventCount)} events, ${int(made.batch.rowCount)} rows of ${made.batch.format} in ${dec(seconds, 2)} s (${int(rate)} events/s)`);
      results.push({
        name: `training batch ${kind}: ${int(made.batch.eventCount)} events → ${int(made.batch.rowCount)} ${made.batch.format} rows in ${dec(seconds, 2)} s`,
        value: rate,
        unit: 'events/s',
        baseline: copyRate,
        baselineLabel: 'rows/s raw COPY of 10,000 events',
        ratio: rate / copyRate,
      });
    }
  } finally {
    await db.close();
    await fresh.drop();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

if (isMain(import.meta.url)) {
  const { printTable } = await import('./bench-server.js');
  printTable(await runTrainingBatchBench());
}
