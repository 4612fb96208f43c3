/**
 * Shared by the alert suites: register responses and vote on them through the API, in batches.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { TestApp } from './harness.js';

/** Registers `n` responses and gives each one vote of `type` from its own user; returns the ids. */
export async function vote(
  t: TestApp,
  auth: { authorization: string },
  n: number,
  type: 'thumbs_up' | 'thumbs_down',
  extra: { category?: string } = {},
): Promise<string[]> {
  const tag = randomBytes(4).toString('hex');
  const ids = Array.from({ length: n }, (_, i) => `r-${tag}-${i}`);
  const responses = await t.app.inject({
    method: 'POST',
    url: '/v1/responses/batch',
    headers: auth,
    payload: { responses: ids.map((id) => ({ id, query: `q ${id}`, answer: `a ${id}`, sessionId: `s-${id}` })) },
  });
  expect(responses.statusCode).toBeLessThan(300);
  const feedback = await t.app.inject({
    method: 'POST',
    url: '/v1/feedback/batch',
    headers: auth,
    payload: { events: ids.map((id) => ({ responseId: id, type, userId: `u-${id}`, ...(extra.category ? { payload: { category: extra.category } } : {}) })) },
  });
  expect(feedback.statusCode).toBeLessThan(300);
  return ids;
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
