/**
 * `feedloop export` as a user runs it (the built CLI, a real process) against a listening server,
 * into a file and into a real S3-compatible server started here (s3rver, over HTTP; the AWS SDK's
 * own client, no mock), on both stores. The batch is large enough for a multipart upload.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';
import { CLI_PATH } from './process-helpers.js';

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
  on(event: 'event', listener: (e: { Records: Array<{ eventName: string; s3: { object: { key: string } } }> }) => void): void;
}
// This process's own S3 client would print the SDK's Node 22 notice; the CLI silences it the same way.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const S3rver = createRequire(import.meta.url)('s3rver') as new (options: Record<string, unknown>) => S3rverInstance;

const dir = mkdtempSync(join(tmpdir(), 'feedloop-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BUCKET = 'training';
/** s3rver's fixed credentials. */
const S3_ENV = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' };
/** Corrections in the batch, and the length of each text: about 20 MB of rows, three 8 MiB parts. */
const EVENTS = 2_000;
const TEXT = 5_000;

type Run = { status: number | null; stdout: string; stderr: string };
// Asynchronous: the feedloop and S3 servers answer from this process's event loop.
const run = (file: string, args: string[], env: Record<string, string> = {}): Promise<Run> =>
  new Promise((resolve) => {
    execFile(file, args, { timeout: 180_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, LOG_LEVEL: 'warn', ...S3_ENV, ...env } }, (err, stdout, stderr) =>
      resolve({ status: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`feedloop export (${backend.name})`, () => {
    let t: TestApp;
    let url: string;
    let s3: S3rverInstance;
    let s3Endpoint: string;
    let client: S3Client;
    let batchId: string;
    let expected: string;
    /** The S3 server's object-created events: `ObjectCreated:Post` is a completed multipart upload, `…:Put` a single PUT. */
    const created: string[] = [];

    beforeAll(async () => {
      s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: join(dir, `s3-${backend.name}`), configureBuckets: [{ name: BUCKET }] });
      s3Endpoint = `http://127.0.0.1:${(await s3.run()).port}`;
      s3.on('event', (e) => created.push(...e.Records.map((r) => `${r.eventName} ${r.s3.object.key}`)));
      client = new S3Client({ region: 'us-east-1', endpoint: s3Endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
      t = await startTestApp(await backend.open(), { FEEDLOOP_TRAINING_BATCH_DIR: join(dir, `batches-${backend.name}`), FEEDLOOP_TRAINING_BATCH_INTERVAL_SECONDS: '86400' }, { worker: true });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address();
      url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

      // A batch of large corrections, made on demand below (the schedule's next run is a day away) (each answer corrected by an appended sentence: a cheap diff).
      const filler = 'x'.repeat(TEXT);
      for (let at = 0; at < EVENTS; at += 500) {
        const responses = Array.from({ length: 500 }, (_, i) => ({ id: `r-${at + i}`, query: `question ${at + i}?`, answer: `${filler} ${at + i}` }));
        expect((await t.app.inject({ method: 'POST', url: '/v1/responses/batch', headers: t.auth, payload: { responses } })).statusCode).toBe(207);
        const events = responses.map((r) => ({ id: `${r.id}-fix`, responseId: r.id, type: 'correction', userId: 'u', payload: { corrected: `${r.answer} Fixed.` } }));
        expect((await t.app.inject({ method: 'POST', url: '/v1/feedback/batch', headers: t.auth, payload: { events } })).statusCode).toBe(207);
      }
      await t.services.pipeline.idle(120_000);
      const made = await t.app.inject({ method: 'POST', url: '/v1/training-batches', headers: t.auth });
      expect(made.json()).toMatchObject({ eventCount: EVENTS, rowCount: EVENTS });
      batchId = made.json().id;
      expected = (await t.app.inject({ method: 'GET', url: `/v1/training-batches/${batchId}/file`, headers: t.auth })).body;
      expect(expected.length).toBeGreaterThan(2 * 8 * 1024 * 1024);
    }, 300_000);
    afterAll(async () => {
      client?.destroy();
      await s3?.close();
      await t?.close();
    });

    const feedloop = (...args: string[]) => run(process.execPath, [CLI_PATH, 'export', ...args, '--url', url, '--key', t.secretKey]);

    it('uploads to S3 in parts; the object is the export byte for byte; no progress drawn off a terminal', async () => {
      const key = `batches/${batchId}.jsonl`;
      const r = await feedloop('--batch', batchId, '--out', `s3://${BUCKET}/${key}`, '--s3-endpoint', s3Endpoint, '--json');
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ rows: EVENTS, bytes: Buffer.byteLength(expected), out: `s3://${BUCKET}/${key}` });
      const object = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
      expect(await object.Body?.transformToString()).toBe(expected);
      expect(created).toContain(`ObjectCreated:Post ${key}`);
      const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
      expect(head.ContentType).toBe('application/x-ndjson');
    }, 180_000);

    it('writes a file whole; a refused export leaves none and says why', async () => {
      const out = join(dir, `${backend.name}-batch.jsonl`);
      const r = await feedloop('--batch', batchId, '--out', out);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`wrote ${EVENTS} rows \\(.* MiB\\) to `));
      expect(readFileSync(out, 'utf8')).toBe(expected);
      expect(existsSync(`${out}.partial`)).toBe(false);

      const missing = join(dir, `${backend.name}-missing.jsonl`);
      const refused = await feedloop('--batch', 'tb_nope', '--out', missing);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(/404 FEEDLOOP_ERR_TRAINING_BATCH_NOT_FOUND/);
      expect(existsSync(missing)).toBe(false);
      const badS3 = await feedloop('--batch', batchId, '--out', 's3://bucket-only');
      expect(badS3.stderr).toMatch(/is not s3:\/\/bucket\/key/);
    }, 120_000);

    it('draws a progress line on a terminal', async () => {
      const out = join(dir, `${backend.name}-tty.jsonl`);
      const command = [process.execPath, CLI_PATH, 'export', '--batch', batchId, '--out', out, '--url', url, '--key', t.secretKey].map((a) => `'${a}'`).join(' ');
      // `script` runs the command on a pseudo-terminal, so stderr is a TTY.
      const r = await run('script', ['-qefc', command, '/dev/null']);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`✔ ${out.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: ${EVENTS.toLocaleString('en-US')} rows · `));
      expect(readFileSync(out, 'utf8')).toBe(expected);
    }, 120_000);

    it('exports a format from GET /v1/exports/:format', async () => {
      const out = join(dir, `${backend.name}-dpo.jsonl`);
      const r = await feedloop('trl-dpo', '--out', out, '--filter', 'dedup=false');
      expect(r.status, r.stderr).toBe(0);
      const lines = readFileSync(out, 'utf8').split('\n').filter(Boolean);
      expect(r.stdout).toMatch(new RegExp(`wrote ${lines.length} rows`));
      // Every correction of the batch is a pair of the export.
      const pairs = new Set(lines.map((l) => { const o = JSON.parse(l) as { prompt: string; chosen: string; rejected: string }; return JSON.stringify({ prompt: o.prompt, chosen: o.chosen, rejected: o.rejected }); }));
      for (const row of expected.split('\n').filter(Boolean)) {
        const { provenance: _p, ...pair } = JSON.parse(row) as Record<string, unknown>;
        expect(pairs.has(JSON.stringify(pair))).toBe(true);
      }
    }, 120_000);
  });
}
