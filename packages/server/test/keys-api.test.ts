/**
 * `/v1/keys`: create (the key shown once), list (never the key), revoke (at once in this
 * process), never the last active secret key, bad input named, and every change audited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKeyKeepingAccess } from '../src/store/api-keys.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`keys API on ${backend.name}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(await backend.open());
    });
    afterAll(() => t.close());

    const call = (method: 'GET' | 'POST' | 'DELETE', url: string, auth: { authorization: string }, payload?: object) =>
      t.app.inject({ method, url, headers: auth, ...(payload ? { payload } : {}) });
    const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

    it('creates a key shown once, lists keys without it, and the new key works at once', async () => {
      const { secretKey } = await t.otherWorkspace();
      const created = await call('POST', '/v1/keys', bearer(secretKey), { kind: 'secret', name: '  backend  ' });
      expect(created.statusCode, created.body).toBe(201);
      const body = created.json();
      expect(body).toEqual({
        id: expect.any(String),
        kind: 'secret',
        prefix: body.key.slice(0, 10),
        name: 'backend',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        revokedAt: null,
        current: false,
        key: expect.stringMatching(/^fl_sk_[A-Za-z0-9_-]{43}$/),
      });
      const listed = await call('GET', '/v1/keys', bearer(body.key));
      expect(listed.statusCode).toBe(200);
      expect(listed.body).not.toContain(body.key);
      expect(listed.body).not.toContain(secretKey);
      const keys = listed.json().keys as Array<{ id: string; kind: string; current: boolean }>;
      expect(keys).toHaveLength(2);
      // Newest first, and the caller's own key is marked.
      expect(keys.map((k) => [k.id === body.id, k.current])).toEqual([
        [true, true],
        [false, false],
      ]);
      const pub = (await call('POST', '/v1/keys', bearer(secretKey), { kind: 'public' })).json();
      expect(pub).toMatchObject({ kind: 'public', name: null, key: expect.stringMatching(/^fl_pk_/) });
      // A public key may submit feedback but not manage keys.
      const denied = await call('GET', '/v1/keys', bearer(pub.key));
      expect([denied.statusCode, denied.json().error.code]).toEqual([403, 'FEEDLOOP_ERR_AUTH_FORBIDDEN']);
    });

    it('revokes a key at once, harmlessly twice, and never the last active secret key', async () => {
      const { workspaceId, secretKey } = await t.otherWorkspace();
      const first = (await call('GET', '/v1/keys', bearer(secretKey))).json().keys[0];
      const last = await call('DELETE', `/v1/keys/${first.id}`, bearer(secretKey));
      expect([last.statusCode, last.json().error.code, last.json().error.field]).toEqual([409, 'FEEDLOOP_ERR_KEY_LAST_SECRET', 'id']);

      const second = (await call('POST', '/v1/keys', bearer(secretKey), { kind: 'secret', name: 'rotation' })).json();
      const revoked = await call('DELETE', `/v1/keys/${first.id}`, bearer(second.key));
      expect(revoked.statusCode, revoked.body).toBe(200);
      expect(revoked.json()).toMatchObject({ id: first.id, revokedAt: expect.stringMatching(/^\d{4}-/), current: false });
      // The revoked key is refused by this process at once.
      const refused = await call('GET', '/v1/keys', bearer(secretKey));
      expect([refused.statusCode, refused.json().error.code]).toEqual([401, 'FEEDLOOP_ERR_AUTH_INVALID_KEY']);
      const again = await call('DELETE', `/v1/keys/${first.id}`, bearer(second.key));
      expect([again.statusCode, again.json().revokedAt]).toEqual([200, revoked.json().revokedAt]);
      // Now `second` is the last active secret key: even it cannot revoke itself.
      const self = await call('DELETE', `/v1/keys/${second.id}`, bearer(second.key));
      expect([self.statusCode, self.json().error.code]).toEqual([409, 'FEEDLOOP_ERR_KEY_LAST_SECRET']);
      const audit = await t.db.query<{ action: string; subject: string; actor_key_id: string | null }>(
        "SELECT action, subject, actor_key_id FROM audit_log WHERE workspace_id = $1 AND action LIKE 'key.%' ORDER BY id",
        [workspaceId],
      );
      expect(audit.map((a) => [a.action, a.subject, a.actor_key_id])).toEqual([
        ['key.created', first.id, null],
        ['key.created', second.id, first.id],
        ['key.revoked', first.id, second.id],
        ['key.revoked', first.id, second.id],
      ]);
    });

    it('lets only one of two concurrent revocations of the last two secret keys succeed', async () => {
      // Straight to the store: over HTTP the loser's own key may already be revoked (a 401).
      // Twenty rounds: without the row locks both transactions read two active keys and both revoke.
      for (let round = 0; round < 20; round++) {
        const { workspaceId, secretKey } = await t.otherWorkspace();
        const a = (await call('GET', '/v1/keys', bearer(secretKey))).json().keys[0];
        const b = (await call('POST', '/v1/keys', bearer(secretKey), { kind: 'secret' })).json();
        const results = await Promise.allSettled([revokeApiKeyKeepingAccess(t.db, workspaceId, a.id), revokeApiKeyKeepingAccess(t.db, workspaceId, b.id)]);
        expect(results.map((r) => (r.status === 'fulfilled' ? 'revoked' : (r.reason as { code: string }).code)).sort()).toEqual([
          'FEEDLOOP_ERR_KEY_LAST_SECRET',
          'revoked',
        ]);
        const [{ active }] = (await t.db.query<{ active: number }>(
          'SELECT count(*)::int AS active FROM api_keys WHERE id IN ($1, $2) AND revoked_at IS NULL',
          [a.id, b.id],
        )) as [{ active: number }];
        expect(active).toBe(1);
      }
    });

    it('answers bad input with a coded 400 naming the field, and changes nothing', async () => {
      const { workspaceId, secretKey } = await t.otherWorkspace();
      // What the store cannot hold (a NUL, a lone surrogate) is refused at the edge as UNSTORABLE (issue 22).
      const INVALID = 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD';
      const UNSTORABLE = 'FEEDLOOP_ERR_VALIDATION_UNSTORABLE';
      const cases: Array<[object, string, string]> = [
        [{}, 'kind', INVALID],
        [{ kind: 'admin' }, 'kind', INVALID],
        [{ kind: 'public', name: 'a\u0000b' }, 'name', UNSTORABLE],
        [{ kind: 'public', name: '\ud800' }, 'name', UNSTORABLE],
        [{ kind: 'public', name: 'x'.repeat(101) }, 'name', INVALID],
        [{ kind: 'public', name: '   ' }, 'name', INVALID],
        [{ kind: 'public', extra: 1 }, 'extra', INVALID],
      ];
      for (const [payload, field, code] of cases) {
        const res = await call('POST', '/v1/keys', bearer(secretKey), payload);
        expect([res.statusCode, res.json().error.code, res.json().error.field], JSON.stringify(payload)).toEqual([400, code, field]);
      }
      for (const [id, status, code] of [
        ['%00', 400, 'FEEDLOOP_ERR_VALIDATION_UNSTORABLE'],
        ['no-such-key', 404, 'FEEDLOOP_ERR_KEY_NOT_FOUND'],
      ] as const) {
        const res = await call('DELETE', `/v1/keys/${id}`, bearer(secretKey));
        expect([res.statusCode, res.json().error.code, res.json().error.field]).toEqual([status, code, 'id']);
      }
      const [{ n }] = (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys WHERE workspace_id = $1', [workspaceId])) as [{ n: number }];
      expect(n).toBe(1);
    });
  });
}
