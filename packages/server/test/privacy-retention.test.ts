/**
 * Retention on both stores: events past `retentionDays` and beyond `maxEventsPerUser` are
 * archived as gzip JSONL (a folder, and a real S3-compatible server: s3rver) and deleted with
 * what hangs off them; rollups stay. On Postgres whole month partitions are dropped.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollupDirtyDays } from '../src/pipeline/rollup.js';
import { runRetention } from '../src/pipeline/retention.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const S3rver = createRequire(import.meta.url)('s3rver') as new (options: Record<string, unknown>) => S3rverInstance;
const dir = mkdtempSync(join(tmpdir(), 'feedloop-retention-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const DAY_MS = 86_400_000;

const linesOf = (gz: Buffer): Array<{ id: string; userId: string | null }> =>
  gunzipSync(gz).toString('utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; userId: string | null });

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`retention on ${backend.name}`, () => {
    let t: TestApp;
    const req = (method: 'POST' | 'PATCH', url: string, payload: object) => t.app.inject({ method, url, headers: t.auth, payload });
    const eventIds = async (): Promise<string[]> =>
      (await t.db.query<{ id: string }>('SELECT id FROM feedback_events WHERE workspace_id = $1 ORDER BY id', [t.workspaceId])).map((r) => r.id);

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), {}, { worker: true });
      await req('POST', '/v1/responses/batch', { responses: [{ id: 'rt-r1', query: 'q', answer: 'a' }] });
      const events = ['a', 'b', 'c', 'd'].map((n) => ({ id: `rt-u1-${n}`, responseId: 'rt-r1', type: 'comment', userId: 'u1', payload: { comment: `note ${n}` } }));
      for (const e of [...events, { id: 'rt-u2-a', responseId: 'rt-r1', type: 'thumbs_up', userId: 'u2' }]) {
        expect((await req('POST', '/v1/feedback', e)).statusCode).toBe(202);
      }
      await t.services.pipeline.idle(10_000);
      await rollupDirtyDays(t.db, { workspaceId: t.workspaceId });
    });
    afterAll(async () => {
      await t?.close();
    });

    it('archives and deletes a user’s events beyond maxEventsPerUser, oldest first', async () => {
      await req('PATCH', '/v1/workspace/settings', { maxEventsPerUser: 2 });
      // Both users' memory snapshots (docs/memory.md) hold facts of their events.
      const snapshots = async () =>
        (await t.db.query<{ user_id: string }>('SELECT user_id FROM user_memory_snapshots WHERE workspace_id = $1 ORDER BY user_id', [t.workspaceId])).map((r) => r.user_id);
      for (const user of ['u1', 'u2']) await t.app.inject({ method: 'GET', url: `/v1/users/${user}/context`, headers: t.auth });
      expect(await snapshots()).toEqual(['u1', 'u2']);
      const archive = join(dir, `files-${backend.name}`);
      const report = await runRetention(t.db, { archive });
      expect(report.archived).toBe(2);
      expect(await eventIds()).toEqual(['rt-u1-c', 'rt-u1-d', 'rt-u2-a']);
      // The snapshot holding the deleted events goes with them; the other user's stays.
      expect(await snapshots()).toEqual(['u2']);
      expect((await t.app.inject({ method: 'GET', url: '/v1/users/u1/context', headers: t.auth })).json().eventsRead).toBe(2);
      const [file] = readdirSync(join(archive, t.workspaceId));
      const lines = linesOf(readFileSync(join(archive, t.workspaceId, file ?? '')));
      expect(lines.map((l) => l.id)).toEqual(['rt-u1-a', 'rt-u1-b']);
      const signals = await t.db.query('SELECT 1 FROM feedback_signals WHERE workspace_id = $1 AND event_id IN ($2, $3)', [t.workspaceId, 'rt-u1-a', 'rt-u1-b']);
      expect(signals).toEqual([]);
      // Nothing more to do: a second run archives nothing.
      expect((await runRetention(t.db, { archive })).archived).toBe(0);
    });

    it('archives everything past retentionDays to S3, keeps the rollups, and drops whole months on Postgres', async () => {
      await req('PATCH', '/v1/workspace/settings', { maxEventsPerUser: null, retentionDays: 30 });
      const s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: join(dir, `s3-${backend.name}`), configureBuckets: [{ name: 'archive' }] });
      const endpoint = `http://127.0.0.1:${(await s3.run()).port}`;
      Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1', AWS_ENDPOINT_URL_S3: endpoint });
      try {
        const rollupsBefore = await t.db.query('SELECT day, total_events FROM feedback_metrics_daily WHERE workspace_id = $1 ORDER BY day, dimension, dimension_value', [t.workspaceId]);
        expect(rollupsBefore.length).toBeGreaterThan(0);
        // A day comes when every month stored so far is past every workspace's retention.
        const later = new Date(Date.now() + 200 * DAY_MS);
        const report = await runRetention(t.db, { archive: 's3://archive/feedloop', s3: { endpoint }, now: later });
        expect(report.archived).toBeGreaterThanOrEqual(3);
        expect(await eventIds()).toEqual([]);
        expect(await t.db.query('SELECT 1 FROM feedback_event_ids WHERE workspace_id = $1', [t.workspaceId])).toEqual([]);
        if (backend.name === 'postgres') expect(report.droppedPartitions.length).toBeGreaterThanOrEqual(1);
        else expect(report.droppedPartitions).toEqual([]);
        const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
        const ids: string[] = [];
        // Events files only: the response, its events all gone, is archived beside them (responses-…).
        for (const file of report.files.filter((f) => f.includes(t.workspaceId) && f.includes('/events-'))) {
          const key = file.slice('s3://archive/'.length);
          const body = await (await client.send(new GetObjectCommand({ Bucket: 'archive', Key: key }))).Body?.transformToByteArray();
          ids.push(...linesOf(Buffer.from(body ?? new Uint8Array())).map((l) => l.id));
        }
        client.destroy();
        expect(ids.sort()).toEqual(['rt-u1-c', 'rt-u1-d', 'rt-u2-a']);
        const rollupsAfter = await t.db.query('SELECT day, total_events FROM feedback_metrics_daily WHERE workspace_id = $1 ORDER BY day, dimension, dimension_value', [t.workspaceId]);
        expect(rollupsAfter).toEqual(rollupsBefore);
        // Its events all past retention, the response went with them (issue 24).
        expect(report.archivedResponses).toBe(1);
        expect(report.files.some((f) => f.includes(`${t.workspaceId}/responses-`))).toBe(true);
        // Ingest still works afterwards (the sweep makes partitions again; the default partition takes rows meanwhile).
        await req('POST', '/v1/responses', { id: 'rt-r2', query: 'q2', answer: 'a2' });
        expect((await req('POST', '/v1/feedback', { id: 'rt-after', responseId: 'rt-r2', type: 'thumbs_up', userId: 'u3' })).statusCode).toBe(202);
      } finally {
        delete process.env.AWS_ENDPOINT_URL_S3;
        await s3.close();
      }
    });
  });
}
