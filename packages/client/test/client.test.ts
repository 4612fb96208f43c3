/**
 * The client against a real running feedloop server (spawned): batching, typed events, rejected
 * items alone, and a server SIGKILLed mid-batch and restarted: nothing lost, nothing twice.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeedloopClient, PersistentQueue, backoffDelay, retryAfterMs, type ItemOutcome, type QueueStorage } from '../src/index.js';
import { CLI_PATH, killAllServers, within } from '../../server/test/process-helpers.js';
import { SECRET_KEY, startCaptureServer, type CaptureServer } from './capture-server.js';

const listIds = async (url: string, responseId: string): Promise<string[]> => {
  const res = await fetch(`${url}/v1/feedback?responseId=${encodeURIComponent(responseId)}&limit=1000`, { headers: { authorization: `Bearer ${SECRET_KEY}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Array<{ id: string }> }).data.map((e) => e.id);
};

describe('client package', () => {
  it('has no Node-only imports: it bundles for the browser', async () => {
    const out = await build({
      entryPoints: [new URL('../src/index.ts', import.meta.url).pathname],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(out.metafile.inputs);
    expect(inputs.some((i) => i.includes('uuid'))).toBe(true);
    expect(inputs.filter((i) => /(^|\/)node:|node_modules\/@types\/node/.test(i))).toEqual([]);
    expect(out.outputFiles[0]?.text).not.toMatch(/from\s*["']node:|require\(["']node:/);
  });

  it('backs off with jitter, capped, and reads Retry-After', () => {
    const policy = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1_000 };
    expect(backoffDelay(1, policy, () => 1)).toBe(100);
    expect(backoffDelay(4, policy, () => 1)).toBe(800);
    expect(backoffDelay(9, policy, () => 1)).toBe(1_000);
    expect(backoffDelay(4, policy, () => 0.25)).toBe(200);
    expect(retryAfterMs('3')).toBe(3_000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 5_000)).toBe(5_000);
    expect(retryAfterMs(null)).toBeUndefined();
  });

  it('keeps its queue in storage under a size cap, dropping the oldest', () => {
    const map = new Map<string, string>();
    const storage: QueueStorage = { getItem: (k) => map.get(k) ?? null, setItem: (k, v) => map.set(k, v), removeItem: (k) => map.delete(k) };
    const dropped: string[] = [];
    const q = new PersistentQueue(storage, 'q', 400, (items) => dropped.push(...items.map((i) => i.body.id)));
    for (let i = 0; i < 10; i++) q.push({ kind: 'feedback', body: { id: `e-${i}`, type: 'thumbs_up', responseId: 'r' } });
    expect((map.get('q') ?? '').length).toBeLessThanOrEqual(400);
    expect(dropped[0]).toBe('e-0');
    const reloaded = new PersistentQueue(storage, 'q', 400);
    expect(reloaded.items.map((i) => i.body.id)).toEqual(q.items.map((i) => i.body.id));
    expect(reloaded.items.at(-1)?.body.id).toBe('e-9');
    reloaded.remove(new Set(reloaded.items.map((i) => i.body.id)));
    expect(map.has('q')).toBe(false);
  });
});

describe('client against a running server', () => {
  let s: CaptureServer;
  beforeAll(async () => {
    s = await startCaptureServer();
  }, 250_000);
  afterAll(async () => {
    await killAllServers();
    s?.cleanup();
  });

  it('registers responses and sends typed events in batches; a bad item is rejected alone', async () => {
    const outcomes: ItemOutcome[] = [];
    const requests: string[] = [];
    const fl = new FeedloopClient({
      url: s.url,
      key: SECRET_KEY,
      maxBatchSize: 4,
      flushIntervalMs: 50,
      onOutcome: (o) => outcomes.push(o),
      fetch: (input, init) => {
        requests.push(String(input));
        return fetch(input, init);
      },
    });
    const r = fl.response({ query: 'Sales last month?', answer: 'SELECT sum(total) FROM sales' });
    fl.thumbsUp(r);
    fl.rating(r, { payload: { rating: 4 } });
    fl.correction(r, { payload: { corrected: "SELECT sum(total) FROM sales WHERE month = '2026-10'", format: 'sql' } });
    fl.comment(r, { payload: { comment: 'close' } });
    // Invalid on purpose (the types forbid it): the server must reject this one only.
    fl.event('rating', r, { payload: { rating: 9 } } as never);
    await fl.flush();
    expect(fl.pending).toBe(0);
    expect(outcomes.filter((o) => o.kind === 'response')).toEqual([{ id: r, kind: 'response', status: 'created' }]);
    const feedback = outcomes.filter((o) => o.kind === 'feedback');
    expect(feedback.map((o) => o.status)).toEqual(['accepted', 'accepted', 'accepted', 'accepted', 'rejected']);
    expect(feedback[4]?.error?.code).toBe('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD');
    expect(requests.filter((u) => u.endsWith('/v1/feedback/batch'))).toHaveLength(2);
    expect((await listIds(s.url, r)).sort()).toEqual(feedback.slice(0, 4).map((o) => o.id).sort());
    // UUIDv7: time-ordered, version 7.
    expect(r).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await fl.shutdown();
  });

  it('feedloop submit: thumbs, rating and a correction from a file', async () => {
    const fl = new FeedloopClient({ url: s.url, key: SECRET_KEY, storage: null });
    const r = fl.response({ id: 'cli-1', query: 'Top customers?', answer: 'SELECT name FROM customers' });
    await fl.shutdown();
    const file = join(mkdtempSync(join(tmpdir(), 'feedloop-submit-')), 'fixed.sql');
    writeFileSync(file, 'SELECT name FROM customers ORDER BY revenue DESC LIMIT 10');
    const cli = (...args: string[]) => spawnSync(process.execPath, [CLI_PATH, 'submit', r, ...args, '--url', s.url, '--key', SECRET_KEY], { encoding: 'utf8' });
    const down = cli('--thumbs', 'down', '--comment', 'no ordering', '--user', 'dev-1');
    expect(down.status, down.stderr).toBe(0);
    expect(down.stdout).toMatch(/^thumbs_down \S+: accepted/);
    expect(cli('--rating', '2').status).toBe(0);
    const fix = cli('--correction', file, '--format', 'sql', '--json');
    expect(fix.status, fix.stderr).toBe(0);
    expect(JSON.parse(fix.stdout)).toMatchObject({ status: 'accepted' });
    const bad = cli('--rating', '7');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('--rating must be a whole number from 1 to 5');
    const res = await fetch(`${s.url}/v1/responses/cli-1`, { headers: { authorization: `Bearer ${SECRET_KEY}` } });
    const feedback = ((await res.json()) as { feedback: Array<{ type: string; payload: Record<string, unknown>; editDistance?: number | null }> }).feedback;
    expect(feedback.map((f) => f.type).sort()).toEqual(['correction', 'rating', 'thumbs_down']);
    const correction = feedback.find((f) => f.type === 'correction');
    expect(correction?.payload.corrected).toBe('SELECT name FROM customers ORDER BY revenue DESC LIMIT 10');
    expect(correction?.editDistance).toBeGreaterThan(0);
  }, 60_000);

  it('a server SIGKILLed mid-batch and restarted: nothing lost, nothing twice', async () => {
    const N = 400;
    const outcomes: ItemOutcome[] = [];
    let calls = 0;
    let failures = 0;
    let restarting: Promise<unknown> | undefined;
    const fl = new FeedloopClient({
      url: s.url,
      key: SECRET_KEY,
      maxBatchSize: 50,
      flushIntervalMs: 10,
      retry: { maxAttempts: 1_000, baseDelayMs: 50, maxDelayMs: 500 },
      onOutcome: (o) => outcomes.push(o),
      fetch: async (input, init) => {
        calls++;
        const pending = fetch(input, init);
        // The 4th feedback batch: kill the server while it is in flight, restart it a bit later.
        if (calls === 5 && !restarting) {
          setTimeout(() => s.server.signal('SIGKILL'), 2);
          restarting = s.server.exited.then(() => new Promise((r) => setTimeout(r, 500))).then(() => s.restart());
        }
        try {
          return await pending;
        } catch (err) {
          failures++;
          throw err;
        }
      },
    });
    const r = fl.response({ id: 'restart-1', query: 'q', answer: 'a' });
    const ids: string[] = [];
    for (let i = 0; i < N; i++) ids.push(fl.comment(r, { payload: { comment: `note ${i}` }, userId: `u${i % 7}` }));
    const started = Date.now();
    await within(fl.flush(), 280_000, 'flush across the restart');
    const took = Date.now() - started;
    await restarting;
    expect(restarting).toBeDefined();
    expect(failures).toBeGreaterThan(0);
    expect(fl.pending).toBe(0);
    const stored = await listIds(s.url, r);
    expect(stored).toHaveLength(N);
    expect(new Set(stored)).toEqual(new Set(ids));
    const feedback = outcomes.filter((o) => o.kind === 'feedback');
    expect(feedback.filter((o) => o.status === 'rejected')).toEqual([]);
    expect(new Set(feedback.map((o) => o.id)).size).toBe(N);
    const duplicates = feedback.filter((o) => o.status === 'duplicate').length;
    console.log(`restart test: ${N} events, ${calls} requests, ${failures} failed in flight, ${duplicates} acknowledged as duplicate after retry, flush took ${took} ms`);
    await fl.shutdown();
  }, 300_000);
});
