/**
 * Sends the demo's data (cli/demo-data.ts) through feedloop's public HTTP API, as an application
 * would: the experiment's declaration, then the responses, then the feedback, in batches of 500,
 * one request at a time (two in flight were no faster on two cores: the API's parsing and the
 * database thread's writes already overlap with the pipeline processing what came before).
 */
import { requestWithRetry, type ApiTarget } from './api-client.js';
import { DEMO_EXPERIMENT, type DemoData } from './demo-data.js';

/** Items per batch request. */
const BATCH = 500;

/** Sends one request; throws on a refusal, or on a batch with an item rejected. */
async function send(target: ApiTarget, method: 'POST' | 'PUT', path: string, body: unknown): Promise<void> {
  const res = await requestWithRetry(target, method, path, body);
  if (res.status >= 300 && res.status !== 207) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  if (res.status === 207) {
    const { results } = (await res.json()) as { results: Array<{ status: string; error?: { message: string } }> };
    const bad = results.find((r) => r.status === 'rejected');
    if (bad) throw new Error(`${path}: an item was rejected: ${bad.error?.message ?? ''}`);
  } else {
    await res.text();
  }
}

/** Posts `items` to `path` under `field`, a batch at a time. */
async function postInBatches<T>(target: ApiTarget, path: string, field: string, items: readonly T[]): Promise<void> {
  for (let i = 0; i < items.length; i += BATCH) await send(target, 'POST', path, { [field]: items.slice(i, i + BATCH) });
}

/**
 * Sends the demo's data to the workspace of `target.key`. With `recordConsent`, first records each
 * demo user's consent to implicit signals (`PUT /v1/users/:id/consent`), as an application whose
 * users opted in would: a workspace that requires consent refuses their edits and retries
 * otherwise. The demo's own workspace assumes consent and needs none.
 *
 * @example
 * await sendDemoData({ url, key }, demoData(new Date()), { recordConsent: false });
 */
export async function sendDemoData(target: ApiTarget, data: DemoData, options: { recordConsent: boolean }): Promise<void> {
  await send(target, 'PUT', `/v1/experiments/${DEMO_EXPERIMENT}`, { control: 'control', metric: 'satisfaction', minSample: 100 });
  if (options.recordConsent) {
    for (const user of new Set(data.responses.map((r) => r.userId))) await send(target, 'PUT', `/v1/users/${encodeURIComponent(user)}/consent`, { implicit: true });
  }
  // Responses first: their feedback is accepted only for a registered response.
  await postInBatches(target, '/v1/responses/batch', 'responses', data.responses);
  await postInBatches(target, '/v1/feedback/batch', 'events', data.events);
}
