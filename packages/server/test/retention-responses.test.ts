/**
 * Issue 24, retention as ADR-016 says it, on both stores: a response whose events are all past
 * retention (or that has none, and is itself past it) is archived beside the events, in monthly
 * named files, and removed from the hot tables; Phase 4.1's 100K-entry cap is the embedded
 * profile's default.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { runRetention } from '../src/pipeline/retention.js';
import { deleteOrphanResponses } from '../src/store/response-removal.js';
import { readOrphanResponses } from '../src/store/retention-reads.js';
import { rollupDirtyDays } from '../src/pipeline/rollup.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'feedloop-retention-responses-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const DAY_MS = 86_400_000;
const linesOf = (path: string): Array<Record<string, unknown>> =>
  gunzipSync(readFileSync(path)).toString('utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

describe('the embedded profile takes Phase 4.1 limits as defaults', () => {
  it('caps a workspace at 100,000 events on the embedded database, none on Postgres, FEEDLOOP_MAX_EVENTS overrides', () => {
    expect(loadConfig({}).defaultMaxEvents).toBe(100_000);
    expect(loadConfig({ DATABASE_URL: 'postgres://x@127.0.0.1/db' }).defaultMaxEvents).toBeNull();
    expect(loadConfig({ FEEDLOOP_MAX_EVENTS: 'none' }).defaultMaxEvents).toBeNull();
    expect(loadConfig({ DATABASE_URL: 'postgres://x@127.0.0.1/db', FEEDLOOP_MAX_EVENTS: '5000' }).defaultMaxEvents).toBe(5000);
    expect(() => loadConfig({ FEEDLOOP_MAX_EVENTS: '-3' })).toThrow(/FEEDLOOP_MAX_EVENTS/);
  });
});

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`retention of responses on ${backend.name}`, () => {
    let t: TestApp;
    const req = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
      t.app.inject({ method, url, headers: t.auth, ...(payload ? { payload } : {}) });
    const responseIds = async (): Promise<string[]> =>
      (await t.db.query<{ id: string }>('SELECT id FROM responses WHERE workspace_id = $1 ORDER BY id', [t.workspaceId])).map((r) => r.id);
    const longAgo = new Date(Date.now() - 100 * DAY_MS).toISOString();

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), {}, { worker: true });
      expect((await req('PATCH', '/v1/workspace/settings', { feedbackWindowHours: 24 * 200 })).statusCode).toBe(200);
      const res = await req('POST', '/v1/responses/batch', {
        responses: [
          { id: 'rr-quiet', query: 'an old question nobody rated', answer: 'an old answer', createdAt: longAgo, experimentId: 'exp-r', variant: 'control' },
          { id: 'rr-active', query: 'an old question rated today', answer: 'still useful', createdAt: longAgo },
          { id: 'rr-new', query: 'a new question', answer: 'a new answer' },
        ],
      });
      expect(res.statusCode).toBe(207);
      expect((await req('POST', '/v1/feedback', { id: 'rr-e1', responseId: 'rr-active', type: 'thumbs_up', userId: 'u1' })).statusCode).toBe(202);
      await t.services.pipeline.idle(10_000);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('leaves a response created long ago but received today for its feedback, then takes the orphan the day after', async () => {
      // An import registers old responses, then posts their feedback: the run in between (one runs
      // as a worker starts) must not take them.
      expect(await runRetention(t.db, { archive: join(dir, `${backend.name}-today`) })).toMatchObject({ archived: 0, archivedResponses: 0 });
      expect(await responseIds()).toEqual(['rr-active', 'rr-new', 'rr-quiet']);
    });

    it('keeps a response whose first event came while its archive was written, with that event counted', async () => {
      const created = await req('POST', '/v1/responses', { id: 'rr-raced', query: 'an old question rated at last', answer: 'an old answer', createdAt: longAgo });
      expect(created.statusCode).toBe(201);
      const read = await readOrphanResponses(t.db, t.workspaceId, { createdBefore: new Date(Date.now() - DAY_MS), receivedBefore: new Date(Date.now() + DAY_MS) }, 100);
      expect(read.map((r) => r.id).sort()).toEqual(['rr-quiet', 'rr-raced']);
      // Between retention's read and its delete, the response's first feedback comes.
      expect((await req('POST', '/v1/feedback', { id: 'rr-e2', responseId: 'rr-raced', type: 'thumbs_down', userId: 'u2' })).statusCode).toBe(202);
      await t.services.pipeline.idle(10_000);
      expect(await t.db.transaction((tx) => deleteOrphanResponses(tx, t.workspaceId, ['rr-raced']))).toEqual([]);
      const signal = await t.db.query<{ status: string }>(`SELECT status FROM feedback_signals WHERE workspace_id = $1 AND event_id = 'rr-e2'`, [t.workspaceId]);
      expect(signal).toEqual([{ status: 'counted' }]);
      expect((await req('GET', '/v1/responses/rr-raced')).statusCode).toBe(200);
    });

    it('archives a response past retention with no event left, in a monthly file, and removes it from the hot tables', async () => {
      const archive = join(dir, backend.name);
      const report = await runRetention(t.db, { archive, now: new Date(Date.now() + 2 * DAY_MS) });
      expect(report.archived).toBe(0);
      expect(report.archivedResponses).toBe(1);
      expect(await responseIds()).toEqual(['rr-active', 'rr-new', 'rr-raced']);
      const files = readdirSync(join(archive, t.workspaceId));
      const month = longAgo.slice(0, 7);
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(new RegExp(`^responses-${month}-.*\\.jsonl\\.gz$`));
      const [line] = linesOf(join(archive, t.workspaceId, files[0] ?? ''));
      expect(line).toMatchObject({ id: 'rr-quiet', query: 'an old question nobody rated', answer: 'an old answer', experimentId: 'exp-r', variant: 'control' });
      // What hung off it went too; the audit log says so.
      for (const table of ['response_scores', 'response_list_tags', 'experiment_response_facts', 'score_dirty']) {
        expect(await t.db.query(`SELECT 1 FROM ${table} WHERE workspace_id = $1 AND response_id = 'rr-quiet'`, [t.workspaceId]), table).toEqual([]);
      }
      const audit = (await req('GET', '/v1/audit?action=retention.archived')).json();
      expect(audit.entries[0].details).toMatchObject({ responses: 1 });
      expect((await req('GET', '/v1/responses/rr-quiet')).statusCode).toBe(404);
      // Nothing more: a second run archives nothing.
      expect(await runRetention(t.db, { archive, now: new Date(Date.now() + 2 * DAY_MS) })).toMatchObject({ archived: 0, archivedResponses: 0 });
    });

    it('once its events are past retention, a response goes with them; events files are named by month too', async () => {
      const archive = join(dir, `${backend.name}-later`);
      const later = new Date(Date.now() + 100 * DAY_MS);
      const report = await runRetention(t.db, { archive, now: later });
      expect(report.archived).toBe(2);
      expect(report.archivedResponses).toBe(3);
      expect(await responseIds()).toEqual([]);
      const files = report.files.filter((f) => f.includes(t.workspaceId));
      const events = files.filter((f) => /\/events-\d{4}-\d{2}-/.test(f) || /\/events-\d{4}_\d{2}-/.test(f));
      const responses = files.filter((f) => /\/responses-\d{4}-\d{2}-/.test(f));
      expect(events.length).toBeGreaterThanOrEqual(1);
      expect(responses.flatMap((f) => linesOf(f).map((l) => l.id)).sort()).toEqual(['rr-active', 'rr-new', 'rr-raced']);
    });

    it('caps a workspace at the deployment default when it sets no maxEvents', async () => {
      const ids = ['cap-1', 'cap-2', 'cap-3', 'cap-4'];
      expect((await req('POST', '/v1/responses/batch', { responses: [{ id: 'rr-cap', query: 'q', answer: 'a' }] })).statusCode).toBe(207);
      for (const id of ids) expect((await req('POST', '/v1/feedback', { id, responseId: 'rr-cap', type: 'comment', userId: `u-${id}`, payload: { comment: id } })).statusCode).toBe(202);
      await t.services.pipeline.idle(10_000);
      const report = await runRetention(t.db, { archive: join(dir, `${backend.name}-cap`), defaultMaxEvents: 3 });
      expect(report.archived).toBe(1);
      const left = await t.db.query<{ id: string }>('SELECT id FROM feedback_events WHERE workspace_id = $1 ORDER BY id', [t.workspaceId]);
      expect(left.map((r) => r.id)).toEqual(['cap-2', 'cap-3', 'cap-4']);
    });

    it('leaves an event past the cap that waits for processing until it is processed, so the figures count it', async () => {
      // A pipeline that has not run yet (a backlog after a restart): the events wait in the outbox.
      const w = await startTestApp(await backend.open());
      try {
        const call = (method: 'GET' | 'POST', url: string, payload?: object) => w.app.inject({ method, url, headers: w.auth, ...(payload ? { payload } : {}) });
        expect((await call('POST', '/v1/responses/batch', { responses: [{ id: 'rr-wait', query: 'q', answer: 'a' }] })).statusCode).toBe(207);
        const waiting = ['wait-1', 'wait-2', 'wait-3'];
        for (const id of waiting) expect((await call('POST', '/v1/feedback', { id, responseId: 'rr-wait', type: 'thumbs_up', userId: `u-${id}` })).statusCode).toBe(202);
        const left = async () => (await w.db.query<{ id: string }>('SELECT id FROM feedback_events WHERE workspace_id = $1 ORDER BY id', [w.workspaceId])).map((r) => r.id);
        const archive = join(dir, `${backend.name}-wait`);
        expect((await runRetention(w.db, { archive, defaultMaxEvents: 1 })).archived).toBe(0);
        expect(await left()).toEqual(waiting);
        // Processed and rolled up, they count; then the cap lets the two older ones go, and the figures keep them.
        await w.services.pipeline.process(waiting.map((id) => [w.workspaceId, id] as [string, string]));
        await rollupDirtyDays(w.db, { workspaceId: w.workspaceId });
        expect((await runRetention(w.db, { archive, defaultMaxEvents: 1 })).archived).toBe(2);
        expect(await left()).toEqual(['wait-3']);
        const stats = await call('GET', '/v1/stats');
        expect(stats.statusCode, stats.body).toBe(200);
        expect(stats.json().positive).toBe(3);
      } finally {
        await w.close();
      }
    });
  });
}
