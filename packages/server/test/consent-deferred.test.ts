/**
 * Consent checked by the write instead of a read before it (ingest/consent-reader.ts `mayDefer`,
 * migration 0052): a request of a few users in a workspace not seen with stated consent skips the
 * read, and the write holds back any event whose user has a consent row; ingest then reads and
 * decides. An opt-out made before the request must still stop its events, and an opt-in must still
 * let them through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlExecutor } from '../src/db/sql-client.js';
import { ConsentReader, DEFERRED_CHECK_MAX_USERS } from '../src/ingest/consent-reader.js';
import { screenFeedback } from '../src/ingest/privacy-screen.js';
import { changeConsent } from '../src/store/consent.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';
import { resolveWorkspaceSettings, type FeedbackEvent } from '@feedloop/core';

describe('when ingest may leave consent to the write', () => {
  const reader = new ConsentReader({ query: async () => [], exec: async () => undefined });
  it('defers for a request of a few users, not for a batch of many', () => {
    expect(reader.mayDefer('ws-a', 1, 0)).toBe(true);
    expect(reader.mayDefer('ws-a', DEFERRED_CHECK_MAX_USERS, 0)).toBe(true);
    expect(reader.mayDefer('ws-a', DEFERRED_CHECK_MAX_USERS + 1, 0)).toBe(false);
  });
  it('reads first for five minutes once a workspace is seen with stated consent, in that workspace only', () => {
    reader.noteStated('ws-b', 1_000);
    expect(reader.mayDefer('ws-b', 1, 1_000)).toBe(false);
    expect(reader.mayDefer('ws-b', 1, 1_000 + 299_999)).toBe(false);
    expect(reader.mayDefer('ws-c', 1, 1_000)).toBe(true);
    expect(reader.mayDefer('ws-b', 1, 1_000 + 300_001)).toBe(true);
  });
});

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`consent left to the write on ${backend.name}`, () => {
    let t: TestApp;
    const post = (url: string, payload: object, auth = t.auth) => t.app.inject({ method: 'POST', url, headers: auth, payload });

    beforeAll(async () => {
      t = await startTestApp(await backend.open());
      expect((await post('/v1/responses/batch', { responses: [{ id: 'd-r1', query: 'q', answer: 'a' }, { id: 'd-r2', query: 'q', answer: 'b' }] })).statusCode).toBe(207);
    });
    afterAll(() => t?.close());

    it('screens without a read where nobody stated consent, and reads only users whom "nothing stated" would refuse', async () => {
      let statements = 0;
      const counting: SqlExecutor = { query: (text, params) => (statements++, t.db.query(text, params)), exec: (s) => t.db.exec(s) };
      const settings = resolveWorkspaceSettings({ implicitConsent: 'required' });
      const events = [
        { id: 's1', responseId: 'd-r1', type: 'thumbs_up', userId: 'su1', payload: {} },
        { id: 's2', responseId: 'd-r1', type: 'implicit_accept', userId: 'su2', payload: {} },
        { id: 's3', responseId: 'd-r1', type: 'thumbs_up', source: 'judge', metadata: { evaluatorId: 'e1' }, userId: 'su3', payload: {} },
      ] as Array<FeedbackEvent & { id: string }>;
      const screened = await screenFeedback(new ConsentReader(counting), t.workspaceId, settings, events);
      // su2's implicit signal needs a stated opt-in: su2 is read (no row: refused). A judge's event
      // is read too (its votes are its evaluator's, across users). su1 is not read.
      expect(statements).toBe(1);
      expect(screened.map((s) => (s.kind === 'write' ? `write unread=${s.consentUnread}` : s.kind))).toEqual(['write unread=true', 'rejected', 'write unread=false']);
      statements = 0;
      const read = await screenFeedback(new ConsentReader(counting), t.workspaceId, settings, events, { read: true });
      expect(statements).toBe(1);
      expect(read.map((s) => (s.kind === 'write' ? `write unread=${s.consentUnread}` : s.kind))).toEqual(['write unread=false', 'rejected', 'write unread=false']);
    });

    it('stops the events of a user who opted out before, though no read came before the write; the others of the batch are stored', async () => {
      // Stated straight in the database, as another process would: this process's reader never saw it.
      const { workspaceId, secretKey } = await t.otherWorkspace();
      const auth = { authorization: `Bearer ${secretKey}` };
      expect((await post('/v1/responses', { id: 'o-r1', query: 'q', answer: 'a' }, auth)).statusCode).toBe(201);
      await changeConsent(t.db, workspaceId, 'opted-out', { explicit: false });
      const single = await post('/v1/feedback', { id: 'o-1', responseId: 'o-r1', type: 'thumbs_up', userId: 'opted-out' }, auth);
      expect(single.statusCode).toBe(403);
      expect(single.json().error.code).toBe('FEEDLOOP_ERR_CONSENT_REQUIRED');
      const batch = await post(
        '/v1/feedback/batch',
        {
          events: [
            { id: 'o-2', responseId: 'o-r1', type: 'rating', userId: 'opted-out', payload: { rating: 2 } },
            { id: 'o-3', responseId: 'o-r1', type: 'rating', userId: 'someone', payload: { rating: 4 } },
            { id: 'o-4', responseId: 'o-r1', type: 'comment', userId: 'opted-out', payload: { comment: 'no' } },
          ],
        },
        auth,
      );
      expect(batch.statusCode).toBe(207);
      expect(batch.json().results.map((r: { status: string; error?: { code: string } }) => r.error?.code ?? r.status)).toEqual([
        'FEEDLOOP_ERR_CONSENT_REQUIRED',
        'accepted',
        'FEEDLOOP_ERR_CONSENT_REQUIRED',
      ]);
      // Nothing of a held event was written: not its key, not its log row, not its outbox row.
      const ids = (sql: string) => t.db.query<{ id: string }>(sql, [workspaceId]).then((rows) => rows.map((r) => r.id).sort());
      expect(await ids('SELECT id FROM feedback_events WHERE workspace_id = $1')).toEqual(['o-3']);
      expect(await ids('SELECT id FROM feedback_event_ids WHERE workspace_id = $1')).toEqual(['o-3']);
      expect(await ids('SELECT event_id AS id FROM pipeline_pending WHERE workspace_id = $1')).toEqual(['o-3']);
    });

    it('lets through the implicit signals of a user who opted in, where the workspace requires it', async () => {
      const { workspaceId, secretKey } = await t.otherWorkspace();
      const auth = { authorization: `Bearer ${secretKey}` };
      expect((await t.app.inject({ method: 'PATCH', url: '/v1/workspace/settings', headers: auth, payload: { implicitConsent: 'required' } })).statusCode).toBe(200);
      expect((await post('/v1/responses', { id: 'i-r1', query: 'q', answer: 'a' }, auth)).statusCode).toBe(201);
      await changeConsent(t.db, workspaceId, 'opted-in', { implicit: true });
      expect((await post('/v1/feedback', { id: 'i-1', responseId: 'i-r1', type: 'implicit_accept', userId: 'opted-in' }, auth)).statusCode).toBe(202);
      expect((await post('/v1/feedback', { id: 'i-2', responseId: 'i-r1', type: 'implicit_accept', userId: 'silent' }, auth)).statusCode).toBe(403);
      expect((await post('/v1/feedback', { id: 'i-3', responseId: 'i-r1', type: 'thumbs_up', userId: 'silent' }, auth)).statusCode).toBe(202);
      const stored = await t.db.query<{ id: string }>('SELECT id FROM feedback_events WHERE workspace_id = $1 ORDER BY id', [workspaceId]);
      expect(stored.map((r) => r.id)).toEqual(['i-1', 'i-3']);
    });
  });
}
