/**
 * A correction's effect on the user's context, on both stores: with the in-process pipeline
 * running (it processes every event submitted here, as in production), submit a correction
 * through the API and poll GET /v1/users/:userId/context?explain=true until an item names the
 * correction's event id. "commit → visible" runs from the 2xx (the event is committed then) to
 * the first read that shows it; "submit → visible" also counts the submission. The user already
 * has 2,000 events (the read's limit), so every correction also slides the window. Printed beside
 * the baseline of the same run: one plain context read of that user.
 * Stores: `pglite` and `postgres` with the in-process queue; `postgres+redis`, the production
 * profile (BullMQ queues and live counters on Redis, TEST_REDIS_URL), the worker in the same process.
 * Run: node --import tsx bench/user-context-visible.ts (TEST_DATABASE_URL; CORRECTIONS=200; STORES=pglite,postgres,postgres+redis).
 */
import { BACKENDS, REDIS_URL, startTestApp } from '../packages/server/test/harness.js';
import { seedUser } from './user-context-seed.js';

const CORRECTIONS = Number(process.env.CORRECTIONS ?? 200);
const STORES = (process.env.STORES ?? 'pglite,postgres,postgres+redis').split(',');
const PROFILES = [
  { name: 'pglite', backend: 'pglite', env: {} },
  { name: 'postgres', backend: 'postgres', env: {} },
  { name: 'postgres+redis', backend: 'postgres', env: { REDIS_URL } },
] as const;
const SIZE = 2_000;
const POLL_LIMIT_MS = 10_000;

const quantile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
const ms = (x: number) => `${x.toFixed(1)} ms`;

const summary: string[] = [];
for (const profile of PROFILES.filter((p) => STORES.includes(p.name))) {
  const backend = BACKENDS.find((b) => b.name === profile.backend);
  if (!backend?.available) throw new Error(`${profile.backend} is not available`);
  const t = await startTestApp(await backend.open(), { ...profile.env }, { worker: true });
  const user = 'bench-visible';
  await seedUser(t, user, SIZE);
  const context = async (explain: boolean) => {
    const res = await t.app.inject({ method: 'GET', url: `/v1/users/${user}/context${explain ? '?explain=true' : ''}`, headers: t.auth });
    if (res.statusCode !== 200) throw new Error(res.body);
    return res.json() as { items: Array<{ eventIds?: string[] }> };
  };
  // The seed's 2,000 events are processed first: the baseline is a read of an idle server.
  await t.services.pipeline.idle(60_000);
  await context(false);
  const plain: number[] = [];
  for (let i = 0; i < 50; i++) {
    const started = performance.now();
    await context(false);
    plain.push(performance.now() - started);
  }
  const commitToVisible: number[] = [];
  const submitToVisible: number[] = [];
  let polls = 0;
  for (let i = 0; i < CORRECTIONS; i++) {
    const responseId = `${user}-c${i}`;
    const id = `${user}-correction-${i}`;
    await t.app.inject({ method: 'POST', url: '/v1/responses', headers: t.auth, payload: { id: responseId, query: `q ${i}`, answer: `Hey! I think it is ${i} 🎉`, userId: user, queryType: 'sql' } });
    const submitted = performance.now();
    const res = await t.app.inject({ method: 'POST', url: '/v1/feedback', headers: t.auth, payload: { id, responseId, userId: user, type: 'correction', payload: { corrected: `It is ${i}.`, comment: 'wrong number' } } });
    if (res.statusCode !== 202) throw new Error(res.body);
    const committed = performance.now();
    for (;;) {
      polls += 1;
      const c = await context(true);
      if (c.items.some((item) => item.eventIds?.includes(id))) break;
      if (performance.now() - committed > POLL_LIMIT_MS) throw new Error(`correction ${id} not visible after ${POLL_LIMIT_MS} ms`);
    }
    const visible = performance.now();
    commitToVisible.push(visible - committed);
    submitToVisible.push(visible - submitted);
  }
  for (const a of [plain, commitToVisible, submitToVisible]) a.sort((x, y) => x - y);
  const line =
    `${profile.name}: commit → visible p50 ${ms(quantile(commitToVisible, 0.5))}, p99 ${ms(quantile(commitToVisible, 0.99))}, max ${ms(commitToVisible[commitToVisible.length - 1] as number)}` +
    ` (${CORRECTIONS} corrections, ${(polls / CORRECTIONS).toFixed(2)} reads each); submit → visible p99 ${ms(quantile(submitToVisible, 0.99))}` +
    `  |  one plain read of the same user (pipeline idle) p50 ${ms(quantile(plain, 0.5))}, p99 ${ms(quantile(plain, 0.99))}: ratio ${(quantile(commitToVisible, 0.99) / quantile(plain, 0.99)).toFixed(2)} (p99)`;
  console.log(line);
  summary.push(line);
  await t.close();
}
console.log('\n' + summary.join('\n'));
