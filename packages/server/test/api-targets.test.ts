/**
 * GET /v1/targets/:id over both stores: ADR-0012 label actions applied at once to the target's
 * state with full history, one user unable to swing a label (one say per voter, per-voter cap,
 * decisions recorded), the 404, and the `target.corrected` hook delivered to a webhook.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';
import { startReceiver } from './webhook-helpers.js';

interface History {
  eventId: string;
  decision: string;
  action: string;
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`targets on ${backend.name}`, () => {
    let t: TestApp;
    const get = (url: string) => t.app.inject({ method: 'GET', url, headers: t.auth });
    const post = (url: string, payload: object) => t.app.inject({ method: 'POST', url, headers: t.auth, payload });
    const label = (id: string, userId: string, value: string, target = 'edge_1') =>
      post('/v1/feedback', { id, responseId: 'task-1', userId, type: 'correct_label', targetId: target, payload: { correct_relation: value, original_relation: 'NEUTRAL', reason: `by ${id}` } });

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), { FEEDLOOP_WEBHOOK_ALLOW_PRIVATE: 'true' }, { worker: true });
      expect((await post('/v1/responses', { id: 'task-1', query: 'research task', answer: 'graph' })).statusCode).toBe(201);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('applies a correction at once and keeps its history', async () => {
      expect((await get('/v1/targets/edge_1')).json().error.code).toBe('FEEDLOOP_ERR_TARGET_NOT_FOUND');
      expect((await label('l1', 'alice', 'SUPPORTS')).statusCode).toBe(202);
      const s = (await get('/v1/targets/edge_1')).json();
      expect(s.label).toEqual({ value: 'SUPPORTS', original: 'NEUTRAL', confidence: null, voters: 1, humanCorrected: true });
      expect(s.history.map((h: History) => [h.eventId, h.decision])).toEqual([['l1', 'applied']]);
    });

    it('one user cannot swing a label: one say per voter, outvoted and capped actions recorded', async () => {
      await label('l2', 'bob', 'SUPPORTS');
      for (let i = 0; i < 6; i++) expect((await label(`m${i}`, 'mallory', i % 2 === 0 ? 'REFUTES' : 'NEUTRAL')).statusCode).toBe(202);
      const s = (await get('/v1/targets/edge_1')).json();
      expect(s.label.value).toBe('SUPPORTS');
      expect(s.label.voters).toBe(2);
      const decisions = Object.fromEntries(s.history.map((h: History) => [h.eventId, h.decision]));
      expect(decisions).toMatchObject({ l1: 'applied', l2: 'applied', m0: 'superseded', m3: 'superseded', m4: 'outvoted', m5: 'capped' });
    });

    it('corrects citations, flags fragments and pages missing text', async () => {
      await post('/v1/feedback', { id: 'c1', responseId: 'task-1', userId: 'alice', type: 'correct_citation', targetId: 'frag_src', payload: { cited_fragment_id: 'frag_t', correction_type: 'add' } });
      await post('/v1/feedback', { id: 'c2', responseId: 'task-1', userId: 'alice', type: 'correct_citation', targetId: 'frag_src', payload: { cited_fragment_id: 'frag_u', relation: 'CITES', correction_type: 'add' } });
      await post('/v1/feedback', { id: 'c3', responseId: 'task-1', userId: 'alice', type: 'correct_citation', targetId: 'frag_src', payload: { cited_fragment_id: 'frag_u', relation: 'CITES', correction_type: 'remove' } });
      const s = (await get('/v1/targets/frag_src')).json();
      expect(s.relations).toEqual([{ citedFragmentId: 'frag_t', relation: 'CITES', voters: 1 }]);
      await post('/v1/feedback', { id: 'f1', responseId: 'task-1', userId: 'alice', type: 'flag_irrelevant', targetId: 'frag_ad', payload: { reason: 'advert' } });
      await post('/v1/feedback', { id: 'f2', responseId: 'task-1', userId: 'bob', type: 'flag_irrelevant', targetId: 'frag_ad', payload: {} });
      expect((await get('/v1/targets/frag_ad')).json().flaggedIrrelevant).toBe(2);
      await post('/v1/feedback', { id: 'p1', responseId: 'task-1', userId: 'bob', type: 'flag_missing', targetId: 'page_1', payload: { missing_text: 'Figure 3 shows 40%', location_hint: 'Results' } });
      expect((await get('/v1/targets/page_1')).json().missing).toEqual([{ text: 'Figure 3 shows 40%', locationHint: 'Results', eventId: 'p1' }]);
    });

    it('sends target.corrected to a subscribed webhook', async () => {
      const receiver = await startReceiver(() => 200);
      const hook = await post('/v1/webhooks', { url: receiver.url, events: ['target.corrected'] });
      expect(hook.statusCode).toBe(201);
      await label('h1', 'carol', 'SUPPORTS', 'edge_2');
      const deadline = Date.now() + 20_000;
      const ours = () => receiver.requests.map((r) => JSON.parse(r.body)).find((b) => b.data?.eventId === 'h1');
      while (ours() === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      // Earlier label actions the worker processed after the subscription arrive too; only those kinds.
      expect(receiver.requests.every((r) => JSON.parse(r.body).type === 'target.corrected')).toBe(true);
      const body = ours();
      expect(body).toMatchObject({ type: 'target.corrected', data: { targetId: 'edge_2', action: 'correct_label', eventId: 'h1' } });
    }, 30_000);
  });
}
