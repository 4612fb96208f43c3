/**
 * Issue 26 §1, scores first-class, on both stores: in the response detail and the response list
 * (with its score filters), `GET /v1/stats?groupBy=score` (count, mean with its 95 % interval,
 * categorical counts), the composite score with a config's weight (0 by default: no change), and
 * the learning-signals export.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateAlertTick } from '../src/pipeline/alert-evaluation.js';
import { rescoreDirtyResponses } from '../src/pipeline/rescore.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

/** Student's t quantile 0.975 for 2 degrees of freedom, from a table. */
const T_975_DF2 = 4.302653;

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`named scores read on ${backend.name}`, () => {
    let t: TestApp;
    let helpfulness: string;
    const post = (url: string, payload: unknown) => t.app.inject({ method: 'POST', url, headers: t.auth, payload: payload as object });
    const get = (url: string) => t.app.inject({ method: 'GET', url, headers: t.auth });
    const del = (url: string) => t.app.inject({ method: 'DELETE', url, headers: t.auth });
    const ids = async (query: string) => (await get(`/v1/responses?${query}`)).json().data.map((r: { id: string }) => r.id).sort();

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), {}, { worker: true });
      helpfulness = (await post('/v1/score-configs', { name: 'helpfulness', dataType: 'numeric', min: 0, max: 1 })).json().id;
      const tone = { name: 'tone', dataType: 'categorical', categories: [{ value: 0, label: 'rude' }, { value: 1, label: 'polite' }] };
      expect((await post('/v1/score-configs', tone)).statusCode).toBe(201);
      expect((await post('/v1/responses/batch', { responses: ['n-r1', 'n-r2', 'n-r3', 'n-r4'].map((id) => ({ id, query: `q ${id}`, answer: 'a' })) })).statusCode).toBe(207);
      const score = (id: string, responseId: string, userId: string, payload: Record<string, unknown>) => ({ id, responseId, userId, type: 'score', payload });
      const sent = await post('/v1/feedback/batch', {
        events: [
          score('n-h1', 'n-r1', 'u1', { name: 'helpfulness', value: 0.9 }),
          score('n-h2', 'n-r1', 'u2', { name: 'helpfulness', value: 0.7 }),
          score('n-h3', 'n-r2', 'u1', { name: 'helpfulness', value: 0.2 }),
          score('n-t1', 'n-r3', 'u1', { name: 'tone', stringValue: 'polite' }),
          score('n-t2', 'n-r3', 'u2', { name: 'tone', value: 0 }),
          score('n-b1', 'n-r1', 'u3', { name: 'thumbs', value: 1 }),
          { id: 'n-up', responseId: 'n-r4', userId: 'u1', type: 'thumbs_up' },
        ],
      });
      expect(sent.json().results.map((r: { status: string }) => r.status)).toEqual(Array(7).fill('accepted'));
      await t.services.pipeline.idle(10_000);
    });
    afterAll(async () => {
      await t.close();
    });

    it('lists a response\'s current scores in its detail', async () => {
      const r1 = (await get('/v1/responses/n-r1')).json();
      expect(r1.scores.map((s: Record<string, unknown>) => [s.name, s.value, s.stringValue, s.type, s.eventId])).toEqual([
        ['helpfulness', 0.9, null, 'score', 'n-h1'],
        ['helpfulness', 0.7, null, 'score', 'n-h2'],
        ['thumbs', 1, 'true', 'thumbs_up', 'n-b1'],
      ]);
      // A replaced score is not current.
      expect((await post('/v1/feedback', score2('n-h1b'))).statusCode).toBe(202);
      const after = (await get('/v1/responses/n-r1')).json();
      expect(after.scores.filter((s: { name: string }) => s.name === 'helpfulness').map((s: { eventId: string; value: number }) => [s.eventId, s.value])).toEqual([
        ['n-h2', 0.7],
        ['n-h1b', 0.95],
      ]);
    });

    it('filters the response list by score name, range and value, and shows each response\'s scores', async () => {
      expect(await ids('scoreName=helpfulness')).toEqual(['n-r1', 'n-r2']);
      expect(await ids('scoreName=helpfulness&scoreMin=0.5')).toEqual(['n-r1']);
      expect(await ids('scoreName=helpfulness&scoreMax=0.5')).toEqual(['n-r2']);
      expect(await ids('scoreName=helpfulness&scoreMin=0.8&scoreMax=0.95')).toEqual(['n-r1']);
      expect(await ids('scoreName=tone&scoreValue=rude')).toEqual(['n-r3']);
      expect(await ids('scoreName=tone&scoreValue=1')).toEqual(['n-r3']);
      expect(await ids('scoreName=tone&scoreValue=grumpy')).toEqual([]);
      expect(await ids('scoreName=thumbs&scoreValue=true')).toEqual(['n-r1']);
      expect(await ids('scoreName=nope')).toEqual([]);
      const r1 = (await get('/v1/responses?scoreName=helpfulness&scoreMin=0.5')).json().data[0];
      expect(r1.scores).toEqual([
        { name: 'helpfulness', count: 2, mean: expect.closeTo(0.825, 9) },
        { name: 'thumbs', count: 1, mean: 1 },
      ]);
      expect((await get('/v1/responses?agent=none-such')).json().data).toEqual([]);
      for (const [query, field] of [
        ['scoreMin=0.5', 'scoreMin'],
        ['scoreValue=rude', 'scoreValue'],
        ['scoreName=helpfulness&scoreMin=0.9&scoreMax=0.1', 'scoreMin'],
        ['scoreName=helpfulness&scoreMin=high', 'scoreMin'],
        ['scoreName=', 'scoreName'],
      ] as const) {
        const res = await get(`/v1/responses?${query}`);
        expect(res.statusCode, query).toBe(400);
        expect(res.json().error, query).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field });
      }
    });

    it('summarizes scores per name in GET /v1/stats?groupBy=score', async () => {
      const res = await get('/v1/stats?groupBy=score');
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.groupBy).toBe('score');
      const byName = Object.fromEntries(body.scores.map((s: { name: string }) => [s.name, s]));
      expect(Object.keys(byName)).toEqual(['helpfulness', 'thumbs', 'tone']);
      // Current helpfulness scores: 0.7, 0.95 (n-h1b replaced n-h1), 0.2.
      const values = [0.7, 0.95, 0.2];
      const mean = values.reduce((a, b) => a + b) / 3;
      const sd = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / 2);
      const half = (T_975_DF2 * sd) / Math.sqrt(3);
      expect(byName.helpfulness.count).toBe(3);
      expect(byName.helpfulness.mean).toBeCloseTo(mean, 4);
      // The t interval of three scores runs past the config's 0..1: kept within it.
      expect(mean - half).toBeLessThan(0);
      expect(byName.helpfulness.interval.lower).toBe(0);
      expect(byName.helpfulness.interval.upper).toBeCloseTo(Math.min(1, mean + half), 3);
      expect(byName.helpfulness.categories).toEqual({});
      expect(byName.tone).toMatchObject({ count: 2, mean: 0.5, categories: { polite: 1, rude: 1 } });
      expect(byName.thumbs).toMatchObject({ count: 1, mean: 1, interval: null, categories: { true: 1 } });
      const bad = await get('/v1/stats?groupBy=score&agent=sql');
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field: 'agent' });
      const other = await get('/v1/stats?groupBy=agent');
      expect(other.json().scores).toBeUndefined();
    });

    it('leaves the composite score alone at weight 0, and weighs a score by its config\'s weight', async () => {
      // Weight 0 (the default): a response with only a score has no composite score.
      expect((await get('/v1/responses/n-r2')).json().quality.score).toBeNull();
      const r1Before = (await get('/v1/responses/n-r1')).json().quality.score;
      const r4 = (await get('/v1/responses/n-r4')).json().quality.score;
      expect(r1Before).toBe(r4); // n-r1's thumbs up alone counts, as n-r4's
      expect((await t.app.inject({ method: 'PATCH', url: `/v1/score-configs/${helpfulness}`, headers: t.auth, payload: { weight: 2 } })).statusCode).toBe(200);
      await rescoreDirtyResponses(t.db);
      // 0.2 on 0..1 is -0.6 on -1..1, the only signal with weight.
      expect((await get('/v1/responses/n-r2')).json().quality.score).toBeCloseTo(-0.6, 9);
      expect((await get('/v1/responses/n-r1')).json().quality.score).toBeLessThan(r1Before);
      expect((await get('/v1/responses/n-r4')).json().quality.score).toBe(r4);
    });

    it('carries scores in the learning-signals export', async () => {
      const events = (await get('/v1/exports/learning-signals?trust=all')).body.trim().split('\n').map((l) => JSON.parse(l));
      const h3 = events.find((e: { context: { score?: { name: string; value: number } } }) => e.context.score?.value === 0.2);
      expect(h3?.context.score).toEqual({ name: 'helpfulness', value: 0.2 });
      const byResponse = (await get('/v1/exports/learning-signals?kind=response&trust=all')).body.trim().split('\n').map((l) => JSON.parse(l));
      const r3 = byResponse.find((r: { context: { response_id: string } }) => r.context.response_id === 'n-r1');
      expect(r3?.context.scores).toEqual(expect.arrayContaining([{ name: 'thumbs', value: 1, stringValue: 'true' }]));
    });

    it('fires and resolves an alert rule on a score\'s mean (metric score:<name>)', async () => {
      const rule = { id: 'help-low', kind: 'score_mean', metric: 'score:helpfulness', severity: 'warning', threshold: 0.5, minSample: 3, windowHours: 24 };
      const put = await t.app.inject({ method: 'PUT', url: '/v1/alert-rules', headers: t.auth, payload: { rules: [rule] } });
      expect(put.statusCode).toBe(200);
      expect(put.json().rules[0]).toMatchObject({ kind: 'score_mean', metric: 'score:helpfulness', direction: 'below', hysteresis: 0 });
      const alerts = async () => (await get('/v1/alerts?state=all')).json().alerts as Array<Record<string, unknown>>;
      // Current helpfulness: 0.7, 0.95, 0.2: mean 0.6167, not below 0.5.
      await evaluateAlertTick(t.db, { intervalMs: 1 });
      expect(await alerts()).toEqual([]);
      expect((await post('/v1/feedback', { id: 'n-h4', responseId: 'n-r3', userId: 'u4', type: 'score', payload: { name: 'helpfulness', value: 0 } })).statusCode).toBe(202);
      await evaluateAlertTick(t.db, { intervalMs: 1 });
      // 0.7, 0.95, 0.2, 0: mean 0.4625.
      expect(await alerts()).toEqual([expect.objectContaining({ ruleId: 'help-low', kind: 'score_mean', state: 'firing', metric: 'score:helpfulness', value: 0.4625, sample: 4 })]);
      expect((await del('/v1/feedback/n-h4')).statusCode).toBe(200);
      await evaluateAlertTick(t.db, { intervalMs: 1 });
      expect(await alerts()).toEqual([expect.objectContaining({ ruleId: 'help-low', state: 'resolved' })]);
      for (const [bad, field] of [
        [{ ...rule, metric: undefined }, 'metric'],
        [{ ...rule, metric: 'helpfulness' }, 'metric'],
        [{ ...rule, kind: 'satisfaction', threshold: 70 }, 'metric'],
        [{ id: 'x', kind: 'satisfaction', severity: 'warning', threshold: 70, direction: 'above' }, 'direction'],
      ] as const) {
        const res = await t.app.inject({ method: 'PUT', url: '/v1/alert-rules', headers: t.auth, payload: { rules: [bad] } });
        expect(res.statusCode, JSON.stringify(bad)).toBe(400);
        expect(res.json().error.field, JSON.stringify(bad)).toBe(`rules[0].${field}`);
      }
    });

    function score2(id: string) {
      return { id, responseId: 'n-r1', userId: 'u1', type: 'score', payload: { name: 'helpfulness', value: 0.95 } };
    }
  });
}
