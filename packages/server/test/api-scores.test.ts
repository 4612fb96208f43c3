/**
 * Issue 26 §1: `score` events through `POST /v1/feedback` on both stores: stored as given without
 * a config, validated and mapped (`mapsTo`) with one, one current score per (response, name,
 * voter), and every refusal (FEEDLOOP_ERR_SCORE_INVALID naming the field, nothing stored).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`score events on ${backend.name}`, () => {
    let t: TestApp;
    const post = (url: string, payload: unknown) => t.app.inject({ method: 'POST', url, headers: t.auth, payload: payload as object });
    const events = (responseId: string) =>
      t.db.query<{ id: string; type: string; payload: Record<string, unknown>; superseded_by: string | null }>(
        'SELECT id, type, payload, superseded_by FROM feedback_events WHERE workspace_id = $1 AND response_id = $2 ORDER BY id',
        [t.workspaceId, responseId],
      );
    const configId = async (name: string) =>
      (await t.app.inject({ method: 'GET', url: '/v1/score-configs?archived=true', headers: t.auth })).json().configs.find((c: { name: string }) => c.name === name)?.id as string;

    beforeAll(async () => {
      t = await startTestApp(await backend.open());
      for (const id of ['r-s1', 'r-s2', 'r-s3', 'r-s4', 'r-s5', 'r-s6']) {
        expect((await post('/v1/responses', { id, query: `q ${id}`, answer: 'a' })).statusCode).toBe(201);
      }
      expect((await post('/v1/score-configs', { name: 'helpfulness', dataType: 'numeric', min: 0, max: 1 })).statusCode).toBe(201);
      expect((await post('/v1/score-configs', { name: 'clarity', dataType: 'numeric', min: 1, max: 5, mapsTo: 'rating' })).statusCode).toBe(201);
      const tone = { name: 'tone', dataType: 'categorical', categories: [{ value: 0, label: 'rude' }, { value: 1, label: 'polite' }] };
      expect((await post('/v1/score-configs', tone)).statusCode).toBe(201);
      expect((await post('/v1/score-configs', { name: 'retired', dataType: 'boolean' })).statusCode).toBe(201);
      const retired = await configId('retired');
      expect((await t.app.inject({ method: 'PATCH', url: `/v1/score-configs/${retired}`, headers: t.auth, payload: { archived: true } })).statusCode).toBe(200);
    });
    afterAll(async () => {
      await t.close();
    });

    it('stores a score with no config as given', async () => {
      const res = await post('/v1/feedback', { id: 's-free', responseId: 'r-s1', userId: 'u1', type: 'score', payload: { name: 'groundedness', value: 0.25, comment: 'half' } });
      expect(res.statusCode).toBe(202);
      expect(res.json()).toEqual({ id: 's-free', status: 'accepted' });
      expect(await events('r-s1')).toEqual([{ id: 's-free', type: 'score', payload: { name: 'groundedness', value: 0.25, comment: 'half' }, superseded_by: null }]);
    });

    it('maps thumbs-mapped scores to thumbs votes, keeping the score, and they replace each other as votes do', async () => {
      const thumbs = await configId('thumbs');
      const t0 = Date.now() - 60_000;
      const at = (s: number) => new Date(t0 + s * 1000).toISOString();
      expect((await post('/v1/feedback', { id: 's-t1', responseId: 'r-s2', userId: 'u1', occurredAt: at(0), type: 'score', payload: { name: 'thumbs', value: 1, comment: 'nice' } })).statusCode).toBe(202);
      expect((await post('/v1/feedback', { id: 's-t2', responseId: 'r-s2', userId: 'u1', occurredAt: at(1), type: 'score', payload: { name: 'user_score', stringValue: 'False' } })).statusCode).toBe(202);
      expect((await post('/v1/feedback', { id: 's-t3', responseId: 'r-s2', userId: 'u2', occurredAt: at(2), type: 'score', payload: { name: 'user-feedback', value: 1 } })).statusCode).toBe(202);
      const rows = await events('r-s2');
      expect(rows).toEqual([
        { id: 's-t1', type: 'thumbs_up', payload: { comment: 'nice', score: { name: 'thumbs', value: 1, stringValue: 'true', configId: thumbs } }, superseded_by: 's-t2' },
        { id: 's-t2', type: 'thumbs_down', payload: { score: { name: 'user_score', value: 0, stringValue: 'false', configId: await configId('user_score') } }, superseded_by: null },
        { id: 's-t3', type: 'thumbs_up', payload: { score: { name: 'user-feedback', value: 1, stringValue: 'true', configId: await configId('user-feedback') } }, superseded_by: null },
      ]);
    });

    it('maps rating-mapped scores to ratings (a named dimension is its own aspect)', async () => {
      expect((await post('/v1/feedback', { id: 's-r1', responseId: 'r-s3', userId: 'u1', type: 'score', payload: { name: 'rating', value: 4 } })).statusCode).toBe(202);
      expect((await post('/v1/feedback', { id: 's-r2', responseId: 'r-s3', userId: 'u1', type: 'score', payload: { name: 'clarity', value: 2 } })).statusCode).toBe(202);
      const rows = await events('r-s3');
      expect(rows.map((r) => [r.id, r.type, r.payload.rating, r.payload.aspect, r.superseded_by])).toEqual([
        ['s-r1', 'rating', 4, undefined, null],
        ['s-r2', 'rating', 2, 'clarity', null],
      ]);
    });

    it('validates against numeric and categorical configs and completes the score', async () => {
      expect((await post('/v1/feedback', { id: 's-h1', responseId: 'r-s4', userId: 'u1', type: 'score', payload: { name: 'helpfulness', value: 0.8 } })).statusCode).toBe(202);
      expect((await post('/v1/feedback', { id: 's-c1', responseId: 'r-s4', userId: 'u1', type: 'score', payload: { name: 'tone', stringValue: 'polite' } })).statusCode).toBe(202);
      const rows = await events('r-s4');
      expect(rows.map((r) => [r.id, r.type, r.payload])).toEqual([
        ['s-c1', 'score', { name: 'tone', value: 1, stringValue: 'polite', configId: await configId('tone') }],
        ['s-h1', 'score', { name: 'helpfulness', value: 0.8, configId: await configId('helpfulness') }],
      ]);
    });

    it('keeps one score per (response, name, voter): a later one replaces the earlier', async () => {
      const t0 = Date.now() - 60_000;
      const score = (id: string, userId: string, name: string, value: number, s: number) =>
        post('/v1/feedback', { id, responseId: 'r-s5', userId, occurredAt: new Date(t0 + s * 1000).toISOString(), type: 'score', payload: { name, value } });
      for (const [id, user, name, value, s] of [
        ['h-1', 'u1', 'helpfulness', 0.2, 0],
        ['h-2', 'u1', 'helpfulness', 0.9, 1],
        ['h-3', 'u2', 'helpfulness', 0.5, 2],
        ['g-1', 'u1', 'groundedness', 3, 3],
      ] as const) {
        expect((await score(id, user, name, value, s)).statusCode).toBe(202);
      }
      expect((await events('r-s5')).map((r) => [r.id, r.superseded_by])).toEqual([
        ['g-1', null],
        ['h-1', 'h-2'],
        ['h-2', null],
        ['h-3', null],
      ]);
    });

    it('refuses scores that do not fit their config, naming the field, storing nothing', async () => {
      const base = { responseId: 'r-s6', userId: 'u1', type: 'score' };
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ name: 'rating', value: 6 }, 'FEEDLOOP_ERR_SCORE_INVALID', 'payload.value'],
        [{ name: 'rating', value: 3.5 }, 'FEEDLOOP_ERR_SCORE_INVALID', 'payload.value'],
        [{ name: 'rating', stringValue: 'four' }, 'FEEDLOOP_ERR_SCORE_INVALID', 'payload.value'],
        [{ name: 'thumbs', value: 2 }, 'FEEDLOOP_ERR_SCORE_INVALID', 'payload.value'],
        [{ name: 'thumbs', stringValue: 'maybe' }, 'FEEDLOOP_ERR_SCORE_INVALID', 'payload.stringValue'],
        [{ name: 'thumbs', value: 1, stringValue: 'false' }, 'FEEDLOOP_ERR_SCORE_INVALID', 'payload.stringValue'],
        [{ name: 'helpfulness', value: 1.5 }, 'FEEDLOOP_ERR_SCORE_INVALID', 'payload.value'],
        [{ name: 'helpfulness', value: 0.5, stringValue: 'x' }, 'FEEDLOOP_ERR_SCORE_INVALID', 'payload.stringValue'],
        [{ name: 'tone', stringValue: 'grumpy' }, 'FEEDLOOP_ERR_SCORE_INVALID', 'payload.stringValue'],
        [{ name: 'tone', value: 7 }, 'FEEDLOOP_ERR_SCORE_INVALID', 'payload.value'],
        [{ name: 'tone', value: 0, stringValue: 'polite' }, 'FEEDLOOP_ERR_SCORE_INVALID', 'payload.stringValue'],
        [{ name: 'tone', value: 1, configId: 'sc_nope' }, 'FEEDLOOP_ERR_SCORE_INVALID', 'payload.configId'],
        [{ name: 'helpfulness', value: 1, configId: 'RETIRED' }, 'FEEDLOOP_ERR_SCORE_INVALID', 'payload.configId'],
        [{ name: 'tone' }, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'payload.value'],
        [{ value: 1 }, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'payload.name'],
        [{ name: 'tone', value: 'high' }, 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'payload.value'],
      ];
      const retired = await configId('retired');
      for (const [payload, code, field] of cases) {
        const p = payload.configId === 'RETIRED' ? { ...payload, configId: retired } : payload;
        const res = await post('/v1/feedback', { ...base, payload: p });
        expect(res.statusCode, JSON.stringify(p)).toBe(400);
        expect(res.json().error, JSON.stringify(p)).toMatchObject({ code, field });
      }
      const vote = await post('/v1/feedback', { responseId: 'r-s6', userId: 'u1', type: 'thumbs_up', payload: { score: { name: 'thumbs', value: 1 } } });
      expect(vote.statusCode).toBe(400);
      expect(vote.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field: 'payload.score' });
      expect(await events('r-s6')).toEqual([]);
      // An archived config no longer applies by name: the score is stored as given.
      expect((await post('/v1/feedback', { id: 's-ret', ...base, payload: { name: 'retired', value: 7 } })).statusCode).toBe(202);
      expect((await events('r-s6')).map((r) => r.payload)).toEqual([{ name: 'retired', value: 7 }]);
    });

    it('judges each score of a batch alone', async () => {
      const res = await post('/v1/feedback/batch', {
        events: [
          { id: 'b-1', responseId: 'r-s6', userId: 'u3', type: 'score', payload: { name: 'thumbs', value: 0 } },
          { id: 'b-2', responseId: 'r-s6', userId: 'u4', type: 'score', payload: { name: 'rating', value: 9 } },
          { id: 'b-3', responseId: 'r-s6', userId: 'u5', type: 'thumbs_up' },
        ],
      });
      expect(res.statusCode).toBe(207);
      expect(res.json().results).toEqual([
        { id: 'b-1', status: 'accepted' },
        { id: 'b-2', status: 'rejected', error: expect.objectContaining({ code: 'FEEDLOOP_ERR_SCORE_INVALID', field: 'payload.value' }) },
        { id: 'b-3', status: 'accepted' },
      ]);
      expect((await events('r-s6')).map((r) => [r.id, r.type])).toEqual([
        ['b-1', 'thumbs_down'],
        ['b-3', 'thumbs_up'],
        ['s-ret', 'score'],
      ]);
    });
  });
}
