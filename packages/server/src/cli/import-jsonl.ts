/**
 * The importer's generic format: one JSON object a line,
 * `{ id?, query, answer, sessionId?, userId?, model?, agent?, …, feedback?: [event…] }`.
 * Every field but `feedback` is a response field of `POST /v1/responses`; each feedback item is a
 * `POST /v1/feedback` event without `responseId`. Ids are kept when given; otherwise the response
 * id is `jsonl:<hash of query and answer>` and the i-th event's `<response id>:fb:<i>`, so a re-run
 * of the same file stores nothing twice.
 */
import { createHash } from 'node:crypto';
import type { ImportEvent, ImportRecord } from './import-replay.js';
import { readJsonLines } from './read-lines.js';

/**
 * The record of one generic line.
 *
 * @throws Error when `query` or `answer` is missing or `feedback` is not an array.
 * @example
 * jsonlRecord({ query: 'q', answer: 'a', feedback: [{ type: 'thumbs_up', userId: 'u1' }] })
 */
export function jsonlRecord(row: Record<string, unknown>): ImportRecord {
  const { feedback = [], ...response } = row;
  if (typeof response.query !== 'string' || typeof response.answer !== 'string') throw new Error('needs "query" and "answer" strings');
  if (!Array.isArray(feedback)) throw new Error('"feedback" must be an array');
  const id = typeof response.id === 'string' ? response.id : `jsonl:${createHash('sha256').update(response.query).update('\u0000').update(response.answer).digest('hex').slice(0, 32)}`;
  const events = feedback.map((f: Record<string, unknown>, i): ImportEvent => ({ id: `${id}:fb:${i}`, ...f, responseId: id, type: String(f.type) }));
  return { response: { ...response, id, query: response.query, answer: response.answer }, events };
}

/**
 * Reads a generic JSONL file (`.gz` too) and yields its records.
 *
 * @example
 * for await (const r of readGenericJsonl('feedback.jsonl')) console.log(r.response.id);
 */
export async function* readGenericJsonl(path: string): AsyncGenerator<ImportRecord> {
  for await (const { value, line } of readJsonLines(path)) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${path}:${line}: not a JSON object`);
    try {
      yield jsonlRecord(value as Record<string, unknown>);
    } catch (err) {
      throw new Error(`${path}:${line}: ${(err as Error).message}`);
    }
  }
}
