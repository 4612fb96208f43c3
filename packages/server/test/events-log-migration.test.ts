/**
 * Migration 0005 (the event log) upgrades a database with data in it: a schema built by the
 * migrations before it, filled the way those versions wrote (votes, a replaced vote, a content
 * duplicate, events of an earlier month, a processed event, outbox rows), is migrated, and then
 * nothing is lost and everything reads, dedups and processes as before. Also: the sweep's upkeep
 * makes the months ahead and moves stray rows out of the default partition.
 */
import { createHash, randomBytes } from 'node:crypto';
import { contentFingerprint, voteSlot, type FeedbackEvent } from '@feedloop/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../src/db/migrate.js';
import { openPglite } from '../src/db/pglite-client.js';
import type { SqlClient } from '../src/db/sql-client.js';
import { upkeepEventLog } from '../src/store/event-log-upkeep.js';
import { rescoreDirtyResponses } from '../src/pipeline/rescore.js';
import { BACKENDS, openPostgresSchema, startTestApp, type TestApp, type TestDatabase } from './harness.js';

const LAST_BEFORE = 4;

const COMMENT = { responseId: 'r-new', type: 'comment', userId: 'u1', payload: { comment: 'too vague' } } as const;
/** The content hash the writer stores for an event (see feedback-writer.ts). */
const hashOf = (event: object): string =>
  createHash('sha1').update(contentFingerprint(event as FeedbackEvent) ?? '').digest('base64url');

/** A database migrated only up to `LAST_BEFORE`. */
async function openPrevious(name: 'pglite' | 'postgres'): Promise<TestDatabase> {
  const previous = loadMigrations().filter((m) => m.version <= LAST_BEFORE);
  if (name === 'pglite') {
    const db = await openPglite(undefined);
    await migrate(db, previous);
    return { db, close: () => db.close().catch(() => undefined) };
  }
  return openPostgresSchema(previous);
}

const ALL_COLUMNS = `seq, workspace_id, id, response_id, type, source, user_id, session_id, target_id, payload, metadata, edit_distance,
  occurred_at, received_at, content_hash, voter, vote_slot, duplicate_of, superseded_by, verified`;

