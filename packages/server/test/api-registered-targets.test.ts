/**
 * Issue 24, ADR-0012 end to end over both stores: targets registered with their content
 * (`PUT /v1/targets/:id`), NLI samples built from the registered texts (never blank: a sample
 * without both texts is reported by the validator), a claim's confidence recomputed from its edges
 * after a correction (at `GET /v1/targets/:claimId` and in `target.corrected`), and the default
 * training-batch kinds firing on label corrections.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';
import { startReceiver } from './webhook-helpers.js';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`registered targets on ${backend.name}`, () => {
    let t: TestApp;
    const req = (method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) =>
      t.app.inject({ method, url, headers: t.auth, ...(payload ? { payload } : {}) });

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), { FEEDLOOP_WEBHOOK_ALLOW_PRIVATE: 'true' }, { worker: true });
      expect((await req('POST', '/v1/responses', { id: 'task-r', query: 'research task', answer: 'graph' })).statusCode).toBe(201);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('registers fragments, claims and edges; refuses bad registrations naming the field, changing nothing', async () => {
      const frag = await req('PUT', '/v1/targets/frag_1', { kind: 'fragment', text: 'Sales rose 4 % in May, the report concludes.' });
      expect(frag.statusCode).toBe(201);
      expect(frag.json()).toMatchObject({ targetId: 'frag_1', kind: 'fragment', text: 'Sales rose 4 % in May, the report concludes.' });
      expect((await req('PUT', '/v1/targets/claim_1', { kind: 'claim', text: 'Sales grew in May.' })).statusCode).toBe(201);
      expect((await req('PUT', '/v1/targets/frag_2', { kind: 'fragment', text: 'May sales were flat.' })).statusCode).toBe(201);
      expect((await req('PUT', '/v1/targets/edge_1', { kind: 'edge', fragmentId: 'frag_1', claimId: 'claim_1', relation: 'NEUTRAL', confidence: 0.6 })).statusCode).toBe(201);
      expect((await req('PUT', '/v1/targets/edge_2', { kind: 'edge', fragmentId: 'frag_2', claimId: 'claim_1', relation: 'CONTRADICTS', confidence: 0.8 })).statusCode).toBe(201);
      // Again: an update.
      expect((await req('PUT', '/v1/targets/edge_2', { kind: 'edge', fragmentId: 'frag_2', claimId: 'claim_1', relation: 'CONTRADICTS', confidence: 0.7 })).statusCode).toBe(200);

      const bad: Array<[object, string]> = [
        [{ kind: 'edge', claimId: 'claim_1' }, 'fragmentId'],
        [{ kind: 'fragment', text: 'x', claimId: 'claim_1' }, 'claimId'],
        [{ kind: 'edge', fragmentId: 'f', claimId: 'c', confidence: 1.5 }, 'confidence'],
        [{ kind: 'node' }, 'kind'],
        [{ kind: 'claim', colour: 'red' }, 'colour'],
      ];
      for (const [body, field] of bad) {
        const res = await req('PUT', '/v1/targets/edge_bad', body);
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(res.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field });
      }
      expect((await req('GET', '/v1/targets/edge_bad')).statusCode).toBe(404);
      const other = await t.otherWorkspace();
      expect((await t.app.inject({ method: 'GET', url: '/v1/targets/claim_1', headers: { authorization: `Bearer ${other.secretKey}` } })).statusCode).toBe(404);
    });

    it("shows a claim's confidence from its edges, recomputed after a correction, and sends it in target.corrected", async () => {
      const before = (await req('GET', '/v1/targets/claim_1')).json();
      expect(before.registered).toMatchObject({ kind: 'claim', text: 'Sales grew in May.' });
      // NEUTRAL 0.6 and CONTRADICTS 0.7, model edges: 0.5 + 0.5 · (−0.7) / 2.
      expect(before.claimConfidence.value).toBeCloseTo(0.325, 10);
      expect(before.claimConfidence.edges).toBe(2);

      const receiver = await startReceiver(() => 200);
      expect((await req('POST', '/v1/webhooks', { url: receiver.url, events: ['target.corrected'] })).statusCode).toBe(201);
      const sent = await req('POST', '/v1/feedback', {
        id: 'fix-1',
        responseId: 'task-r',
        userId: 'alice',
        type: 'correct_label',
        targetId: 'edge_1',
        payload: { correct_relation: 'SUPPORTS', original_relation: 'NEUTRAL', confidence: 0.95 },
      });
      expect(sent.statusCode).toBe(202);
      // Human SUPPORTS 0.95 (weight 2) and model CONTRADICTS 0.7 (weight 1): 0.5 + 0.5 · (1.9 − 0.7) / 3 = 0.7.
      const after = (await req('GET', '/v1/targets/claim_1')).json();
      expect(after.claimConfidence.value).toBeCloseTo(0.7, 10);
      expect(after.claimConfidence.humanCorrectedEdges).toBe(1);
      const edge = (await req('GET', '/v1/targets/edge_1')).json();
      expect(edge.registered).toMatchObject({ kind: 'edge', fragmentId: 'frag_1', claimId: 'claim_1' });
      expect(edge.label.value).toBe('SUPPORTS');

      const deadline = Date.now() + 20_000;
      const ours = () => receiver.requests.map((r) => JSON.parse(r.body)).find((b) => b.data?.eventId === 'fix-1');
      while (ours() === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(ours()?.data).toMatchObject({ targetId: 'edge_1', claim: { claimId: 'claim_1' } });
      expect(ours()?.data.claim.confidence).toBeCloseTo(0.7, 10);
    }, 30_000);

    it("builds NLI samples from the registered texts, and reports, never blanks, one without them", async () => {
      // An edge nobody registered, through an MCP-style placeholder task (no texts anywhere).
      expect((await req('POST', '/v1/responses', { id: 'task-mcp', query: 'MCP task task-mcp', answer: '', agent: 'mcp', metadata: { mcpTask: true } })).statusCode).toBe(201);
      expect((await req('POST', '/v1/feedback', { id: 'fix-2', responseId: 'task-mcp', userId: 'bob', type: 'correct_label', targetId: 'edge_unknown', payload: { correct_relation: 'SUPPORTS' } })).statusCode).toBe(202);
      await t.services.pipeline.idle(20_000);
      const res = await req('GET', '/v1/exports/nli');
      expect(res.statusCode).toBe(200);
      const rows = res.body.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(rows).toEqual([
        { premise: 'Sales rose 4 % in May, the report concludes.', hypothesis: 'Sales grew in May.', label: 'SUPPORTS', weight: 0.95, original_label: 'NEUTRAL', target_id: 'edge_1', provenance: { trust: 'verified', verifiedEvents: 1, unverifiedEvents: 0 } },
      ]);
      for (const r of rows) expect(r.premise === '' || r.hypothesis === '' || String(r.hypothesis).startsWith('MCP task')).toBe(false);
      const report = (await req('GET', '/v1/exports/nli?validate=true')).json();
      expect(report.rows).toBe(1);
      expect(report.excluded.missingText).toBe(1);
    });
  });
}

describe('default training-batch kinds', () => {
  it('include nli, so 50 unused label corrections fire a batch without configuration (ADR-0012)', () => {
    expect(loadConfig({}).trainingBatchKinds).toEqual(['corrections', 'nli']);
  });
});
