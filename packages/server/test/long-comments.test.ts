/**
 * Issue 22, long comments: a 10,000-character comment used to cost ~1 s of the database on PGlite
 * (0.45 s on Postgres) in the index of comment pieces (migration 0020's substr walk, n²/2 steps;
 * migration 0024 makes it linear), so a public-key batch of six took 13.9 s and another
 * workspace's read waited 14.4 s. Target on both stores: that batch answered within 3 s, another
 * workspace's reads never waiting more than 500 ms meanwhile (alone on this machine: PGlite
 * 165-235 ms and a read waiting 142-187 ms, Postgres 100 ms and 11-18 ms). The test is a guard against that
 * collapse, with bounds a loaded CI machine keeps (four suites at once took the PGlite batch to
 * 630 ms and a read to 579 ms): the batch within 5 s, a read within 2 s; it prints its figures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

/** A 10,000-character comment of varied words (UTF-8 with some multi-byte characters). */
function longComment(seed: number): string {
  const words = ['refund', 'policy', 'wrong', 'answer', 'café', 'naïve', 'dates', 'missing', 'context', 'über', 'totally', 'unhelpful'];
  let text = '';
  for (let i = 0; text.length < 10_000; i++) text += `${words[(i * 7 + seed) % words.length]}${i % 13 === 0 ? '. ' : ' '}`;
  return text.slice(0, 10_000);
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`long comments on ${backend.name}`, () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await startTestApp(await backend.open());
    });
    afterAll(async () => {
      await t?.close();
    });

    it('a public-key batch of six 10,000-character comments is answered within 5 s; other reads wait < 2 s (the collapse took 13.9 s and 14.4 s)', async () => {
      expect((await t.app.inject({ method: 'POST', url: '/v1/responses', headers: t.auth, payload: { id: 'lc-r', query: 'q', answer: 'a' } })).statusCode).toBe(201);
      const other = await t.otherWorkspace();
      const otherAuth = { authorization: `Bearer ${other.secretKey}` };
      expect((await t.app.inject({ method: 'POST', url: '/v1/responses', headers: otherAuth, payload: { id: 'lc-o', query: 'q', answer: 'a' } })).statusCode).toBe(201);
      const read = () => t.app.inject({ method: 'GET', url: '/v1/responses/lc-o', headers: otherAuth });
      await read(); // warm
      // A fresh database's first long comment also pays for loading the index pages: warmed once.
      const warm = await t.app.inject({ method: 'POST', url: '/v1/feedback', headers: t.auth, payload: { id: 'lc-warm', responseId: 'lc-r', type: 'thumbs_down', payload: { comment: longComment(99) } } });
      expect(warm.statusCode).toBe(202);
      // Round 2 with redaction on (built-in detectors and an operator pattern over every comment).
      for (const round of [1, 2]) {
        if (round === 2) {
          const set = await t.app.inject({ method: 'PATCH', url: '/v1/workspace/settings', headers: t.auth, payload: { redactPii: true, redactionPatterns: [{ name: 'evil', pattern: '(a+)+$' }] } });
          expect(set.statusCode).toBe(200);
        }
        const events = Array.from({ length: 6 }, (_, i) => ({ id: `lc-${round}-${i}`, responseId: 'lc-r', type: 'thumbs_down', userId: `lc-u${round}-${i}`, payload: { comment: longComment(i + round) } }));
        const payload = JSON.stringify({ events });
        expect(Buffer.byteLength(payload)).toBeLessThan(64 * 1024);
        const waits: number[] = [];
        let done = false;
        const reader = (async () => {
          while (!done) {
            const at = performance.now();
            expect((await read()).statusCode).toBe(200);
            waits.push(performance.now() - at);
            await new Promise((r) => setTimeout(r, 20));
          }
        })();
        const started = performance.now();
        const res = await t.app.inject({
          method: 'POST',
          url: '/v1/feedback/batch',
          headers: { authorization: `Bearer ${t.publicKey}`, 'content-type': 'application/json' },
          payload,
          remoteAddress: `198.51.100.${round}`,
        });
        const ms = performance.now() - started;
        done = true;
        await reader;
        expect(res.statusCode, res.body.slice(0, 300)).toBe(207);
        expect(res.json().results.map((r: { status: string }) => r.status)).toEqual(Array(6).fill('accepted'));
        console.log(`${backend.name} round ${round}: batch of six 10k comments ${ms.toFixed(0)} ms; other reads max ${Math.max(...waits).toFixed(0)} ms over ${waits.length}`);
        expect(ms).toBeLessThan(5_000);
        expect(Math.max(...waits)).toBeLessThan(2_000);
      }
      // The pieces index still finds them.
      const found = await t.app.inject({ method: 'GET', url: '/v1/responses?comment=unhelpful', headers: t.auth });
      expect(found.statusCode, found.body).toBe(200);
      expect(found.body).toContain('lc-r');
    });
  });
}
