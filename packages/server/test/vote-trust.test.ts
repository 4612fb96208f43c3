/**
 * Votes sent with a public key are unverified (issue 7, item 4): anyone with the browser key can
 * name any userId, so such a vote must never replace one sent with a secret key. It is stored,
 * marked replaced by the verified vote.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`vote trust on ${backend.name}`, () => {
    let t: TestApp;
    const secret = () => t.auth;
    const pub = () => ({ authorization: `Bearer ${t.publicKey}` });
    const post = (url: string, payload: unknown, headers: Record<string, string>) => t.app.inject({ method: 'POST', url, headers, payload: payload as object });
    const vote = async (headers: Record<string, string>, event: Record<string, unknown>) => {
      const res = await post('/v1/feedback', event, headers);
      expect(res.statusCode, res.body).toBe(202);
      expect(res.json().status).toBe('accepted');
    };
    const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
    const slot = (responseId: string) =>
      t.db.query<{ id: string; superseded_by: string | null; verified: boolean }>(
        'SELECT id, superseded_by, verified FROM feedback_events WHERE workspace_id = $1 AND response_id = $2 ORDER BY id',
        [t.workspaceId, responseId],
      );
    const register = async (id: string) => expect((await post('/v1/responses', { id, query: `q ${id}`, answer: 'a' }, secret())).statusCode).toBe(201);

    beforeAll(async () => {
      t = await startTestApp(await backend.open());
    });
    afterAll(async () => {
      await t.close();
    });

    it('a public-key vote under a userId that voted with a secret key is stored but not current', async () => {
      await register('r-t1');
      await vote(secret(), { id: 's-1', responseId: 'r-t1', type: 'thumbs_up', userId: 'victim', occurredAt: ago(60_000) });
      // Newer by the clock, but unverified: it must not replace the victim's vote.
      await vote(pub(), { id: 'p-1', responseId: 'r-t1', type: 'thumbs_down', userId: 'victim' });
      expect(await slot('r-t1')).toEqual([
        { id: 'p-1', superseded_by: 's-1', verified: false },
        { id: 's-1', superseded_by: null, verified: true },
      ]);
    });

    it('a secret-key vote replaces a public one, even one dated later', async () => {
      await register('r-t2');
      await vote(pub(), { id: 'p-2', responseId: 'r-t2', type: 'thumbs_down', userId: 'u2' });
      await vote(secret(), { id: 's-2', responseId: 'r-t2', type: 'thumbs_up', userId: 'u2', occurredAt: ago(30_000) });
      expect(await slot('r-t2')).toEqual([
        { id: 'p-2', superseded_by: 's-2', verified: false },
        { id: 's-2', superseded_by: null, verified: true },
      ]);
    });

    it('public votes replace each other, and secret votes each other, newest first as before', async () => {
      await register('r-t3');
      await vote(pub(), { id: 'p-3a', responseId: 'r-t3', type: 'thumbs_up', userId: 'u3' });
      await new Promise((r) => setTimeout(r, 5));
      await vote(pub(), { id: 'p-3b', responseId: 'r-t3', type: 'thumbs_down', userId: 'u3' });
      expect((await slot('r-t3')).filter((r) => r.superseded_by === null).map((r) => r.id)).toEqual(['p-3b']);
      await vote(secret(), { id: 's-3a', responseId: 'r-t3', type: 'thumbs_up', userId: 'u3', occurredAt: ago(60_000) });
      await vote(secret(), { id: 's-3b', responseId: 'r-t3', type: 'thumbs_down', userId: 'u3', occurredAt: ago(30_000) });
      await vote(secret(), { id: 's-3c', responseId: 'r-t3', type: 'thumbs_up', userId: 'u3', occurredAt: ago(120_000) });
      const rows = await slot('r-t3');
      expect(rows.filter((r) => r.superseded_by === null).map((r) => r.id)).toEqual(['s-3b']);
      expect(rows.find((r) => r.id === 's-3c')?.superseded_by).toBe('s-3b');
    });

    it('a public and a secret vote sharing one group-commit flush: the secret one stays current', async () => {
      await register('r-t4');
      await Promise.all([
        vote(pub(), { id: 'p-4', responseId: 'r-t4', type: 'thumbs_down', userId: 'u4' }),
        vote(secret(), { id: 's-4', responseId: 'r-t4', type: 'thumbs_up', userId: 'u4', occurredAt: ago(50_000) }),
        vote(pub(), { id: 'p-4b', responseId: 'r-t4', type: 'thumbs_down', userId: 'u4b' }),
      ]);
      const rows = await slot('r-t4');
      expect(rows.filter((r) => r.superseded_by === null).map((r) => r.id).sort()).toEqual(['p-4b', 's-4']);
      expect(rows.find((r) => r.id === 'p-4')?.superseded_by).toBe('s-4');
    });
  });
}
