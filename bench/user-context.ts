/**
 * GET /v1/users/:userId/context read latency on both stores (PGlite, then Postgres) at 20, 200
 * and 2,000 events per user (mixed votes, categories, comments and edits on their own responses),
 * through app.inject: the route's own time (SQL + computation), not the network's. Each figure is
 * printed beside baselines measured in the same run on the same data:
 *   - ids: the bare SQL read of the user's newest event ids (the least any read of the log costs);
 *   - pre-change: the read as it was before the snapshot (commit 6312ee7): its SQL (the LATERAL
 *     the planner pulled up into a join over the workspace) and the previous userMemory;
 *   - read without HTTP: the new read like for like with the pre-change one (window + memoryFromFacts);
 *   - rebuild: the route when the user's snapshot is missing (a first read, or one after a vote
 *     change), which reads the whole window from the log and writes the snapshot.
 * Run: node --import tsx bench/user-context.ts (TEST_DATABASE_URL, default the local test database;
 * SIZES=20,200,2000; STORES=pglite,postgres).
 */
import { referenceUserMemory } from '../packages/core/test/memory-reference.js';
import type { MemoryEvent } from '../packages/core/src/index.js';
import { memoryFromFacts } from '../packages/core/src/index.js';
import { MemoryWindowReader } from '../packages/server/src/store/user-memory-window.js';
import { BACKENDS, startTestApp } from '../packages/server/test/harness.js';
import { seedUser } from './user-context-seed.js';

const SIZES = (process.env.SIZES ?? '20,200,2000').split(',').map(Number);
const STORES = (process.env.STORES ?? 'pglite,postgres').split(',');
const READS = 200;
const BASELINE_READS = 50;
const WARM_UP = 20;

/** The read before this change, verbatim: the planner pulls the LATERAL subquery up into a join. */
const PRE_CHANGE_SQL = `SELECT e.id, e.type, e.payload, e.occurred_at, e.response_id, r.answer, r.query_type
       FROM (SELECT id, type, payload, occurred_at, response_id, seq FROM feedback_events
              WHERE workspace_id = $1 AND user_id = $2 AND duplicate_of IS NULL AND superseded_by IS NULL
              ORDER BY seq DESC LIMIT $3) e
       LEFT JOIN LATERAL (SELECT answer, query_type FROM responses WHERE workspace_id = $1 AND id = e.response_id) r ON true
      ORDER BY e.seq DESC`;

const IDS_SQL = `SELECT id FROM feedback_events WHERE workspace_id = $1 AND user_id = $2 AND duplicate_of IS NULL AND superseded_by IS NULL ORDER BY seq DESC LIMIT 2000`;

/** p50 and p95 of `n` timed runs of `fn` after `warm` untimed ones, in ms. */
async function timed(n: number, warm: number, fn: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < warm; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] as number;
  return { p50: at(0.5), p95: at(0.95) };
}

const ms = (x: number) => `${x.toFixed(1)} ms`;
const summary: string[] = [];

for (const backend of BACKENDS.filter((b) => STORES.includes(b.name))) {
  if (!backend.available) throw new Error(`${backend.name} is not available`);
  const t = await startTestApp(await backend.open());
  console.log(`# ${backend.name}`);
  for (const size of SIZES) {
    const user = `bench-u${size}`;
    await seedUser(t, user, size);
    const url = `/v1/users/${user}/context`;
    const route = async () => {
      const res = await t.app.inject({ method: 'GET', url, headers: t.auth });
      if (res.statusCode !== 200) throw new Error(res.body);
      return res;
    };
    const first = await route(); // writes the snapshot
    const items = first.json().items.length;
    const read = await timed(READS, WARM_UP, route);
    const ids = await timed(BASELINE_READS, 5, () => t.db.query(IDS_SQL, [t.workspaceId, user]));
    const pre = await timed(size >= 2_000 ? 20 : BASELINE_READS, 3, async () => {
      const rows = await t.db.query<{ id: string; type: string; payload: Record<string, unknown>; occurred_at: Date; answer: string | null; query_type: string | null; response_id: string }>(PRE_CHANGE_SQL, [t.workspaceId, user, 2_000]);
      const events: MemoryEvent[] = rows.map((r) => ({ id: r.id, type: r.type, payload: r.payload ?? {}, occurredAt: r.occurred_at, answer: r.answer, queryType: r.query_type, responseId: r.response_id }));
      return referenceUserMemory(events, new Date());
    });
    // Like for like with the pre-change read (SQL and computation, no HTTP): the window read and memoryFromFacts.
    const reader = new MemoryWindowReader(t.db);
    const now = await timed(BASELINE_READS, 5, async () => memoryFromFacts((await reader.read(t.workspaceId, user)).facts, new Date()));
    const dropSnapshot = () => t.db.query('DELETE FROM user_memory_snapshots WHERE workspace_id = $1 AND user_id = $2', [t.workspaceId, user]);
    const rebuildTimes: number[] = [];
    for (let i = 0; i < 20; i++) {
      await dropSnapshot();
      const started = performance.now();
      await route();
      rebuildTimes.push(performance.now() - started);
    }
    rebuildTimes.sort((a, b) => a - b);
    const line =
      `${backend.name} ${size} events/user: route p50 ${ms(read.p50)}, p95 ${ms(read.p95)} (${READS} reads, ${items} items)` +
      `  |  ids read p50 ${ms(ids.p50)}, p95 ${ms(ids.p95)}: ratio ${(read.p50 / ids.p50).toFixed(2)} (p50), ${(read.p95 / ids.p95).toFixed(2)} (p95)` +
      `  |  read without HTTP p50 ${ms(now.p50)}, p95 ${ms(now.p95)} vs pre-change read p50 ${ms(pre.p50)}, p95 ${ms(pre.p95)}: ${(pre.p50 / now.p50).toFixed(1)}x faster (p50)` +
      `  |  rebuild (no snapshot) p50 ${ms(rebuildTimes[10] as number)}`;
    console.log(line);
    summary.push(line);
  }
  await t.close();
}
console.log('\n' + summary.join('\n'));
