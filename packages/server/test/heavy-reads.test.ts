/**
 * Issue 22, heavy reads: heavy reads run at most 2 at a time in the process (1 on PGlite) and 1
 * per workspace; the others wait in a bounded queue or get 429 FEEDLOOP_ERR_HEAVY_READS_BUSY with
 * Retry-After. With 16 export and user-context loops running, `/healthz` keeps its latency (p99
 * within max(2 × idle p99, idle p99 + 50 ms)) and a single thumbs' p99 stays within idle p99 +
 * 500 ms (a generous bound: the issue's own is `npm run bench heavy`'s figure). Export pages are
 * sized to a time, and the rows do not depend on it. On both stores.
 */
import { DEFAULT_EXPORT_OPTIONS, type ExportFormat } from '@feedloop/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeavyReadGate } from '../src/http/heavy-reads.js';
import { EXPORT_PAGE_MS, EXPORT_PAGE_SIZE, exportJsonl, nextPageSize } from '../src/store/export-stream.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const p99 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))] ?? 0;

describe('HeavyReadGate', () => {
  it('runs at most perProcess and perWorkspace at once, queues the rest in order, refuses past the queue', async () => {
    const gate = new HeavyReadGate({ perProcess: 2, perWorkspace: 1, queue: 2, waitMs: 200 });
    const a1 = await gate.acquire('a');
    const b1 = await gate.acquire('b');
    const order: string[] = [];
    const a2 = gate.acquire('a').then((r) => (order.push('a2'), r));
    const c1 = gate.acquire('c').then((r) => (order.push('c1'), r));
    await expect(gate.acquire('d')).rejects.toMatchObject({ code: 'FEEDLOOP_ERR_HEAVY_READS_BUSY', retryAfterSeconds: 1 });
    expect(gate.counts).toEqual({ running: 2, waiting: 2 });
    b1(); // c may run (a is at its own limit), a2 keeps waiting
    (await c1)();
    expect(order).toEqual(['c1']);
    a1();
    (await a2)();
    expect(gate.counts).toEqual({ running: 0, waiting: 0 });
    const x = await gate.acquire('x');
    await expect(gate.acquire('x')).rejects.toMatchObject({ code: 'FEEDLOOP_ERR_HEAVY_READS_BUSY' }); // waited 200 ms
    x();
  });
});

