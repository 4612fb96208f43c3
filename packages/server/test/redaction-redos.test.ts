/**
 * Issue 22, ReDoS through `redactionPatterns`: an operator pattern runs on RE2 (linear time), so
 * `(a+)+$` over a crafted comment costs milliseconds, and another workspace's request does not
 * wait behind it; a pattern RE2 cannot run (backreference, lookaround) is refused when saved. On
 * both stores.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`redaction patterns on ${backend.name}`, () => {
    let t: TestApp;
    const req = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object, headers: Record<string, string> = t.auth) =>
      t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

    beforeAll(async () => {
      t = await startTestApp(await backend.open());
    });
    afterAll(async () => {
      await t?.close();
    });

    it('(a+)+$ over a crafted comment is answered fast, and another workspace is not held up', async () => {
      const set = await req('PATCH', '/v1/workspace/settings', { redactPii: true, redactionPatterns: [{ name: 'evil', pattern: '(a+)+$' }, { name: 'account', pattern: 'ACC-\\d{6}' }] });
      expect(set.statusCode, set.body).toBe(200);
      expect((await req('POST', '/v1/responses', { id: 'rd-r', query: 'q', answer: 'a' })).statusCode).toBe(201);
      const other = await t.otherWorkspace();
      const otherAuth = { authorization: `Bearer ${other.secretKey}` };
      await req('GET', '/v1/workspace', undefined, otherAuth); // warm
      for (const n of [28, 40, 5_000]) {
        const comment = `${'a'.repeat(n)}!`;
        const started = performance.now();
        const [posted, read] = await Promise.all([
          req('POST', '/v1/feedback', { id: `rd-e${n}`, responseId: 'rd-r', type: 'thumbs_down', payload: { comment } }),
          (async () => {
            const at = performance.now();
            const res = await req('GET', '/v1/workspace', undefined, otherAuth);
            return { res, ms: performance.now() - at };
          })(),
        ]);
        const ms = performance.now() - started;
        expect(posted.statusCode, posted.body).toBe(202);
        expect(read.res.statusCode).toBe(200);
        // A backtracking engine takes 2^n steps (n 40: hours); the bound only has to keep a loaded
        // CI machine's slowest request (a PGlite batch took 630 ms with four suites running).
        expect(ms, `comment of ${n}`).toBeLessThan(2_000);
        expect(read.ms, `other workspace's GET while a comment of ${n} was screened`).toBeLessThan(2_000);
      }
      // The patterns still redact.
      expect((await req('POST', '/v1/feedback', { id: 'rd-acc', responseId: 'rd-r', type: 'thumbs_down', payload: { comment: 'see ACC-123456 and aaa' } })).statusCode).toBe(202);
      const [row] = await t.db.query<{ payload: { comment: string } }>('SELECT payload FROM feedback_events WHERE workspace_id = $1 AND id = $2', [t.workspaceId, 'rd-acc']);
      expect(row?.payload.comment).toBe('see [REDACTED:account] and [REDACTED:evil]');
    });

    it('a pattern the linear-time engine cannot run is refused and changes nothing', async () => {
      for (const pattern of ['(a)\\1', '(?<=x)y', '(?=a)a']) {
        const res = await req('PATCH', '/v1/workspace/settings', { redactionPatterns: [{ name: 'bad', pattern }] });
        expect(res.statusCode, pattern).toBe(400);
        expect(res.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field: 'redactionPatterns.0.pattern' });
      }
      const ws = (await req('GET', '/v1/workspace')).json() as { settings: { redactionPatterns: { name: string }[] } };
      expect(ws.settings.redactionPatterns.map((p) => p.name)).toEqual(['evil', 'account']);
    });
  });
}
