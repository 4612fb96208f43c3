import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedFeedloop, token, sleep } from './bench-server.js';
import { registerResponses, makeEvent } from './bench-workload.js';
const N = Number(process.env.N ?? 6000);
const key = `fl_sk_bench_${token(16)}`;
const fl = await startEmbeddedFeedloop({ dataDir: mkdtempSync(join(tmpdir(), 'fl-probe-')), secretKey: key });
const runId = token(4);
const responses = await registerResponses(fl.url, key, runId, 1000);
const occurredAt = new Date().toISOString();
const t0 = Date.now();
for (let i = 0; i < N; i += 1000) {
  const events = Array.from({ length: Math.min(1000, N - i) }, (_, k) => makeEvent(i + k, runId, responses, occurredAt));
  const res = await fetch(`${fl.url}/v1/feedback/batch`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ events }) });
  if (res.status !== 207) throw new Error(await res.text());
}
console.log('ingested', N, 'in', Date.now() - t0, 'ms');
const t1 = Date.now();
for (;;) {
  const r = await (await fetch(`${fl.url}/v1/pipeline`, { headers: { authorization: `Bearer ${key}` } })).json() as any;
  const pending = r.backlog.pending ?? r.backlog;
  if (typeof pending === 'number' ? pending === 0 : JSON.stringify(r.backlog).includes('"pending":0')) break;
  if ((Date.now() - t1) % 5000 < 250) console.log(JSON.stringify(r.backlog), Date.now() - t1);
  await sleep(200);
}
const s = (Date.now() - t1) / 1000;
console.log(`drained ${N} in ${s}s = ${(N / s).toFixed(0)} ev/s (from end of ingest)`, 'total', (N / ((Date.now() - t0) / 1000)).toFixed(0));
console.log(fl.output().split('---').slice(-3,-1).join('\n---'));
await fl.stop(5000);