describe('nextPageSize', () => {
  it('doubles a page well under EXPORT_PAGE_MS, shrinks one over it in proportion, within its bounds', () => {
    expect(nextPageSize(250, 1)).toBe(500);
    expect(nextPageSize(800, 1)).toBe(EXPORT_PAGE_SIZE);
    expect(nextPageSize(400, EXPORT_PAGE_MS * 2)).toBe(200);
    expect(nextPageSize(400, EXPORT_PAGE_MS * 0.75)).toBe(400);
    expect(nextPageSize(150, EXPORT_PAGE_MS * 100)).toBe(100); // never below the smallest page
  });
});

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`heavy reads on ${backend.name}`, () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), { FEEDLOOP_HEAVY_READ_QUEUE: '4' });
      const responses = Array.from({ length: 300 }, (_, i) => ({ id: `hr-r${i}`, query: `question ${i % 40}`, answer: `answer ${i}`, userId: `hr-u${i % 20}`, queryType: 'sql' }));
      expect((await t.app.inject({ method: 'POST', url: '/v1/responses/batch', headers: t.auth, payload: { responses } })).statusCode).toBe(207);
      const events = responses.flatMap((r, i) => [
        { id: `hr-e${i}`, responseId: r.id, type: i % 3 === 0 ? 'thumbs_down' : 'thumbs_up', userId: r.userId },
        ...(i % 5 === 0 ? [{ id: `hr-c${i}`, responseId: r.id, type: 'correction', userId: r.userId, payload: { corrected: `better ${i}` } }] : []),
      ]);
      expect((await t.app.inject({ method: 'POST', url: '/v1/feedback/batch', headers: t.auth, payload: { events } })).statusCode).toBe(207);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('/healthz and a thumbs keep their latency under 16 heavy loops; the excess is queued or told to retry', async () => {
      let n = 0;
      const cheap = async (): Promise<{ health: number; thumbs: number }> => {
        let at = performance.now();
        expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
        const health = performance.now() - at;
        at = performance.now();
        const res = await t.app.inject({ method: 'POST', url: '/v1/feedback', headers: t.auth, payload: { id: `hr-t${n++}`, responseId: `hr-r${n % 300}`, type: 'thumbs_up', userId: `cheap-${n}` } });
        expect(res.statusCode).toBe(202);
        return { health, thumbs: performance.now() - at };
      };
      const sample = async (count: number) => {
        const health: number[] = [];
        const thumbs: number[] = [];
        for (let i = 0; i < count; i++) {
          const s = await cheap();
          health.push(s.health);
          thumbs.push(s.thumbs);
          await new Promise((r) => setTimeout(r, 10));
        }
        return { health: p99(health), thumbs: p99(thumbs) };
      };
      await sample(10); // warm
      const idle = await sample(60);

      let stop = false;
      const statuses = new Map<number, number>();
      let retryAfter: string | undefined;
      const urls = ['/v1/exports/learning-signals?dedup=false', '/v1/exports/trl-dpo', '/v1/users/hr-u1/context', '/v1/exports/openai-chat'];
      const loop = async (i: number) => {
        while (!stop) {
          const res = await t.app.inject({ method: 'GET', url: urls[i % urls.length] as string, headers: t.auth });
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          if (res.statusCode === 429) {
            retryAfter = res.headers['retry-after'] as string;
            expect(res.json().error.code).toBe('FEEDLOOP_ERR_HEAVY_READS_BUSY');
            // A well-behaved client waits as told.
            await new Promise((r) => setTimeout(r, Number(retryAfter) * 1000));
          } else expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
        }
      };
      const loops = Array.from({ length: 16 }, (_, i) => loop(i));
      await new Promise((r) => setTimeout(r, 300));
      const loaded = await sample(60);
      stop = true;
      await Promise.all(loops);
      console.log(
        `${backend.name}: idle p99 healthz ${idle.health.toFixed(1)} ms, thumbs ${idle.thumbs.toFixed(1)} ms; under 16 heavy loops ${loaded.health.toFixed(1)} / ${loaded.thumbs.toFixed(1)} ms; statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
      );
      expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
      expect(statuses.get(429) ?? 0).toBeGreaterThan(0);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(loaded.health).toBeLessThanOrEqual(Math.max(2 * idle.health, idle.health + 50));
      // Tests are no timing targets (the max(2 × idle, idle + 50 ms) is the benchmark's,
      // `npm run bench heavy`): this bound fails only when the thumbs clearly waits for the
      // heavy reads, as a thumbs behind whole 1,000-response export pages or behind a queue of
      // them on PGlite's one connection would.
      expect(loaded.thumbs).toBeLessThan(idle.thumbs + 500);
    });

    it('exports the same rows in the same order whatever the page size (pages sized to a time by default)', async () => {
      const text = async (format: ExportFormat, pageSize?: number): Promise<string> => {
        let out = '';
        const request = { format, filters: {}, options: DEFAULT_EXPORT_OPTIONS, ...(pageSize === undefined ? {} : { pageSize }) };
        for await (const chunk of exportJsonl(t.db, t.workspaceId, request)) out += String(chunk);
        return out;
      };
      for (const format of ['trl-kto', 'trl-dpo', 'openai-chat'] as const) {
        const whole = await text(format, 1_000);
        expect(whole.split('\n').length, format).toBeGreaterThan(10);
        expect(await text(format), format).toBe(whole);
        expect(await text(format, 7), format).toBe(whole);
      }
    });
  });
}
