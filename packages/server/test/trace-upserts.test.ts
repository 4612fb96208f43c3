import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TraceUpdate } from '@feedloop/core';
import { authContextOfKey, type AuthContext } from '../src/store/auth-context.js';
import { missingResponseIds } from '../src/store/trace-upserts.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

interface Row {
  query: string;
  answer: string;
  model: string | null;
  user_id: string | null;
  session_id: string | null;
  experiment_id: string | null;
  variant: string | null;
  metadata: Record<string, unknown>;
  bare: boolean;
  created_at: Date;
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`trace upserts (IngestService.upsertTraces) on ${backend.name}`, () => {
    let t: TestApp;
    let auth: AuthContext;
    const upsert = (updates: TraceUpdate[]) => t.services.ingest.upsertTraces(auth, updates);
    const row = async (id: string) =>
      (
        await t.db.query<Row>(
          'SELECT query, answer, model, user_id, session_id, experiment_id, variant, metadata, bare, created_at FROM responses WHERE workspace_id = $1 AND id = $2',
          [t.workspaceId, id],
        )
      )[0];

    beforeAll(async () => {
      t = await startTestApp(await backend.open());
      const a = await authContextOfKey(t.db, t.secretKey);
      if (!a) throw new Error('no auth context');
      auth = a;
    });
    afterAll(async () => {
      await t.close();
    });

    it('creates a bare response, then completes it field by field, last write winning', async () => {
      expect(await upsert([{ id: 'tr-1' }])).toEqual([{ id: 'tr-1', status: 'created' }]);
      expect(await row('tr-1')).toMatchObject({ query: '', answer: '', bare: true, model: null });
      const created = (await row('tr-1'))?.created_at;

      const outcomes = await upsert([
        { id: 'tr-1', query: 'What is 2+2?', userId: 'u-1', metadata: { a: 1 }, tags: ['x'], release: 'r1', createdAt: '2020-01-01T00:00:00Z' },
        { id: 'tr-1', model: 'gpt-4o', metadata: { b: 2 } },
        { id: 'tr-1', answer: '4', model: 'gpt-4o-mini', environment: 'prod' },
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['updated', 'updated', 'updated']);
      const r = await row('tr-1');
      expect(r).toMatchObject({ query: 'What is 2+2?', answer: '4', model: 'gpt-4o-mini', user_id: 'u-1', bare: false });
      expect(r?.metadata).toEqual({ a: 1, b: 2, tags: ['x'], release: 'r1', environment: 'prod' });
      // The creation time never moves (the rollups and the list are keyed by it).
      expect(r?.created_at.toISOString()).toBe(created?.toISOString());

      // Absent and empty fields leave the stored ones; a given one replaces.
      await upsert([{ id: 'tr-1', query: '', sessionId: 's-1', metadata: { a: 3 } }]);
      expect(await row('tr-1')).toMatchObject({ query: 'What is 2+2?', answer: '4', session_id: 's-1', metadata: { a: 3, b: 2, tags: ['x'], release: 'r1', environment: 'prod' } });
    });

    it('keeps feedback given to a bare response attached when its trace completes it', async () => {
      await upsert([{ id: 'tr-early' }]);
      const fb = await t.app.inject({ method: 'POST', url: '/v1/feedback', headers: t.auth, payload: { id: 'fb-early', type: 'thumbs_up', responseId: 'tr-early', payload: {} } });
      expect(fb.statusCode).toBe(202);
      await upsert([{ id: 'tr-early', query: 'late question', answer: 'late answer' }]);
      const events = await t.db.query<{ id: string }>('SELECT id FROM feedback_events WHERE workspace_id = $1 AND response_id = $2', [t.workspaceId, 'tr-early']);
      expect(events.map((e) => e.id)).toEqual(['fb-early']);
      expect(await row('tr-early')).toMatchObject({ query: 'late question', answer: 'late answer', bare: false });
    });

    it('leaves a bare response out of the response list until completed', async () => {
      await upsert([{ id: 'tr-hidden' }]);
      const ids = async () => ((await t.app.inject({ method: 'GET', url: '/v1/responses?limit=100', headers: t.auth })).json() as { data: Array<{ id: string }> }).data.map((r) => r.id);
      expect(await ids()).not.toContain('tr-hidden');
      await upsert([{ id: 'tr-hidden', answer: 'now an answer' }]);
      expect(await ids()).toContain('tr-hidden');
    });

    it('rejects a bad piece alone, naming its field, and writes the others', async () => {
      const outcomes = await upsert([
        { id: 'tr-ok-1', query: 'q' },
        { id: 'bad id with spaces', query: 'q' },
        { id: 'tr-nul', query: 'a\u0000b' },
        { id: 'tr-ok-2', answer: 'a' },
      ]);
      expect(outcomes[0]).toEqual({ id: 'tr-ok-1', status: 'created' });
      expect(outcomes[1]).toMatchObject({ status: 'rejected', error: { code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field: 'id' } });
      expect(outcomes[2]).toMatchObject({ id: 'tr-nul', status: 'rejected', error: { code: 'FEEDLOOP_ERR_VALIDATION_UNSTORABLE', field: 'query' } });
      expect(outcomes[3]).toEqual({ id: 'tr-ok-2', status: 'created' });
      expect(await row('tr-nul')).toBeUndefined();
    });

    it('marks the rescore and rollup when an update moves a response to another variant', async () => {
      await upsert([{ id: 'tr-exp', query: 'q', answer: 'a', experimentId: 'exp-1' }]);
      await t.db.query('DELETE FROM score_dirty WHERE workspace_id = $1', [t.workspaceId]);
      await upsert([{ id: 'tr-exp', variant: 'B' }]);
      const dirty = await t.db.query('SELECT 1 FROM score_dirty WHERE workspace_id = $1 AND response_id = $2', [t.workspaceId, 'tr-exp']);
      expect(dirty).toHaveLength(1);
      expect(await row('tr-exp')).toMatchObject({ experiment_id: 'exp-1', variant: 'B' });
    });

    it("lets fill-only pieces (a generation) fill blanks only, whatever the order of arrival", async () => {
      // The generation first: it fills the blank response; the trace's own fields then replace them.
      await upsert([{ id: 'tr-gen', query: 'gen input', answer: 'gen output', model: 'm-1', metadata: { k: 'gen' }, fillOnly: true }]);
      expect(await row('tr-gen')).toMatchObject({ query: 'gen input', answer: 'gen output', model: 'm-1', bare: false });
      await upsert([{ id: 'tr-gen', query: 'trace input', metadata: { k: 'trace' } }]);
      // A later generation changes nothing the response has.
      await upsert([{ id: 'tr-gen', query: 'other', answer: 'other', model: 'm-2', metadata: { k: 'gen2', extra: 1 }, fillOnly: true }]);
      expect(await row('tr-gen')).toMatchObject({ query: 'trace input', answer: 'gen output', model: 'm-1', metadata: { k: 'trace', extra: 1 } });
      // In one batch, normal pieces win over fill-only ones in any order.
      const outcomes = await upsert([
        { id: 'tr-mix', answer: 'weak', model: 'm-w', fillOnly: true },
        { id: 'tr-mix', query: 'q', answer: 'strong' },
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['created', 'updated']);
      expect(await row('tr-mix')).toMatchObject({ query: 'q', answer: 'strong', model: 'm-w' });
    });

    it('tells which trace ids name no response yet', async () => {
      await upsert([{ id: 'tr-known' }]);
      expect(await missingResponseIds(t.db, t.workspaceId, ['tr-known', 'tr-unknown', 'tr-unknown'])).toEqual(new Set(['tr-unknown']));
      expect(await missingResponseIds(t.db, t.workspaceId, [])).toEqual(new Set());
    });

    it('applies the workspace privacy settings to the texts a piece gives', async () => {
      const hashed = { ...auth, settings: { ...auth.settings, queryPrivacy: 'sha256' as const } };
      await t.services.ingest.upsertTraces(hashed, [{ id: 'tr-priv', query: 'secret question' }]);
      expect((await row('tr-priv'))?.query).toMatch(/^sha256:[0-9a-f]{64}$/);
      await t.services.ingest.upsertTraces(hashed, [{ id: 'tr-priv', answer: 'shown' }]);
      expect(await row('tr-priv')).toMatchObject({ answer: 'shown', query: expect.stringMatching(/^sha256:/) as unknown });
    });
  });
}
