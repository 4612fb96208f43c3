// SCRATCH (not committed): a data dir with one day of ~40k processed events, for EXPLAIN of the rollup page.
import { rmSync } from 'node:fs';
import { post, sleep, startEmbeddedFeedloop, keepAliveAgent, token } from './bench-server.js';
import { makeEvent, registerResponses } from './bench-workload.js';
const dir = '/tmp/rollexp/data';
rmSync(dir, { recursive: true, force: true });
const key = `fl_sk_bench_${token(16)}`;
const server = await startEmbeddedFeedloop({ dataDir: dir, secretKey: key });
const runId = token(4);
const responses = await registerResponses(server.url, key, runId, 1000);
const agent = keepAliveAgent(8);
const now = new Date().toISOString();
for (let b = 0; b < 400; b++) {
  const events = Array.from({ length: 100 }, (_, i) => makeEvent(b * 100 + i, runId, responses, new Date(Date.parse(now) - 3_600_000 + (b * 100 + i) * 50).toISOString()));
  const res = await post(agent, server.url, '/v1/feedback/batch', key, JSON.stringify({ events }));
  if (res.status !== 207 && res.status !== 202) throw new Error(`batch ${res.status}`);
}
for (;;) {
  const body = (await (await fetch(`${server.url}/v1/pipeline`, { headers: { authorization: `Bearer ${key}` } })).json()) as { backlog: { pending: number } };
  if (body.backlog.pending === 0) break;
  await sleep(1000);
}
await sleep(3000);
await server.stop(20_000);
agent.destroy();
console.log('done');
