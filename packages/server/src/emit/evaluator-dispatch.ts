/**
 * Calls evaluators (issue 28; docs/evaluators.md). Each call claims a batch of due calls with a
 * lease (SKIP LOCKED, within each evaluator's per-minute budget), POSTs each its item signed as
 * webhooks are (`X-Feedloop-Signature`, webhook-signature.ts) under the evaluator's timeout,
 * reads the answer (core's `readJudgeAnswer`) and hands the feedback event it becomes to `submit`
 * (the composition root binds it to the ingest path, so a judge's answer is processed as any
 * other event). Network errors, 429 and 5xx are retried with backoff; other refusals, answers
 * that are not one, and events the ingest refuses are dead-lettered at once (no retry fixes
 * them); the last allowed failure dead-letters too. A dead call is retried by hand.
 *
 * The same address rules as webhooks: the connection's DNS lookup refuses non-public addresses
 * unless `allowPrivate` (`FEEDLOOP_WEBHOOK_ALLOW_PRIVATE`), and the log keeps coded reasons only.
 */
import { judgeEventId, readJudgeAnswer, validateFeedbackEvent, type FeedbackEvent } from '@feedloop/core';
import type { Dispatcher } from 'undici';
import type { SqlClient } from '../db/sql-client.js';
import { claimDueEvaluatorCalls, markCallDone, recordCallFailure, type DueEvaluatorCall } from '../store/evaluator-calls.js';
import { judgedResponses, type JudgedResponse } from '../store/judged-responses.js';
import { deliveryFailureReason } from './delivery-failure.js';
import { guardedLookup, literalHostClass, type AddressPolicy, type Resolver } from './safe-address.js';
import { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, signWebhookBody } from './webhook-signature.js';
import { retryDelayMs } from './webhook-delivery.js';

/** The `X-Feedloop-Event` of an evaluator call. */
export const EVALUATOR_CALL_EVENT = 'evaluator.call';
/** The signal source of every judge event (docs/signals.md, "Sources"). */
const JUDGE_SOURCE = 'judge';

/** What writing a judge's event came to: written (or a duplicate of one written before), or refused with a code. */
export type SubmitOutcome = { ok: true } | { ok: false; code: string };

/** Writes a judge's feedback event through the ingest path (bound by the composition root). */
export type JudgeEventSubmitter = (workspaceId: string, event: FeedbackEvent) => Promise<SubmitOutcome>;

/** Options of {@link dispatchEvaluatorCalls}. */
export interface DispatchOptions {
  submit: JudgeEventSubmitter;
  /** Only these calls (those of them that are due). */
  ids?: readonly number[];
  /** Calls claimed at most; default 100. */
  limit?: number;
  /** Delay after the first failed attempt, doubled after each (capped at 1 h); default 10 s. */
  backoffMs?: number;
  /** Attempts before a call is dead-lettered; default 8 (about 21 minutes of backoff). */
  maxAttempts?: number;
  /** Send to non-public addresses too (`FEEDLOOP_WEBHOOK_ALLOW_PRIVATE`). */
  allowPrivate?: boolean;
  resolve?: Resolver;
}

/** What one dispatch did. */
export interface DispatchReport {
  done: number;
  retried: number;
  dead: number;
}

const DEFAULT_LIMIT = 100;
const DEFAULT_BACKOFF_MS = 10_000;
const DEFAULT_MAX_ATTEMPTS = 8;
const PARALLEL_POSTS = 8;
/** An answer is a small JSON object; a larger body is refused unread beyond this. */
const MAX_ANSWER_BYTES = 64 * 1024;
const USER_AGENT = 'feedloop-evaluators/1';
const HTTP_TOO_MANY = 429;
const HTTP_SERVER_ERROR = 500;

type Attempt =
  | { kind: 'answer'; status: number; body: unknown; latencyMs: number }
  | { kind: 'fail'; retry: boolean; status: number | null; error: string; latencyMs: number | null };

