/**
 * GET /v1/users/:userId/context read latency on Postgres at 20, 200 and 2,000 events per user
 * (mixed votes, categories, comments and edits on their own responses), 200 reads each through
 * app.inject: the figure is the route's own time (SQL read + userMemory), not the network's.
 * Run: node --import tsx bench/user-context.ts (TEST_DATABASE_URL, default the local test database).
 */
import { userMemory } from '../packages/core/src/index.js';
import { readMemoryEvents } from '../packages/server/src/store/user-memory.js';
import { openPostgresSchema, startTestApp } from '../packages/server/test/harness.js';

const SIZES = (process.env.SIZES ?? '20,200,2000').split(',').map(Number);
const READS = 200;

const t = await startTestApp(await openPostgresSchema());
const types = ['thumbs_down', 'edit', 'error_categories', 'thumbs_up', 'rating'];
for (const size of SIZES) {
  const user = `bench-u${size}`;
  const responses = [];
  for (let i = 0; i < size; i++) responses.push({ id: `${user}-r${i}`, query: `question ${i}`, answer: `Hey! I think the answer is ${i} 🎉\n- one\n- two`, userId: user, queryType: i % 2 ? 'sql' : 'chat' });
  for (let i = 0; i < responses.length; i += 1_000) await t.app.inject({ method: 'POST', url: '/v1/responses/batch', headers: t.auth, payload: { responses: responses.slice(i, i + 1_000) } });
  const events = responses.map((r, i) => {
    const type = types[i % types.length];
    const payload =
      type === 'edit' ? { edited: `The answer is ${i}. One and two.` } : type === 'error_categories' ? { categories: ['hallucination'], comment: 'made up numbers again' } : type === 'rating' ? { rating: 2, comment: 'too verbose' } : {};
    return { responseId: r.id, userId: user, type, payload };
  });
  for (let i = 0; i < events.length; i += 1_000) await t.app.inject({ method: 'POST', url: '/v1/feedback/batch', headers: t.auth, payload: { events: events.slice(i, i + 1_000) } });
  const times: number[] = [];
  for (let i = 0; i < READS + 20; i++) {
    const started = performance.now();
    const res = await t.app.inject({ method: 'GET', url: `/v1/users/${user}/context`, headers: t.auth });
    if (res.statusCode !== 200) throw new Error(res.body);
    if (i >= 20) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1);
  const items = (await t.app.inject({ method: 'GET', url: `/v1/users/${user}/context`, headers: t.auth })).json().items.length;
  if (process.env.EXPLAIN) {
    const plan = await t.db.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN ANALYZE SELECT e.id, e.type, e.payload, e.occurred_at, e.response_id, r.answer, r.query_type
       FROM (SELECT id, type, payload, occurred_at, response_id, seq FROM feedback_events
              WHERE workspace_id = $1 AND user_id = $2 AND duplicate_of IS NULL AND superseded_by IS NULL
              ORDER BY seq DESC LIMIT 2000) e
       LEFT JOIN responses r ON r.workspace_id = $1 AND r.id = e.response_id ORDER BY e.seq DESC`,
      [t.workspaceId, user],
    );
    console.log(plan.map((p) => p['QUERY PLAN']).join('\n'));
  }
  let sql = 0;
  let compute = 0;
  for (let i = 0; i < 20; i++) {
    const a = performance.now();
    const evs = await readMemoryEvents(t.db, t.workspaceId, user);
    const b = performance.now();
    userMemory(evs, new Date());
    compute += performance.now() - b;
    sql += b - a;
  }
  console.log(`  of which: read ${(sql / 20).toFixed(1)} ms, userMemory ${(compute / 20).toFixed(1)} ms (means of 20)`);
  console.log(`${size} events/user: p50 ${at(0.5)} ms, p95 ${at(0.95)} ms (${READS} reads, ${items} items)`);
}
await t.close();
