/**
 * `POST /v1/admin/keys`: only on a server given a local admin credential, only with that token
 * (a workspace's own secret key is refused), a key of an existing workspace by id or name, a
 * missing workspace made only when asked (with its settings), bad input named and nothing made.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newLocalAdminToken } from '../src/db/local-admin-credential.js';
import { listWorkspaces } from '../src/store/workspaces.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`admin API on ${backend.name}`, () => {
    const token = newLocalAdminToken();
    let t: TestApp;
    let plain: TestApp;
    beforeAll(async () => {
      t = await startTestApp(await backend.open(), {}, { adminToken: token });
      plain = await startTestApp(await backend.open());
    });
    afterAll(async () => {
      await t.close();
      await plain.close();
    });

    const post = (app: TestApp, authorization: string | undefined, payload: object) =>
      app.app.inject({ method: 'POST', url: '/v1/admin/keys', headers: authorization ? { authorization } : {}, payload });

    it('answers only its own token, and exists only on a server given one', async () => {
      const body = { workspace: t.workspaceId };
      expect((await post(plain, `Bearer ${token}`, body)).statusCode).toBe(404);
      expect((await post(plain, t.auth.authorization, body)).statusCode).toBe(404);
      expect((await post(t, undefined, body)).json().error.code).toBe('FEEDLOOP_ERR_AUTH_MISSING_KEY');
      for (const wrong of [t.auth.authorization, `Bearer ${newLocalAdminToken()}`, `Bearer ${token.slice(0, -1)}`]) {
        const res = await post(t, wrong, body);
        expect(res.statusCode).toBe(401);
        expect(res.json().error.code).toBe('FEEDLOOP_ERR_AUTH_INVALID_KEY');
      }
    });

    it('makes a key of an existing workspace, by id or name, that works at once', async () => {
      const [ws] = (await listWorkspaces(t.db)).filter((w) => w.id === t.workspaceId);
      for (const label of [t.workspaceId, ws?.name ?? '']) {
        const res = await post(t, `Bearer ${token}`, { workspace: label, name: 'laptop' });
        expect(res.statusCode, res.body).toBe(201);
        const made = res.json() as { workspace: { id: string; created: boolean }; kind: string; prefix: string; key: string };
        expect(made).toMatchObject({ workspace: { id: t.workspaceId, created: false }, kind: 'secret', prefix: made.key.slice(0, 10) });
        const me = await t.app.inject({ method: 'GET', url: '/v1/workspace', headers: { authorization: `Bearer ${made.key}` } });
        expect(me.json().id).toBe(t.workspaceId);
      }
    });

    it('makes a missing workspace only when asked, with the settings given', async () => {
      const name = `admin-${Date.now()}`;
      const missing = await post(t, `Bearer ${token}`, { workspace: name });
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_WORKSPACE_NOT_FOUND', field: 'workspace' });
      expect((await listWorkspaces(t.db)).some((w) => w.name === name)).toBe(false);

      const made = await post(t, `Bearer ${token}`, { workspace: name, create: true, settings: { implicitConsent: 'assumed' } });
      expect(made.statusCode, made.body).toBe(201);
      expect(made.json().workspace).toMatchObject({ name, tenantId: 'default', created: true });
      const me = await t.app.inject({ method: 'GET', url: '/v1/workspace', headers: { authorization: `Bearer ${made.json().key}` } });
      expect(me.json()).toMatchObject({ name, settings: { implicitConsent: 'assumed' } });
      const again = await post(t, `Bearer ${token}`, { workspace: name, create: true, kind: 'public' });
      expect(again.json()).toMatchObject({ workspace: { id: made.json().workspace.id, created: false }, kind: 'public' });
    });

    it('makes a reviewer key, named, that reviews and is refused elsewhere; refuses one without a valid name', async () => {
      const keysBefore = (await t.db.query('SELECT 1 FROM api_keys WHERE workspace_id = $1', [t.workspaceId])).length;
      for (const payload of [{ kind: 'reviewer' }, { kind: 'reviewer', name: 'Ann Smith' }]) {
        const bad = await post(t, `Bearer ${token}`, { workspace: t.workspaceId, ...payload });
        expect(bad.statusCode, JSON.stringify(payload)).toBe(400);
        expect(bad.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field: 'name' });
      }
      expect((await t.db.query('SELECT 1 FROM api_keys WHERE workspace_id = $1', [t.workspaceId])).length).toBe(keysBefore);
      const res = await post(t, `Bearer ${token}`, { workspace: t.workspaceId, kind: 'reviewer', name: 'admin-rev' });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ kind: 'reviewer' });
      expect(res.json().key).toMatch(/^fl_rk_/);
      const headers = { authorization: `Bearer ${res.json().key}` };
      expect((await t.app.inject({ method: 'GET', url: '/v1/review-queues', headers })).statusCode).toBe(200);
      expect((await t.app.inject({ method: 'GET', url: '/v1/responses', headers })).statusCode).toBe(403);
      const [row] = await t.db.query<{ name: string }>('SELECT name FROM api_keys WHERE id = $1', [res.json().id]);
      expect(row?.name).toBe('admin-rev');
    });

    it('refuses bad input naming the field, making nothing', async () => {
      const before = (await listWorkspaces(t.db)).length;
      for (const [payload, field] of [
        [{ workspace: '' }, 'workspace'],
        [{ workspace: 'a\u0000b', create: true }, 'workspace'],
        [{ workspace: 'x', kind: 'admin' }, 'kind'],
        [{ workspace: 'x', create: true, settings: { implicitConsent: 'sometimes' } }, 'settings.implicitConsent'],
        [{ workspace: 'x', extra: 1 }, 'extra'],
      ] as const) {
        const res = await post(t, `Bearer ${token}`, payload);
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json().error.field, JSON.stringify(payload)).toBe(field);
      }
      expect((await listWorkspaces(t.db)).length).toBe(before);
    });
  });
}