/** The JSON body a call POSTs: the item, never its feedback. */
export function callBody(call: DueEvaluatorCall, responses: Map<string, JudgedResponse>): Record<string, unknown> | undefined {
  const a = responses.get(call.response_id);
  if (!a) return undefined;
  const common = { callId: call.id, evaluatorId: call.evaluator_id, evaluatorVersion: call.evaluator_version, kind: call.kind, output: call.output };
  if (call.kind === 'pointwise') return { ...common, response: a };
  const b = call.response_b_id === null ? undefined : responses.get(call.response_b_id);
  if (!b) return undefined;
  return { ...common, reviewItemId: call.item_key, query: a.query, responses: [a, b] };
}

/** Reads at most {@link MAX_ANSWER_BYTES} of an answer's body; undefined when it is longer. */
async function boundedText(res: { body: { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> } } | null }): Promise<string | undefined> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done || value === undefined) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** POSTs one call and tells how it went; never throws. */
async function post(call: DueEvaluatorCall, body: string, fetch: typeof import('undici').fetch, dispatcher: Dispatcher, policy: AddressPolicy): Promise<Attempt> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  try {
    const literal = literalHostClass(new URL(call.url).hostname);
    if (literal !== undefined && literal !== 'public' && !policy.allowPrivate) return { kind: 'fail', retry: false, status: null, error: 'forbidden_address', latencyMs: null };
    const res = await fetch(call.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        [SIGNATURE_HEADER]: signWebhookBody(call.secret, body),
        [EVENT_HEADER]: EVALUATOR_CALL_EVENT,
        [DELIVERY_HEADER]: String(call.id),
      },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(call.timeout_ms),
      dispatcher,
    });
    if (res.status === HTTP_TOO_MANY || res.status >= HTTP_SERVER_ERROR) {
      await res.body?.cancel().catch(() => undefined);
      return { kind: 'fail', retry: true, status: res.status, error: 'http_status', latencyMs: elapsed() };
    }
    if (res.status < 200 || res.status > 299) {
      await res.body?.cancel().catch(() => undefined);
      return { kind: 'fail', retry: false, status: res.status, error: 'http_status', latencyMs: elapsed() };
    }
    const text = await boundedText(res);
    if (text === undefined) return { kind: 'fail', retry: false, status: res.status, error: 'answer_too_large', latencyMs: elapsed() };
    try {
      return { kind: 'answer', status: res.status, body: JSON.parse(text) as unknown, latencyMs: elapsed() };
    } catch {
      return { kind: 'fail', retry: false, status: res.status, error: 'invalid_answer', latencyMs: elapsed() };
    }
  } catch (err) {
    return { kind: 'fail', retry: true, status: null, error: deliveryFailureReason(err), latencyMs: elapsed() };
  }
}

/** The feedback event of an answer, or the coded reason it is not one. */
function eventOf(call: DueEvaluatorCall, answer: unknown): { ok: true; event: FeedbackEvent } | { ok: false; error: string } {
  const pair = call.response_b_id === null ? undefined : ([call.response_id, call.response_b_id] as const);
  const read = readJudgeAnswer(answer, { kind: call.kind, output: call.output, scoreName: call.name, scoreConfigId: call.score_config_id, ...(pair ? { pair } : {}) });
  if (!read.ok) return { ok: false, error: 'invalid_answer' };
  const { part } = read;
  const checked = validateFeedbackEvent({
    id: judgeEventId(call.evaluator_id, call.id),
    responseId: call.response_id,
    userId: `judge:${call.evaluator_id}`,
    type: part.type,
    source: JUDGE_SOURCE,
    payload: part.payload,
    metadata: {
      evaluatorId: call.evaluator_id,
      evaluatorVersion: call.evaluator_version,
      evaluatorCallId: call.id,
      ...(call.kind === 'pairwise' ? { reviewItemId: call.item_key } : {}),
      ...(part.label === undefined ? {} : { label: part.label }),
      ...(part.rationale === undefined ? {} : { rationale: part.rationale }),
    },
  });
  return checked.ok ? { ok: true, event: checked.value } : { ok: false, error: 'invalid_answer' };
}