/** Fills a version-4 database as that version's writer did; returns the workspace id. */
async function fillPrevious(db: SqlClient, now: Date): Promise<string> {
  const ws = `ws_${randomBytes(4).toString('hex')}`;
  await db.query(`INSERT INTO workspaces (id, name) VALUES ($1, $1)`, [ws]);
  const ago = (ms: number): string => new Date(now.getTime() - ms).toISOString();
  const threeMonths = 92 * 24 * 3600_000;
  await db.query(
    `INSERT INTO responses (workspace_id, id, session_id, query, answer, created_at) VALUES
       ($1, 'r-old', 's-1', 'q', 'an old answer', $2), ($1, 'r-new', 's-1', 'q', 'the refund window is 14 days', $3)`,
    [ws, ago(threeMonths + 3600_000), ago(3600_000)],
  );
  const ev = (id: string, response: string, type: string, payload: object, at: string, extra: Record<string, unknown> = {}) => ({
    id, response_id: response, type, payload, occurred_at: at, received_at: at, user_id: 'u1', session_id: null, edit_distance: null,
    content_hash: null, voter: null, vote_slot: null, duplicate_of: null, superseded_by: null, verified: true,
    source: type === 'implicit_accept' ? 'implicit' : type === 'correction' ? 'correction' : 'explicit', ...extra,
    ...(extra.voter ? { vote_slot: voteSlot({ type, responseId: response, payload, userId: extra.user_id ?? 'u1' } as FeedbackEvent) } : {}),
  });
  const rows = [
    // An earlier month: a vote, replaced this month by the same voter's newer vote.
    ev('e-old-up', 'r-old', 'thumbs_up', {}, ago(threeMonths), { voter: 'u1', superseded_by: 'e-old-down' }),
    ev('e-old-rating', 'r-old', 'rating', { rating: 4 }, ago(threeMonths - 1000), { voter: 'u2', user_id: 'u2' }),
    ev('e-old-down', 'r-old', 'thumbs_down', {}, ago(60_000), { voter: 'u1' }),
    // This month: a comment, its content duplicate, a correction, a current vote.
    ev('e-comment', 'r-new', 'comment', { comment: 'too vague' }, ago(2_000), { content_hash: hashOf(COMMENT), session_id: 's-9' }),
    ev('e-comment-dup', 'r-new', 'comment', { comment: 'too vague' }, ago(1_000), { content_hash: hashOf(COMMENT), duplicate_of: 'e-comment' }),
    ev('e-fix', 'r-new', 'correction', { corrected: 'the refund window is 30 days' }, ago(1_500), { edit_distance: 7, user_id: 'u3' }),
    ev('e-up', 'r-new', 'thumbs_up', {}, ago(500), { voter: 'u4', user_id: 'u4', verified: false }),
  ];
  await db.query(
    `INSERT INTO feedback_events (workspace_id, id, response_id, type, source, user_id, session_id, payload, edit_distance, occurred_at,
                                  received_at, content_hash, voter, vote_slot, duplicate_of, superseded_by, verified)
     SELECT $1, id, response_id, type, source, user_id, session_id, payload, edit_distance, occurred_at, received_at, content_hash,
            voter, vote_slot, duplicate_of, superseded_by, verified
       FROM json_to_recordset($2::json) AS x(id text, response_id text, type text, source text, user_id text, session_id text, payload jsonb,
            edit_distance smallint, occurred_at timestamptz, received_at timestamptz, content_hash text, voter text, vote_slot text,
            duplicate_of text, superseded_by text, verified boolean)`,
    [ws, JSON.stringify(rows)],
  );
  // The earlier month was processed (its signal is stored); the rest waits in the outbox.
  await db.query(
    `INSERT INTO feedback_signals (workspace_id, event_id, response_id, user_id, type, status, polarity, signal_class, value, weight,
                                   learning_signal, occurred_at)
     VALUES ($1, 'e-old-rating', 'r-old', 'u2', 'rating', 'counted', 'positive', 'explicit_positive', 0.75, 1,
             '{"signal_type": "rating", "expected_output": null, "reward": 0.75, "context": {}}', $2)`,
    [ws, ago(threeMonths - 1000)],
  );
  await db.query(
    `INSERT INTO pipeline_pending (workspace_id, event_id) SELECT $1, id FROM feedback_events WHERE workspace_id = $1 AND id <> 'e-old-rating'`,
    [ws],
  );
  return ws;
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`migration 0005, the event log (${backend.name})`, () => {
    let database: TestDatabase;
    let ws: string;
    let before: unknown[];
    let t: TestApp;
    const now = new Date();

    beforeAll(async () => {
      database = await openPrevious(backend.name);
      ws = await fillPrevious(database.db, now);
      before = await database.db.query(`SELECT ${ALL_COLUMNS} FROM feedback_events ORDER BY seq`);
      const report = await migrate(database.db);
      expect(report.applied.map((a) => a.version)).toEqual(loadMigrations().filter((m) => m.version > LAST_BEFORE).map((m) => m.version));
      t = await startTestApp(database);
      // The app made a workspace of its own; this suite reads the one filled before the upgrade.
      await t.db.query('UPDATE api_keys SET workspace_id = $1 WHERE workspace_id = $2', [ws, t.workspaceId]);
    });
    afterAll(async () => {
      await t.close();
    });

    const get = (url: string) => t.app.inject({ method: 'GET', url, headers: t.auth });
    const post = (payload: object) => t.app.inject({ method: 'POST', url: '/v1/feedback', headers: t.auth, payload });

    it('keeps every event, column for column, each in its month, each id in the key table', async () => {
      expect(await t.db.query(`SELECT ${ALL_COLUMNS} FROM feedback_events ORDER BY seq`)).toEqual(before);
      const [ids] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM feedback_event_ids WHERE workspace_id = $1', [ws]);
      expect(ids?.n).toBe(before.length);
      const [stray] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM feedback_events_default');
      expect(stray?.n).toBe(0);
      const months = await t.db.query<{ m: string }>(
        `SELECT DISTINCT tableoid::regclass::text AS m FROM feedback_events WHERE workspace_id = $1 ORDER BY m`,
        [ws],
      );
      expect(months.length).toBe(2);
    });

    it('lists the same feedback (GET /v1/feedback) and reads the responses (GET /v1/responses/:id)', async () => {
      const page = (await get('/v1/feedback?limit=100')).json() as { data: Array<{ id: string; supersededBy: string | null }> };
      expect(page.data.map((e) => e.id)).toEqual(['e-up', 'e-fix', 'e-comment', 'e-old-down', 'e-old-rating', 'e-old-up']);
      expect(page.data.find((e) => e.id === 'e-old-up')?.supersededBy).toBe('e-old-down');
      expect((await get('/v1/feedback?userId=u3')).json().data.map((e: { id: string }) => e.id)).toEqual(['e-fix']);
      expect((await get('/v1/feedback?sessionId=s-9')).json().data.map((e: { id: string }) => e.id)).toEqual(['e-comment']);
      expect((await get('/v1/responses/r-new')).statusCode).toBe(200);
    });

    it('processes the outbox left by the old version, and scores with the signal stored before', async () => {
      const pending = await t.db.query<{ event_id: string }>('SELECT event_id FROM pipeline_pending WHERE workspace_id = $1', [ws]);
      expect(pending.length).toBe(before.length - 1);
      await t.services.pipeline.process(pending.map((p) => [ws, p.event_id] as [string, string]));
      const signals = await t.db.query<{ event_id: string; status: string }>(
        'SELECT event_id, status FROM feedback_signals WHERE workspace_id = $1 ORDER BY event_id',
        [ws],
      );
      expect(signals.map((s) => `${s.event_id}:${s.status}`)).toEqual([
        'e-comment:counted',
        'e-comment-dup:dropped',
        'e-fix:counted',
        'e-old-down:counted',
        'e-old-rating:counted',
        'e-old-up:dropped',
        'e-up:counted',
      ]);
      expect((await t.db.query('SELECT 1 FROM pipeline_pending WHERE workspace_id = $1', [ws])).length).toBe(0);
      await rescoreDirtyResponses(t.db);
      const old = (await get('/v1/responses/r-old')).json() as { quality: { signalCount: number } };
      expect(old.quality.signalCount).toBe(2); // the rating and the current thumbs down; the replaced thumbs up left out
    });

    it('answers a retry of a stored id duplicate, and a stored content inside its window duplicate', async () => {
      expect((await post({ id: 'e-up', responseId: 'r-new', type: 'thumbs_up', userId: 'u4' })).json().status).toBe('duplicate');
      // Within the 10 s window of the stored comment (the suite's earlier steps take their time).
      const within = new Date(now.getTime() - 1_500).toISOString();
      expect((await post({ id: 'e-comment-again', ...COMMENT, occurredAt: within })).json().status).toBe('duplicate');
      const [stored] = await t.db.query<{ duplicate_of: string }>(`SELECT duplicate_of FROM feedback_events WHERE id = 'e-comment-again'`);
      expect(stored?.duplicate_of).toBe('e-comment');
    });

    it('replaces a vote stored before the upgrade (in its own month) by a newer one', async () => {
      expect((await post({ id: 'e-up-verified', responseId: 'r-new', type: 'thumbs_down', userId: 'u4' })).json().status).toBe('accepted');
      const [old] = await t.db.query<{ superseded_by: string | null }>('SELECT superseded_by FROM feedback_events WHERE workspace_id = $1 AND id = $2', [ws, 'e-up']);
      expect(old?.superseded_by).toBe('e-up-verified');
    });

    it('expires fingerprints whose window has closed, after which the same content counts again', async () => {
      const later = new Date(Date.now() + 3600_000);
      expect((await upkeepEventLog(t.db, later)).fingerprintsExpired).toBeGreaterThan(0);
      expect((await t.db.query('SELECT 1 FROM feedback_fingerprints')).length).toBe(0);
    });
    it('makes the months ahead, and moves rows that landed in the default partition into their month', async () => {
      const future = new Date(Date.UTC(2031, 4, 10));
      await t.db.query(
        `INSERT INTO feedback_events (workspace_id, id, response_id, type, source, payload, occurred_at, received_at)
         VALUES ($1, 'e-future', 'r-new', 'thumbs_up', 'explicit', '{}', $2, $2)`,
        [ws, future.toISOString()],
      );
      expect((await t.db.query('SELECT 1 FROM feedback_events_default')).length).toBe(1);
      const upkeep = await upkeepEventLog(t.db, future);
      expect(upkeep.partitionsCreated).toBe(3);
      expect((await t.db.query('SELECT 1 FROM feedback_events_default')).length).toBe(0);
      const [row] = await t.db.query<{ part: string }>(`SELECT tableoid::regclass::text AS part FROM feedback_events WHERE id = 'e-future'`);
      expect(row?.part).toMatch(/feedback_events_2031_05$/);
      expect((await upkeepEventLog(t.db, future)).partitionsCreated).toBe(0);
    });

  });
}
