/**
 * Issue 26 §1: score configs through the HTTP API, on both stores: the seeded configs, create,
 * list, read, change, archive, and every refusal (field named, nothing stored).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`score configs API on ${backend.name}`, () => {
    let t: TestApp;
    const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown, headers: Record<string, string> = t.auth) =>
      t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    const count = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM score_configs WHERE workspace_id = $1', [t.workspaceId]))[0]?.n;

    beforeAll(async () => {
      t = await startTestApp(await backend.open());
    });
    afterAll(async () => {
      await t.close();
    });

    it('seeds every new workspace with the five default configs', async () => {
      const res = await call('GET', '/v1/score-configs');
      expect(res.statusCode).toBe(200);
      const configs = res.json().configs as Array<Record<string, unknown>>;
      expect(configs.map((c) => [c.name, c.dataType, c.mapsTo, c.min, c.max, c.weight, c.archived])).toEqual([
        ['rating', 'numeric', 'rating', 1, 5, 0, false],
        ['thumbs', 'boolean', 'thumbs', undefined, undefined, 0, false],
        ['user-feedback', 'boolean', 'thumbs', undefined, undefined, 0, false],
        ['user_feedback', 'boolean', 'thumbs', undefined, undefined, 0, false],
        ['user_score', 'boolean', 'thumbs', undefined, undefined, 0, false],
      ]);
      for (const c of configs) expect(c.id).toMatch(/^sc_[0-9a-f]{32}$/);
      const other = await t.otherWorkspace();
      const theirs = await call('GET', '/v1/score-configs', undefined, { authorization: `Bearer ${other.secretKey}` });
      expect(theirs.json().configs).toHaveLength(5);
      expect(theirs.json().configs.map((c: { id: string }) => c.id)).not.toContain(configs[0]?.id);
    });

    it('creates, reads and changes a config; names are unique per workspace', async () => {
      const created = await call('POST', '/v1/score-configs', { name: 'helpfulness', dataType: 'numeric', min: 0, max: 1, description: 'How helpful', weight: 2 });
      expect(created.statusCode).toBe(201);
      const c = created.json();
      expect(c).toMatchObject({ name: 'helpfulness', dataType: 'numeric', min: 0, max: 1, mapsTo: 'none', weight: 2, archived: false });
      expect((await call('GET', `/v1/score-configs/${c.id}`)).json()).toEqual(c);
      const dup = await call('POST', '/v1/score-configs', { name: 'helpfulness', dataType: 'boolean' });
      expect(dup.statusCode).toBe(409);
      expect(dup.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_SCORE_CONFIG_CONFLICT', field: 'name' });
      const changed = await call('PATCH', `/v1/score-configs/${c.id}`, { max: 10, description: 'Helpful, 0-10' });
      expect(changed.statusCode).toBe(200);
      expect(changed.json()).toMatchObject({ id: c.id, min: 0, max: 10, description: 'Helpful, 0-10' });
      const renamed = await call('PATCH', `/v1/score-configs/${c.id}`, { name: 'rating' });
      expect(renamed.statusCode).toBe(409);
      // A seeded config is editable.
      const thumbs = (await call('GET', '/v1/score-configs')).json().configs.find((x: { name: string }) => x.name === 'thumbs');
      expect((await call('PATCH', `/v1/score-configs/${thumbs.id}`, { weight: 1 })).json().weight).toBe(1);
      // Another workspace cannot see or change it.
      const other = await t.otherWorkspace();
      const foreign = await call('GET', `/v1/score-configs/${c.id}`, undefined, { authorization: `Bearer ${other.secretKey}` });
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json().error.code).toBe('FEEDLOOP_ERR_SCORE_CONFIG_NOT_FOUND');
    });

    it('archives a config (kept, listed with ?archived=true) and restores it', async () => {
      const c = (await call('POST', '/v1/score-configs', { name: 'tone', dataType: 'categorical', categories: [{ value: 0, label: 'rude' }, { value: 1, label: 'polite' }] })).json();
      const archived = await call('PATCH', `/v1/score-configs/${c.id}`, { archived: true });
      expect(archived.json().archived).toBe(true);
      expect((await call('GET', '/v1/score-configs')).json().configs.map((x: { name: string }) => x.name)).not.toContain('tone');
      expect((await call('GET', '/v1/score-configs?archived=true')).json().configs.map((x: { name: string }) => x.name)).toContain('tone');
      expect((await call('GET', `/v1/score-configs/${c.id}`)).json().archived).toBe(true);
      expect((await call('PATCH', `/v1/score-configs/${c.id}`, { archived: false })).json().archived).toBe(false);
    });

    it('refuses bad configs naming the field, storing nothing', async () => {
      const cases: Array<[unknown, string]> = [
        [{ dataType: 'numeric' }, 'name'],
        [{ name: '', dataType: 'numeric' }, 'name'],
        [{ name: 'x1', dataType: 'text' }, 'dataType'],
        [{ name: 'x2', dataType: 'boolean', min: 0 }, 'min'],
        [{ name: 'x3', dataType: 'numeric', min: 5, max: 1 }, 'min'],
        [{ name: 'x4', dataType: 'categorical' }, 'categories'],
        [{ name: 'x5', dataType: 'numeric', categories: [{ value: 1, label: 'a' }] }, 'categories'],
        [{ name: 'x6', dataType: 'categorical', categories: [{ value: 1, label: 'a' }, { value: 1, label: 'b' }] }, 'categories'],
        [{ name: 'x7', dataType: 'numeric', mapsTo: 'thumbs' }, 'mapsTo'],
        [{ name: 'x8', dataType: 'boolean', mapsTo: 'rating' }, 'mapsTo'],
        [{ name: 'x9', dataType: 'numeric', min: 0, max: 10, mapsTo: 'rating' }, 'mapsTo'],
        [{ name: 'x10', dataType: 'numeric', weight: -1 }, 'weight'],
        [{ name: 'x11', dataType: 'numeric', mapsTo: 'stars' }, 'mapsTo'],
        [{ name: 'x12', dataType: 'numeric', id: 'mine' }, 'id'],
      ];
      const before = await count();
      for (const [body, field] of cases) {
        const res = await call('POST', '/v1/score-configs', body);
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(res.json().error, JSON.stringify(body)).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field });
      }
      expect(await count()).toBe(before);
      const rating = (await call('GET', '/v1/score-configs')).json().configs.find((x: { name: string }) => x.name === 'rating');
      const bad = await call('PATCH', `/v1/score-configs/${rating.id}`, { max: 7 });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field: 'mapsTo' });
      expect((await call('GET', `/v1/score-configs/${rating.id}`)).json().max).toBe(5);
      const missing = await call('PATCH', '/v1/score-configs/sc_nope', { weight: 1 });
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error.code).toBe('FEEDLOOP_ERR_SCORE_CONFIG_NOT_FOUND');
    });

    it('is for secret keys only', async () => {
      const res = await call('GET', '/v1/score-configs', undefined, { authorization: `Bearer ${t.publicKey}` });
      expect(res.statusCode).toBe(403);
    });
  });
}