/**
 * Sends the due evaluator calls (or only `options.ids`, when due) and records each outcome. Safe
 * to run concurrently from any number of processes: a call is leased by one at a time, and its
 * event id is the same on every attempt, so a repeat is a duplicate. Throws only when the
 * database does.
 *
 * @example
 * const { done, retried, dead } = await dispatchEvaluatorCalls(db, { submit, ids: newCallIds });
 */
export async function dispatchEvaluatorCalls(db: SqlClient, options: DispatchOptions): Promise<DispatchReport> {
  const report: DispatchReport = { done: 0, retried: 0, dead: 0 };
  if (options.ids?.length === 0) return report;
  const limit = options.limit ?? DEFAULT_LIMIT;
  const backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const policy: AddressPolicy = { allowPrivate: options.allowPrivate ?? false, ...(options.resolve ? { resolve: options.resolve } : {}) };
  // A lease outlasts every round of parallel POSTs at its evaluator's timeout, plus one spare.
  const leaseTimeouts = Math.ceil(limit / PARALLEL_POSTS) + 1;
  const calls = await claimDueEvaluatorCalls(db, { ids: options.ids, limit, leaseTimeouts });
  if (calls.length === 0) return report;

  const byWorkspace = new Map<string, string[]>();
  for (const c of calls) {
    const ids = byWorkspace.get(c.workspace_id) ?? [];
    ids.push(c.response_id, ...(c.response_b_id === null ? [] : [c.response_b_id]));
    byWorkspace.set(c.workspace_id, ids);
  }
  const contents = new Map<string, Map<string, JudgedResponse>>();
  for (const [ws, ids] of byWorkspace) contents.set(ws, await judgedResponses(db, ws, ids));

  const { Agent, fetch } = await import('undici');
  const dispatcher = new Agent({ connect: { lookup: guardedLookup(policy) } });

  const fail = async (call: DueEvaluatorCall, f: { retry: boolean; status: number | null; error: string; latencyMs: number | null }): Promise<void> => {
    const attempts = call.attempts + 1;
    const dead = !f.retry || attempts >= maxAttempts;
    await recordCallFailure(db, call.id, { dead, status: f.status, error: f.error, latencyMs: f.latencyMs, retryInMs: dead ? 0 : retryDelayMs(attempts, backoffMs) });
    if (dead) report.dead++;
    else report.retried++;
  };

  const handle = async (call: DueEvaluatorCall): Promise<void> => {
    const body = callBody(call, contents.get(call.workspace_id) ?? new Map());
    if (!body) return fail(call, { retry: false, status: null, error: 'response_missing', latencyMs: null });
    const attempt = await post(call, JSON.stringify(body), fetch, dispatcher, policy);
    if (attempt.kind === 'fail') return fail(call, attempt);
    const made = eventOf(call, attempt.body);
    if (!made.ok) return fail(call, { retry: false, status: attempt.status, error: made.error, latencyMs: attempt.latencyMs });
    const written = await options.submit(call.workspace_id, made.event);
    if (!written.ok) {
      // The database away is the ingest's 503: worth another try; any other refusal is the answer's.
      const retry = written.code === 'FEEDLOOP_ERR_UNAVAILABLE';
      return fail(call, { retry, status: attempt.status, error: `event_rejected:${written.code}`, latencyMs: attempt.latencyMs });
    }
    await markCallDone(db, call.id, { status: attempt.status, latencyMs: attempt.latencyMs, eventId: made.event.id ?? '' });
    report.done++;
  };

  let next = 0;
  let dbError: unknown;
  const lane = async (): Promise<void> => {
    while (dbError === undefined) {
      const call = calls[next++];
      if (!call) return;
      try {
        await handle(call);
      } catch (err) {
        dbError ??= err;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(PARALLEL_POSTS, calls.length) }, lane));
  } finally {
    await dispatcher.destroy();
  }
  if (dbError !== undefined) throw dbError;
  return report;
}
