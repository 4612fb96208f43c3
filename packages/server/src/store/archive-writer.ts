/**
 * Retention's cold store: archives written as gzip-compressed JSONL, to a folder (embedded) or to S3
 * (`s3://bucket/prefix`, production; the AWS SDK's usual environment for credentials, and the
 * config's `s3` endpoint, from `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL`, for S3-compatible stores).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { S3Settings } from '../config.js';

/**
 * Writes `lines` (one JSON document each) as `<archive>/<name>.jsonl.gz` and returns where it went
 * (`s3`: where S3 is, for an `s3://` archive).
 * The file is written whole or not at all (a temporary name, then a rename is not needed: the
 * name is new and the caller deletes the rows only after this resolves).
 *
 * @example
 * await writeArchive('/srv/feedloop/archive', 'ws_1/events-2026-08-01T00-00-00Z-0', rows.map((r) => JSON.stringify(r)))
 */
export async function writeArchive(archive: string, name: string, lines: readonly string[], s3: S3Settings = {}): Promise<string> {
  const body = gzipSync(lines.map((l) => `${l}\n`).join(''));
  if (archive.startsWith('s3://')) {
    const rest = archive.slice('s3://'.length);
    const slash = rest.indexOf('/');
    const bucket = slash < 0 ? rest : rest.slice(0, slash);
    const prefix = slash < 0 ? '' : rest.slice(slash + 1).replace(/\/+$/, '');
    const key = `${prefix ? `${prefix}/` : ''}${name}.jsonl.gz`;
    const { S3Client, PutObjectCommand } = await import('@aws-sdk/client-s3');
    const { endpoint, region } = s3;
    const client = new S3Client({
      ...(region ? { region } : {}),
      ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    try {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: 'application/gzip' }));
    } finally {
      client.destroy();
    }
    return `s3://${bucket}/${key}`;
  }
  const path = join(archive, `${name}.jsonl.gz`);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, body, { flag: 'wx' });
  return path;
}
