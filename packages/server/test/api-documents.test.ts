/**
 * Documents over both stores (ADR-016): uses counted at registration, positive and negative from
 * the pipeline's tallies, flags from label actions on the document (one per voter), the
 * Bayesian-smoothed score with its interval, ranking by each sort, per source, and the candidate
 * scores in one call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

interface Doc {
  documentId?: string;
  source?: string;
  uses: number;
  positive: number;
  negative: number;
  flaggedIrrelevant: number;
  effectiveness: number;
  interval: [number, number];
  known?: boolean;
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`documents on ${backend.name}`, () => {
    let t: TestApp;
    const get = (url: string) => t.app.inject({ method: 'GET', url, headers: t.auth });
    const post = (url: string, payload: object) => t.app.inject({ method: 'POST', url, headers: t.auth, payload });

    beforeAll(async () => {
      t = await startTestApp(await backend.open());
      // kb:good used 4 times, liked 3 times; kb:bad used 3 times, disliked twice and flagged; a URL source once.
      const plan: Array<[string, string[], 'thumbs_up' | 'thumbs_down' | null]> = [
        ['r1', ['kb:good'], 'thumbs_up'],
        ['r2', ['kb:good', 'kb:bad'], 'thumbs_up'],
        ['r3', ['kb:good'], 'thumbs_up'],
        ['r4', ['kb:good', 'kb:good'], null],
        ['r5', ['kb:bad'], 'thumbs_down'],
        ['r6', ['kb:bad'], 'thumbs_down'],
      ];
      for (const [id, docs, vote] of plan) {
        expect((await post('/v1/responses', { id, query: 'q', answer: 'a', contextDocumentIds: docs })).statusCode).toBe(201);
        if (vote) await post('/v1/feedback', { responseId: id, userId: `u-${id}`, type: vote });
      }
      await post('/v1/responses', { id: 'r7', query: 'q', answer: 'a', sources: ['https://Docs.Example.com/a'] });
      // Flags: mallory flags kb:bad three times (counts once), alice once.
      for (const [i, user] of ['mallory', 'mallory', 'mallory', 'alice'].entries()) {
        await post('/v1/feedback', { responseId: 'r5', userId: user, type: 'flag_irrelevant', targetId: 'kb:bad', payload: { reason: `noise ${i}` } });
      }
      await t.services.pipeline.process((await t.db.query<{ workspace_id: string; event_id: string }>('SELECT workspace_id, event_id FROM pipeline_pending')).map((r) => [r.workspace_id, r.event_id] as [string, string]));
    });
    afterAll(async () => {
      await t?.close();
    });

    it('counts uses, votes and flags, and scores with a Beta posterior', async () => {
      const res = await get('/v1/documents');
      expect(res.statusCode).toBe(200);
      const docs = res.json().data as Doc[];
      expect(docs.map((d) => d.documentId)).toEqual(['kb:good', 'https://Docs.Example.com/a', 'kb:bad']);
      const good = docs[0]!;
      expect(good).toMatchObject({ uses: 4, positive: 3, negative: 0, flaggedIrrelevant: 0, effectiveness: 0.8 });
      expect(good.interval[0]).toBeGreaterThan(0.39);
      expect(good.interval[1]).toBeGreaterThan(0.99);
      const bad = docs[2]!;
      // (1 + 1) / (1 + 2 + 2 + 2): r2's thumbs up, r5/r6's downs, two distinct flaggers.
      expect(bad).toMatchObject({ uses: 3, positive: 1, negative: 2, flaggedIrrelevant: 2, effectiveness: 0.2857 });
    });

    it('sorts by uses and negative, and groups per source', async () => {
      expect(((await get('/v1/documents?sort=uses')).json().data as Doc[]).map((d) => d.uses)).toEqual([4, 3, 1]);
      expect(((await get('/v1/documents?sort=negative&limit=1')).json().data as Doc[])[0]?.documentId).toBe('kb:bad');
      const sources = (await get('/v1/documents?by=source&sort=uses')).json().data as Doc[];
      expect(sources.map((s) => [s.source, s.uses])).toEqual([['kb', 7], ['docs.example.com', 1]]);
      expect((await get('/v1/documents?sort=bogus')).statusCode).toBe(400);
    });

    it('scores a candidate list in one call, unknown ones at the prior', async () => {
      const res = await post('/v1/documents/scores', { documentIds: ['kb:bad', 'kb:new', 'kb:good'] });
      expect(res.statusCode).toBe(200);
      const data = res.json().data as Doc[];
      expect(data.map((d) => [d.documentId, d.effectiveness, d.known])).toEqual([['kb:bad', 0.2857, true], ['kb:new', 0.5, false], ['kb:good', 0.8, true]]);
      const bad = await post('/v1/documents/scores', { documentIds: [] });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.field).toBe('documentIds');
    });
  });
}
