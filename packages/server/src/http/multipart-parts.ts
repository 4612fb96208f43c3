/**
 * Reads a `multipart/form-data` body (already capped by the app's body limit) into its parts'
 * names and texts, with busboy: the LangSmith Python SDK's `/runs/multipart` batches.
 */
import busboy from 'busboy';
import type { IncomingHttpHeaders } from 'node:http';
import type { MultipartPart } from '@feedloop/core';
import { FeedloopError } from '../errors.js';

/** Parts one body may hold at most (a batch of runs and their fields). */
export const MAX_MULTIPART_PARTS = 10_000;

const bad = (why: string): FeedloopError => new FeedloopError('FEEDLOOP_ERR_BAD_REQUEST', `the multipart body is malformed: ${why}`);

/**
 * The parts of a body, in order. Files (parts with a filename) are read as text too: the SDK
 * sends none but attachments, which the caller skips.
 *
 * @throws FeedloopError `FEEDLOOP_ERR_BAD_REQUEST` for a malformed body or too many parts.
 * @example
 * await readMultipartParts(request.headers, body) // [{ name: 'post.1f…', text: '{"id":…}' }, …]
 */
export function readMultipartParts(headers: IncomingHttpHeaders, body: Buffer): Promise<MultipartPart[]> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers, limits: { parts: MAX_MULTIPART_PARTS, fieldSize: body.length + 1, fieldNameSize: 400 } });
    } catch (err) {
      reject(bad(err instanceof Error ? err.message : 'no boundary'));
      return;
    }
    const parts: MultipartPart[] = [];
    parser.on('field', (name, value) => parts.push({ name, text: value }));
    parser.on('file', (name, stream) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => parts.push({ name, text: Buffer.concat(chunks).toString('utf8') }));
    });
    parser.on('partsLimit', () => reject(bad(`more than ${MAX_MULTIPART_PARTS} parts`)));
    parser.on('error', (err: unknown) => reject(bad(err instanceof Error ? err.message : 'unreadable')));
    parser.on('close', () => resolve(parts));
    parser.end(body);
  });
}
