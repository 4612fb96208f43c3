import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`feedback API on ${backend.name}`, () => {
    let t: TestApp;
    const post = (url: string, payload: unknown, headers: Record<string, string> = t.auth) =>
      t.app.inject({ method: 'POST', url, headers, payload: payload as object });
    const registerResponse = async (id: string, extra: Record<string, unknown> = {}) => {
      const res = await post('/v1/responses', { id, query: `question ${id}`, answer: 'SELECT * FROM sales', ...extra });
      expect(res.statusCode).toBe(201);
    };

    beforeAll(async () => {
      t = await startTestApp(await backend.open());
    });
    afterAll(async () => {
      await t.close();
    });

    it('accepts a thumbs up and answers duplicate for the same event id', async () => {
      await registerResponse('r-dup');
      const event = { id: 'fb-dup-1', responseId: 'r-dup', type: 'thumbs_up', userId: 'u1' };
      const first = await post('/v1/feedback', event);
      expect(first.statusCode).toBe(202);
      expect(first.json()).toEqual({ id: 'fb-dup-1', status: 'accepted' });
      const again = await post('/v1/feedback', event);
      expect(again.statusCode).toBe(202);
      expect(again.json()).toEqual({ id: 'fb-dup-1', status: 'duplicate' });
      const rows = await t.db.query('SELECT id FROM feedback_events WHERE workspace_id = $1 AND id = $2', [t.workspaceId, 'fb-dup-1']);
      expect(rows).toHaveLength(1);
    });

    it('stores concurrent retries of one event id once', async () => {
      await registerResponse('r-conc');
      const event = { id: 'fb-conc', responseId: 'r-conc', type: 'rating', userId: 'u9', payload: { rating: 4 } };
      const results = await Promise.all(Array.from({ length: 20 }, () => post('/v1/feedback', event)));
      const statuses = results.map((r) => r.json().status).sort();
      expect(statuses.filter((s) => s === 'accepted')).toHaveLength(1);
      expect(statuses.filter((s) => s === 'duplicate')).toHaveLength(19);
      const rows = await t.db.query('SELECT id FROM feedback_events WHERE workspace_id = $1 AND id = $2', [t.workspaceId, 'fb-conc']);
      expect(rows).toHaveLength(1);
    });

    it('treats the same user, response, type and payload inside the dedup window as a duplicate', async () => {
      await registerResponse('r-window');
      const base = { responseId: 'r-window', type: 'thumbs_down', userId: 'u2', payload: { comment: 'wrong table' } };
      const a = await post('/v1/feedback', { ...base, id: 'w-1' });
      const b = await post('/v1/feedback', { ...base, id: 'w-2' });
      const c = await post('/v1/feedback', { ...base, id: 'w-3', payload: { comment: 'other words' } });
      expect([a.json().status, b.json().status, c.json().status]).toEqual(['accepted', 'duplicate', 'accepted']);
      const listed = await t.app.inject({ method: 'GET', url: '/v1/feedback?responseId=r-window', headers: t.auth });
      expect(listed.json().data.map((e: { id: string }) => e.id).sort()).toEqual(['w-1', 'w-3']);
      // A retry of the duplicate's own id is still a duplicate, not a new event.
      const retry = await post('/v1/feedback', { ...base, id: 'w-2' });
      expect(retry.json().status).toBe('duplicate');
    });

    it('outside the dedup window the same content is a new event', async () => {
      await registerResponse('r-window2');
      const base = { responseId: 'r-window2', type: 'thumbs_up', userId: 'u3' };
      const now = Date.now();
      const a = await post('/v1/feedback', { ...base, id: 'x-1', occurredAt: new Date(now - 60_000).toISOString() });
      const b = await post('/v1/feedback', { ...base, id: 'x-2', occurredAt: new Date(now).toISOString() });
      expect([a.json().status, b.json().status]).toEqual(['accepted', 'accepted']);
    });

    it('keeps only the newest vote of a user who changes it', async () => {
      await registerResponse('r-vote');
      const now = Date.now();
      const up = { id: 'v-up', responseId: 'r-vote', type: 'thumbs_up', userId: 'u4', occurredAt: new Date(now - 60_000).toISOString() };
      const down = { id: 'v-down', responseId: 'r-vote', type: 'thumbs_down', userId: 'u4', occurredAt: new Date(now - 20_000).toISOString() };
      expect((await post('/v1/feedback', up)).json().status).toBe('accepted');
      expect((await post('/v1/feedback', down)).json().status).toBe('accepted');
      const current = await t.db.query<{ id: string }>(
        `SELECT id FROM feedback_events WHERE workspace_id = $1 AND response_id = 'r-vote' AND superseded_by IS NULL`,
        [t.workspaceId],
      );
      expect(current.map((r) => r.id)).toEqual(['v-down']);
      // A late-arriving older vote does not replace the newer one.
      const late = { id: 'v-late', responseId: 'r-vote', type: 'thumbs_up', userId: 'u4', occurredAt: new Date(now - 40_000).toISOString() };
      expect((await post('/v1/feedback', late)).json().status).toBe('accepted');
      const after = await t.db.query<{ id: string; superseded_by: string | null }>(
        `SELECT id, superseded_by FROM feedback_events WHERE workspace_id = $1 AND response_id = 'r-vote' ORDER BY id`,
        [t.workspaceId],
      );
      expect(after).toEqual([
        { id: 'v-down', superseded_by: null },
        { id: 'v-late', superseded_by: 'v-down' },
        { id: 'v-up', superseded_by: 'v-down' },
      ]);
    });

    it('a batch carrying one voter\'s two votes keeps the newer', async () => {
      await registerResponse('r-vote-batch');
      const now = Date.now();
      const res = await post('/v1/feedback/batch', {
        events: [
          { id: 'vb-2', responseId: 'r-vote-batch', type: 'thumbs_down', userId: 'u5', occurredAt: new Date(now - 1_000).toISOString() },
          { id: 'vb-1', responseId: 'r-vote-batch', type: 'thumbs_up', userId: 'u5', occurredAt: new Date(now - 5_000).toISOString() },
        ],
      });
      expect(res.statusCode).toBe(207);
      const current = await t.db.query<{ id: string }>(
        `SELECT id FROM feedback_events WHERE workspace_id = $1 AND response_id = 'r-vote-batch' AND superseded_by IS NULL`,
        [t.workspaceId],
      );
      expect(current.map((r) => r.id)).toEqual(['vb-2']);
    });

    it('computes the edit distance of a correction from the response answer', async () => {
      await registerResponse('r-corr');
      const res = await post('/v1/feedback', {
        id: 'c-1',
        responseId: 'r-corr',
        type: 'correction',
        payload: { corrected: "SELECT * FROM sales WHERE region = 'US'", format: 'sql' },
      });
      expect(res.statusCode).toBe(202);
      const rows = await t.db.query<{ edit_distance: number }>('SELECT edit_distance FROM feedback_events WHERE workspace_id = $1 AND id = $2', [
        t.workspaceId,
        'c-1',
      ]);
      // 19 common characters of 39: (20 added) / (19 + 20) = 51 %.
      expect(rows[0]?.edit_distance).toBe(51);
    });

    it('rejects bad input with a clear error naming the field and stores nothing', async () => {
      await registerResponse('r-bad');
      const before = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM feedback_events WHERE workspace_id = $1', [t.workspaceId]);
      const cases: Array<[unknown, number, string, string | undefined]> = [
        [{ responseId: 'r-bad', type: 'rating', payload: { rating: 6 } }, 400, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'payload.rating'],
        [{ responseId: 'r-bad', type: 'stars' }, 400, 'FEEDLOOP_ERR_VALIDATION_UNKNOWN_TYPE', 'type'],
        [{ responseId: 'r-bad', type: 'thumbs_up', extra: 1 }, 400, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'extra'],
        [{ responseId: 'r-bad', type: 'error_categories', payload: { categories: ['made_up'] } }, 400, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'payload.categories[0]'],
        [{ type: 'thumbs_up' }, 400, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'responseId'],
        [{ responseId: 'r-missing', type: 'thumbs_up' }, 404, 'FEEDLOOP_ERR_RESPONSE_NOT_FOUND', 'responseId'],
        [{ responseId: 'r-bad', type: 'flag_irrelevant' }, 400, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'targetId'],
        [{ responseId: 'r-bad', type: 'retry', source: 'explicit', payload: { rephrasedQuery: 'q' } }, 400, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'source'],
        [{ responseId: 'r-bad', type: 'thumbs_up', occurredAt: new Date(Date.now() + 3_600_000).toISOString() }, 400, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'occurredAt'],
      ];
      for (const [payload, status, code, field] of cases) {
        const res = await post('/v1/feedback', payload);
        expect({ status: res.statusCode, code: res.json().error.code, field: res.json().error.field }).toEqual({ status, code, field });
        if (field) expect(res.json().error.message).toContain(field);
      }
      const badJson = await t.app.inject({ method: 'POST', url: '/v1/feedback', headers: { ...t.auth, 'content-type': 'application/json' }, payload: '{nope' });
      expect(badJson.statusCode).toBe(400);
      expect(badJson.json().error.code).toBe('FEEDLOOP_ERR_VALIDATION_BAD_JSON');
      const after = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM feedback_events WHERE workspace_id = $1', [t.workspaceId]);
      expect(after[0]?.n).toBe(before[0]?.n);
    });

    it('rejects explicit feedback after the window but takes implicit and outcome signals', async () => {
      const old = new Date(Date.now() - 30 * 3_600_000).toISOString();
      await registerResponse('r-old', { createdAt: old });
      const late = await post('/v1/feedback', { responseId: 'r-old', type: 'thumbs_up' });
      expect(late.statusCode).toBe(422);
      expect(late.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_FEEDBACK_WINDOW_CLOSED', field: 'responseId' });
      const implicit = await post('/v1/feedback', { responseId: 'r-old', type: 'edit', payload: { edited: 'SELECT 1', phase: 'long_term' } });
      expect(implicit.statusCode).toBe(202);
      const outcome = await post('/v1/feedback', {
        responseId: 'r-old',
        type: 'outcome',
        payload: { metric: 'conversion', value: 1, source: 'integration' },
      });
      expect(outcome.statusCode).toBe(202);
      // A workspace that widens its window takes the late vote.
      const patched = await t.app.inject({ method: 'PATCH', url: '/v1/workspace/settings', headers: t.auth, payload: { feedbackWindowHours: 48 } });
      expect(patched.json().settings).toMatchObject({ feedbackWindowHours: 48, dedupWindowSeconds: 10 });
      expect((await post('/v1/feedback', { responseId: 'r-old', type: 'thumbs_up' })).statusCode).toBe(202);
      await t.app.inject({ method: 'PATCH', url: '/v1/workspace/settings', headers: t.auth, payload: { feedbackWindowHours: 24 } });
    });

    it('judges each event of a batch alone', async () => {
      await registerResponse('r-batch');
      const res = await post('/v1/feedback/batch', {
        events: [
          { id: 'b-1', responseId: 'r-batch', type: 'thumbs_up' },
          { id: 'b-2', responseId: 'r-batch', type: 'rating', payload: { rating: 0 } },
          { id: 'b-3', responseId: 'nowhere', type: 'thumbs_up' },
          { id: 'b-1', responseId: 'r-batch', type: 'thumbs_up' },
          { responseId: 'r-batch', type: 'quality_scores', payload: { accuracy: 80, completeness: 60 } },
        ],
      });
      expect(res.statusCode).toBe(207);
      const results = res.json().results;
      expect(results.map((r: { status: string }) => r.status)).toEqual(['accepted', 'rejected', 'rejected', 'duplicate', 'accepted']);
      expect(results[1].error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field: 'payload.rating' });
      expect(results[2].error.code).toBe('FEEDLOOP_ERR_RESPONSE_NOT_FOUND');
      expect(results[4].id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
      const tooMany = await post('/v1/feedback/batch', { events: Array.from({ length: 1_001 }, () => ({ responseId: 'r-batch', type: 'skip' })) });
      expect(tooMany.statusCode).toBe(400);
      expect(tooMany.json().error.field).toBe('events');
    });

    it('walls workspaces off from each other', async () => {
      await registerResponse('r-wall');
      const other = await t.otherWorkspace();
      const headers = { authorization: `Bearer ${other.secretKey}` };
      const res = await post('/v1/feedback', { responseId: 'r-wall', type: 'thumbs_up' }, headers);
      expect(res.statusCode).toBe(404);
      const read = await t.app.inject({ method: 'GET', url: '/v1/responses/r-wall', headers });
      expect(read.statusCode).toBe(404);
      const list = await t.app.inject({ method: 'GET', url: '/v1/feedback', headers });
      expect(list.json().data).toEqual([]);
    });

    it('authenticates keys: missing, unknown, public on a secret route', async () => {
      const none = await t.app.inject({ method: 'GET', url: '/v1/feedback' });
      expect(none.statusCode).toBe(401);
      expect(none.json().error.code).toBe('FEEDLOOP_ERR_AUTH_MISSING_KEY');
      const bad = await t.app.inject({ method: 'GET', url: '/v1/feedback', headers: { authorization: 'Bearer fl_sk_nope' } });
      expect(bad.statusCode).toBe(401);
      expect(bad.json().error.code).toBe('FEEDLOOP_ERR_AUTH_INVALID_KEY');
      const pub = await t.app.inject({ method: 'GET', url: '/v1/feedback', headers: { authorization: `Bearer ${t.publicKey}` } });
      expect(pub.statusCode).toBe(403);
      expect(pub.json().error.code).toBe('FEEDLOOP_ERR_AUTH_FORBIDDEN');
      const pubResponse = await post('/v1/responses', { query: 'q', answer: 'a' }, { authorization: `Bearer ${t.publicKey}` });
      expect(pubResponse.statusCode).toBe(403);
    });

    it('lists feedback with filters and cursor pagination', async () => {
      await registerResponse('r-list');
      const events = Array.from({ length: 7 }, (_, i) => ({
        id: `l-${i}`,
        responseId: 'r-list',
        type: i % 2 === 0 ? 'comment' : 'skip',
        userId: `lister-${i % 3}`,
        ...(i % 2 === 0 ? { payload: { comment: `note ${i}` } } : {}),
      }));
      expect((await post('/v1/feedback/batch', { events })).statusCode).toBe(207);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const url: string = `/v1/feedback?responseId=r-list&limit=3${cursor ? `&cursor=${cursor}` : ''}`;
        const page = (await t.app.inject({ method: 'GET', url, headers: t.auth })).json();
        seen.push(...page.data.map((e: { id: string }) => e.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen.sort()).toEqual(events.map((e) => e.id).sort());
      const comments = (await t.app.inject({ method: 'GET', url: '/v1/feedback?responseId=r-list&type=comment', headers: t.auth })).json();
      expect(comments.data.map((e: { id: string }) => e.id).sort()).toEqual(['l-0', 'l-2', 'l-4', 'l-6']);
      const byUser = (await t.app.inject({ method: 'GET', url: '/v1/feedback?userId=lister-1', headers: t.auth })).json();
      expect(byUser.data.map((e: { id: string }) => e.id).sort()).toEqual(['l-1', 'l-4']);
      const badCursor = await t.app.inject({ method: 'GET', url: '/v1/feedback?cursor=zzz', headers: t.auth });
      expect(badCursor.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field: 'cursor' });
      const badType = await t.app.inject({ method: 'GET', url: '/v1/feedback?type=thumbs_up,nah', headers: t.auth });
      expect(badType.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_UNKNOWN_TYPE', field: 'type' });
      const future = new Date(Date.now() + 60_000).toISOString();
      const since = (await t.app.inject({ method: 'GET', url: `/v1/feedback?since=${encodeURIComponent(future)}`, headers: t.auth })).json();
      expect(since.data).toEqual([]);
    });
  });
}
