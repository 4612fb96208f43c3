/**
 * `feedloop export <format> --out file|s3://bucket/key`: streams an export of a running server
 * (`GET /v1/exports/<format>`, or a training batch's file) into a local file or an S3 object, with
 * a progress line on a terminal. Nothing is held in memory: the HTTP body flows through the
 * meter into the file, or into an S3 multipart upload (AWS SDK v3 `Upload`, parts of 8 MiB).
 */
import { createWriteStream } from 'node:fs';
import { rename, unlink } from 'node:fs/promises';
import { Readable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { quietAwsSdkNodeWarning } from '../config.js';
import { requestWithRetry, type ApiTarget } from './api-client.js';
import { progressMeter, type ProgressOutput } from './progress.js';

/** Where an export goes. */
export type ExportDestination = { kind: 'file'; path: string } | { kind: 's3'; bucket: string; key: string };

/** S3 multipart part size: large enough for few requests, small enough to hold a few in memory. */
const PART_SIZE = 8 * 1024 * 1024;
/** Parts uploaded at once. */
const PARTS_IN_FLIGHT = 4;

/**
 * Reads `--out`: `s3://bucket/key` or a file path.
 *
 * @throws Error when an `s3://` URL lacks its bucket or key.
 * @example
 * parseDestination('s3://training/dpo/2026-11.jsonl') // { kind: 's3', bucket: 'training', key: 'dpo/2026-11.jsonl' }
 */
export function parseDestination(out: string): ExportDestination {
  if (!out.startsWith('s3://')) return { kind: 'file', path: out };
  const rest = out.slice('s3://'.length);
  const slash = rest.indexOf('/');
  if (slash <= 0 || slash === rest.length - 1) throw new Error(`--out: ${out} is not s3://bucket/key`);
  return { kind: 's3', bucket: rest.slice(0, slash), key: rest.slice(slash + 1) };
}

/** The S3 connection: the SDK's usual environment (credentials, `AWS_REGION`), and an endpoint for S3-compatible stores. */
export interface S3Options {
  /** e.g. `http://127.0.0.1:9000` (MinIO, s3rver); path-style addressing then. The CLI passes `--s3-endpoint`, else the config's (`AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL`). */
  endpoint?: string;
  /** Default `us-east-1`; the CLI passes the config's (`AWS_REGION`). */
  region?: string | undefined;
}

/**
 * Opens the export's body: `GET <path>` on the server, retried while it cannot answer.
 *
 * @throws Error with the server's error code and message when it refuses.
 */
export async function openExport(target: ApiTarget, path: string): Promise<Readable> {
  const res = await requestWithRetry(target, 'GET', path);
  if (res.status !== 200 || !res.body) {
    const body = (await res.json().catch(() => undefined)) as { error?: { code: string; message: string } } | undefined;
    throw new Error(`GET ${path}: ${res.status} ${body?.error ? `${body.error.code}: ${body.error.message}` : 'unexpected answer'}`);
  }
  return Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
}

/**
 * Streams `source` to `destination` through a progress meter drawn on `progressTo` when it is a
 * terminal; resolves with the rows and bytes written. A file appears whole or not at all (written
 * beside it, then renamed); a failed S3 upload is aborted, so no partial object is left.
 *
 * @example
 * const { rows } = await writeExport(await openExport(target, '/v1/exports/trl-dpo'), parseDestination('s3://b/k.jsonl'), {}, process.stderr);
 */
export async function writeExport(source: Readable, destination: ExportDestination, s3: S3Options = {}, progressTo?: ProgressOutput): Promise<{ rows: number; bytes: number }> {
  const meter = progressMeter(progressTo ?? { isTTY: false, write: () => true }, destination.kind === 'file' ? destination.path : `s3://${destination.bucket}/${destination.key}`);
  if (destination.kind === 'file') await toFile(source, meter, destination.path);
  else await toS3(source, meter, destination, s3);
  return meter.counts();
}

async function toFile(source: Readable, meter: Transform, path: string): Promise<void> {
  const partial = `${path}.partial`;
  try {
    await pipeline(source, meter, createWriteStream(partial));
    await rename(partial, path);
  } catch (err) {
    await unlink(partial).catch(() => undefined);
    throw err;
  }
}

async function toS3(source: Readable, meter: Transform, destination: { bucket: string; key: string }, options: S3Options): Promise<void> {
  // The SDK warns on every run under Node 20 that its releases after January 2027 need Node 22;
  // feedloop supports Node 20 (README), so an export's output stays its own unless asked for.
  quietAwsSdkNodeWarning();
  // Loaded here, not at the top: the SDK is tens of MB of modules that `feedloop start` never needs.
  const [{ S3Client }, { Upload }] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]);
  const { endpoint } = options;
  const client = new S3Client({
    region: options.region ?? 'us-east-1',
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    // Checksums only where S3 requires them: S3-compatible stores differ in the newer trailers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  try {
    const body = source.pipe(meter);
    source.once('error', (err) => meter.destroy(err));
    const upload = new Upload({
      client,
      params: { Bucket: destination.bucket, Key: destination.key, Body: body, ContentType: 'application/x-ndjson' },
      partSize: PART_SIZE,
      queueSize: PARTS_IN_FLIGHT,
      leavePartsOnError: false,
    });
    await upload.done();
  } finally {
    client.destroy();
  }
}
