import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollupDirtyDays } from '../src/pipeline/rollup.js';
import { USER_DATA_TABLES } from '../src/store/user-data-tables.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

/** Every base table of the schema (partitions included: each holds rows of its own). */
async function allTables(t: TestApp): Promise<string[]> {
  const rows = await t.db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  return rows.map((r) => r.table_name);
}

/** The tables (and how many rows of each) whose rows, as text, contain `needle`. */
async function tablesContaining(t: TestApp, needle: string): Promise<Record<string, number>> {
  const found: Record<string, number> = {};
  for (const table of await allTables(t)) {
    const [row] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${table}" x WHERE x::text LIKE $1`, [`%${needle}%`]);
    if (row && row.n > 0) found[table] = row.n;
  }
  return found;
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`privacy API on ${backend.name}`, () => {
    let t: TestApp;
    const req = (method: 'GET' | 'PUT' | 'POST' | 'DELETE' | 'PATCH', url: string, payload?: unknown) =>
      t.app.inject({ method, url, headers: t.auth, ...(payload === undefined ? {} : { payload: payload as object }) });

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), {}, { worker: true });
      const ws = await req('PATCH', '/v1/workspace/settings', { implicitConsent: 'required', kAnonymity: 2 });
      expect(ws.statusCode).toBe(200);
      const res = await req('POST', '/v1/responses/batch', {
        responses: [
          { id: 'c-r1', query: 'q1', answer: 'a1', userId: 'cu1', agent: 'sql' },
          { id: 'c-r2', query: 'q2', answer: 'a2', userId: 'cu2', agent: 'sql' },
        ],
      });
      expect(res.statusCode).toBe(207);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('lists every table of the schema in the user-data registry (a new table must say how erasure treats it)', async () => {
      const parents = await t.db.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
            AND table_name NOT IN (SELECT relname FROM pg_class WHERE relispartition)
         UNION SELECT 'feedback_events'`,
      );
      const missing = parents.map((r) => r.table_name).filter((name) => !(name in USER_DATA_TABLES));
      expect(missing).toEqual([]);
    });

    it('rejects implicit signals without consent under implicitConsent required, and never stores them', async () => {
      const edit = { responseId: 'c-r1', type: 'edit', userId: 'cu1', payload: { edited: 'a1!' } };
      const refused = await req('POST', '/v1/feedback', { ...edit, id: 'c-e1' });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error.code).toBe('FEEDLOOP_ERR_CONSENT_REQUIRED');
      // No user at all: nobody could have agreed.
      const anonymous = await req('POST', '/v1/feedback', { id: 'c-e0', responseId: 'c-r1', type: 'edit', payload: { edited: 'b' } });
      expect(anonymous.statusCode).toBe(403);
      // Explicit feedback needs no opt-in.
      expect((await req('POST', '/v1/feedback', { id: 'c-e2', responseId: 'c-r1', type: 'thumbs_up', userId: 'cu1' })).statusCode).toBe(202);

      const put = await req('PUT', '/v1/users/cu1/consent', { implicit: true, types: { retry: false } });
      expect(put.statusCode).toBe(200);
      expect(put.json()).toMatchObject({ userId: 'cu1', implicit: true, explicit: null, types: { retry: false } });
      expect((await req('GET', '/v1/users/cu1/consent')).json()).toMatchObject({ implicit: true, types: { retry: false } });

      const batch = await req('POST', '/v1/feedback/batch', {
        events: [
          { ...edit, id: 'c-e3' },
          { id: 'c-e4', responseId: 'c-r1', type: 'retry', userId: 'cu1', payload: { rephrasedQuery: 'again' } },
          { id: 'c-e5', responseId: 'c-r2', type: 'edit', userId: 'cu2', payload: { edited: 'x' } },
        ],
      });
      expect(batch.statusCode).toBe(207);
      expect(batch.json().results.map((r: { status: string; error?: { code: string } }) => r.error?.code ?? r.status)).toEqual([
        'accepted',
        'FEEDLOOP_ERR_CONSENT_REQUIRED',
        'FEEDLOOP_ERR_CONSENT_REQUIRED',
      ]);
      // Opting out of everything explicit stops that too, at once.
      await req('PUT', '/v1/users/cu1/consent', { explicit: false });
      expect((await req('POST', '/v1/feedback', { id: 'c-e6', responseId: 'c-r1', type: 'thumbs_down', userId: 'cu1' })).statusCode).toBe(403);

      const stored = await t.db.query<{ id: string }>('SELECT id FROM feedback_events WHERE workspace_id = $1 ORDER BY id', [t.workspaceId]);
      expect(stored.map((r) => r.id)).toEqual(['c-e2', 'c-e3']);

      // Consent changes are audited under a keyed hash, never the id itself.
      const audit = (await req('GET', '/v1/audit?action=consent.changed')).json();
      expect(audit.entries).toHaveLength(2);
      expect(audit.entries[0].subject).toMatch(/^hmac:[0-9a-f]{32}$/);
      expect(JSON.stringify(audit)).not.toContain('cu1');
      expect(audit.entries[0].details.after).toMatchObject({ explicit: false, implicit: true });
      const byUser = (await req('GET', '/v1/audit?userId=cu1')).json();
      expect(byUser.entries).toHaveLength(2);
      expect((await req('GET', '/v1/audit?action=settings.changed')).json().entries).toHaveLength(1);
    });

    it('assumed consent still honours opt-outs', async () => {
      await req('PATCH', '/v1/workspace/settings', { implicitConsent: 'assumed' });
      expect((await req('POST', '/v1/feedback', { id: 'c-e7', responseId: 'c-r2', type: 'edit', userId: 'cu2', payload: { edited: 'y' } })).statusCode).toBe(202);
      await req('PUT', '/v1/users/cu2/consent', { types: { edit: false } });
      const res = await req('POST', '/v1/feedback', { id: 'c-e8', responseId: 'c-r2', type: 'edit', userId: 'cu2', payload: { edited: 'z' } });
      expect(res.statusCode).toBe(403);
      await req('PATCH', '/v1/workspace/settings', { implicitConsent: 'required' });
    });

    it('erases a user everywhere: no table holds the id afterwards, aggregates are recomputed, a repeat is a no-op', async () => {
      const victim = `erase-me-${randomBytes(5).toString('hex')}`;
      const secretQuery = `victim question ${randomBytes(4).toString('hex')}`;
      await req('PATCH', '/v1/workspace/settings', { implicitConsent: 'assumed' });
      await req('PUT', `/v1/users/${victim}/consent`, { implicit: true });
      await req('POST', '/v1/responses/batch', {
        responses: [
          { id: 'v-r1', query: secretQuery, answer: 'SELECT 1', userId: victim, sessionId: 'v-s1', agent: 'sql', experimentId: 'x1', variant: 'A' },
          { id: 'o-r1', query: 'other question', answer: 'SELECT 2', userId: 'other', agent: 'sql', experimentId: 'x1', variant: 'B' },
        ],
      });
      const sent = await req('POST', '/v1/feedback/batch', {
        events: [
          { id: 'v-e1', responseId: 'v-r1', type: 'thumbs_down', userId: victim, payload: { category: 'accuracy', comment: 'wrong' } },
          { id: 'v-e2', responseId: 'v-r1', type: 'correction', userId: victim, payload: { corrected: 'SELECT 11' } },
          { id: 'v-e3', responseId: 'o-r1', type: 'thumbs_up', userId: victim },
          { id: 'v-e4', responseId: 'o-r1', type: 'thumbs_down', userId: victim },
          { id: 'v-e5', responseId: 'o-r1', type: 'edit', userId: victim, payload: { edited: 'SELECT 22' } },
          { id: 'o-e1', responseId: 'o-r1', type: 'thumbs_up', userId: 'other' },
          { id: 'o-e2', responseId: 'v-r1', type: 'thumbs_up', userId: 'other' },
          // No user: its signal takes the response's user, so it is the victim's signal too.
          { id: 'n-e1', responseId: 'v-r1', type: 'comment', payload: { comment: 'anonymous' } },
        ],
      });
      expect(sent.json().results.every((r: { status: string }) => r.status === 'accepted')).toBe(true);
      await t.services.pipeline.idle(10_000);
      await rollupDirtyDays(t.db, { workspaceId: t.workspaceId });
      // A dataset (issue 27) freezes the victim's response and correction: erasure removes them from every version.
      const dataset = (await req('POST', '/v1/datasets', { name: `erasure-${randomBytes(4).toString('hex')}` })).json() as { id: string };
      expect((await req('POST', `/v1/datasets/${dataset.id}/items`, { responseIds: ['v-r1', 'o-r1'] })).statusCode).toBe(207);
      // A review queue (issue 27) holding both responses: the victim's item goes with the response.
      const queue = (await req('POST', '/v1/review-queues', { name: `erasure-${randomBytes(4).toString('hex')}`, kind: 'single' })).json() as { id: string };
      expect((await req('POST', `/v1/review-queues/${queue.id}/items`, { responseIds: ['v-r1', 'o-r1'] })).statusCode).toBe(207);
      const before = await tablesContaining(t, victim);
      expect(before).toHaveProperty('dataset_item_changes');
      expect(Object.keys(before).length).toBeGreaterThan(5);

      const data = (await req('GET', `/v1/users/${victim}/data`)).json();
      expect(data.responses.map((r: { id: string }) => r.id)).toEqual(['v-r1']);
      expect(data.events.map((e: { id: string }) => e.id).sort()).toEqual(['n-e1', 'o-e2', 'v-e1', 'v-e2', 'v-e3', 'v-e4', 'v-e5']);
      expect(data.signals.map((s: { eventId: string }) => s.eventId).sort()).toEqual(['n-e1', 'v-e1', 'v-e2', 'v-e3', 'v-e4', 'v-e5']);
      expect(data.scores.map((s: { responseId: string }) => s.responseId)).toEqual(['v-r1']);
      expect(data.consent).toMatchObject({ implicit: true });

      const erased = await req('DELETE', `/v1/users/${victim}`);
      expect(erased.statusCode).toBe(200);
      expect(erased.json()).toMatchObject({ erased: true, tables: { responses: 1, feedback_events: 7 } });
      // The recomputation runs in the pipeline's jobs, off the request (issue 25): wait for them.
      await t.services.pipeline.idle(10_000);

      expect(await tablesContaining(t, victim)).toEqual({});
      expect(await tablesContaining(t, secretQuery)).toEqual({});
      const items = (await req('GET', `/v1/datasets/${dataset.id}/items?version=1`)).json() as { data: Array<{ responseId: string }> };
      expect(items.data.map((i) => i.responseId)).toEqual(['o-r1']);
      const queued = (await req('GET', `/v1/review-queues/${queue.id}/items`)).json() as { data: Array<{ responseId: string }> };
      expect(queued.data.map((i) => i.responseId)).toEqual(['o-r1']);
      // The other user's response is rescored without the victim's votes, and today's rollup no longer counts them.
      const [score] = await t.db.query<{ signal_count: number }>('SELECT signal_count FROM response_scores WHERE workspace_id = $1 AND response_id = $2', [t.workspaceId, 'o-r1']);
      expect(score?.signal_count).toBe(1);
      const [day] = await t.db.query<{ total_events: number }>(
        "SELECT total_events FROM feedback_metrics_daily WHERE workspace_id = $1 AND day = current_date AND dimension = 'all'",
        [t.workspaceId],
      );
      const [counted] = await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM feedback_signals WHERE workspace_id = $1 AND status = 'counted' AND occurred_at::date = current_date", [t.workspaceId]);
      expect(day?.total_events).toBe(counted?.n);
      const [totals] = await t.db.query<{ rated: number }>("SELECT rated::int FROM experiment_variant_totals WHERE workspace_id = $1 AND experiment_id = 'x1' AND variant = 'A'", [t.workspaceId]);
      expect(totals?.rated ?? 0).toBe(0);

      const again = await req('DELETE', `/v1/users/${victim}`);
      expect(again.json()).toMatchObject({ erased: false, rows: 0 });
      const audit = (await req('GET', `/v1/audit?userId=${victim}&action=user.erased`)).json();
      expect(audit.entries).toHaveLength(2);
      expect(audit.entries[1].details.rows).toBeGreaterThan(10);
      expect((await req('GET', `/v1/users/${victim}/data`)).json()).toMatchObject({ responses: [], events: [], signals: [] });
    });

    it('suppresses aggregate and baseline groups with fewer than k distinct users', async () => {
      await req('PATCH', '/v1/workspace/settings', { kAnonymity: 3, implicitConsent: 'assumed' });
      await req('POST', '/v1/responses/batch', {
        responses: [
          { id: 'k-r1', query: 'k1', answer: 'a', agent: 'big' },
          { id: 'k-r2', query: 'k2', answer: 'a', agent: 'small' },
        ],
      });
      await req('POST', '/v1/feedback/batch', {
        events: [
          ...['k1', 'k2', 'k3', 'k4'].map((u, i) => ({ id: `k-e${i}`, responseId: 'k-r1', type: 'thumbs_up', userId: u })),
          { id: 'k-e9', responseId: 'k-r2', type: 'thumbs_down', userId: 'k1' },
          { id: 'k-e10', responseId: 'k-r2', type: 'thumbs_down', userId: 'k2' },
        ],
      });
      await t.services.pipeline.idle(10_000);
      const agg = (await req('GET', '/v1/aggregates?groupBy=agent')).json();
      expect(agg.k).toBe(3);
      expect(agg.groups.find((g: { group: string }) => g.group === 'big')).toMatchObject({ users: 4, positive: 4 });
      expect(agg.groups.find((g: { group: string }) => g.group === 'small')).toBeUndefined();
      expect(agg.suppressed).toBeGreaterThanOrEqual(1);
      for (const g of agg.groups) expect(g.users).toBeGreaterThanOrEqual(3);
      const base = (await req('GET', '/v1/baselines?groupBy=agent')).json();
      expect(base.groups.find((g: { group: string }) => g.group === 'big')).toMatchObject({ users: 4, workspaces: 1 });
      expect(base.groups.find((g: { group: string }) => g.group === 'small')).toBeUndefined();
    });
  });
}
