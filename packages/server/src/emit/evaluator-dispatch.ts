/**
 * Calls evaluators (issue 28; docs/evaluators.md). Each round claims a batch of due calls with a
 * lease (SKIP LOCKED, within each evaluator's per-minute budget), POSTs each its item signed as
 * webhooks are (`X-Feedloop-Signature`, webhook-signature.ts) under the evaluator's timeout, and
 * reads the answer (core's `readJudgeAnswer`) into the feedback event it becomes. Then the round
 * hands all its events to `submit` at once, one batch per workspace and evaluator (the
 * composition root binds it to the ingest path's batch write, so a judge's answer is processed as
 * any other event, and a round's answers share a commit and a processing job), and records its
 * outcomes in two statements: the calls done, the failed attempts.
 *
 * Network errors, 429 and 5xx are retried with backoff; other refusals, answers that are not one,
 * and events the ingest refuses (each alone: the batch's others are written) are dead-lettered at
 * once (no retry fixes them); the last allowed failure dead-letters too. A dead call is retried by
 * hand.
 *
 * The same address rules as webhooks: the connection's DNS lookup refuses non-public addresses
 * unless `allowPrivate` (`FEEDLOOP_WEBHOOK_ALLOW_PRIVATE`), and the log keeps coded reasons only.
 */
import { judgeEventId, readJudgeAnswer, validateFeedbackEvent, type FeedbackEvent } from '@feedloop/core';
import type { Dispatcher } from 'undici';
import type { SqlClient } from '../db/sql-client.js';
import { claimDueEvaluatorCalls, markCallsDone, recordCallFailures, type CallDone, type CallFailure, type DueEvaluatorCall } from '../store/evaluator-calls.js';
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

/**
 * Writes judges' feedback events of one workspace through the ingest path's batch write (bound by
 * the composition root): one outcome per event, in order, each event accepted or refused alone.
 * It never throws: a failure of the whole write is each event's outcome.
 */
export type JudgeEventSubmitter = (workspaceId: string, events: readonly FeedbackEvent[]) => Promise<SubmitOutcome[]>;

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

/** A failed attempt as the round sees it: retried (backoff) unless `retry` is false. */
type Failed = { retry: boolean; status: number | null; error: string; latencyMs: number | null };

type Attempt = { kind: 'answer'; status: number; body: unknown; latencyMs: number } | ({ kind: 'fail' } & Failed);

/** A call answered with an event to write. */
type Answered = { kind: 'answered'; call: DueEvaluatorCall; event: FeedbackEvent; status: number; latencyMs: number };

/** What a call's POST came to: an event to write, or a failure. */
type Posted = Answered | { kind: 'failed'; call: DueEvaluatorCall; failure: Failed };

/** The ingest's refusal when the database is away (its 503): worth another try; any other refusal is the answer's. */
const UNAVAILABLE = 'FEEDLOOP_ERR_UNAVAILABLE';

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
 * Writes the answered calls' events, one batch per (workspace, evaluator), the batches at once;
 * answers each call's outcome.
 */
async function submitAnswers(answered: readonly Answered[], submit: JudgeEventSubmitter): Promise<Map<Answered, SubmitOutcome>> {
  const groups = new Map<string, Answered[]>();
  for (const a of answered) {
    const key = `${a.call.workspace_id}\u0000${a.call.evaluator_id}`;
    groups.set(key, [...(groups.get(key) ?? []), a]);
  }
  const outcomes = new Map<Answered, SubmitOutcome>();
  await Promise.all(
    [...groups.values()].map(async (members) => {
      const written = await submit(members[0]?.call.workspace_id ?? '', members.map((a) => a.event));
      members.forEach((a, k) => outcomes.set(a, written[k] ?? { ok: false, code: 'FEEDLOOP_ERR_INTERNAL' }));
    }),
  );
  return outcomes;
}

/**
 * Sends the due evaluator calls (or only `options.ids`, when due) and records each outcome. Safe
 * to run concurrently from any number of processes: a call is leased by one at a time, and its
 * event id is the same on every attempt, so a repeat is a duplicate. A round POSTs all its calls
 * first, then writes their events in one batch per workspace and evaluator, then records the
 * calls done and the failures in one statement each. Throws only when the database does.
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
  // A lease outlasts every round of parallel POSTs at its evaluator's timeout, plus one spare for
  // the round's write and records.
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

  const send = async (call: DueEvaluatorCall): Promise<Posted> => {
    const body = callBody(call, contents.get(call.workspace_id) ?? new Map());
    if (!body) return { kind: 'failed', call, failure: { retry: false, status: null, error: 'response_missing', latencyMs: null } };
    const attempt = await post(call, JSON.stringify(body), fetch, dispatcher, policy);
    if (attempt.kind === 'fail') return { kind: 'failed', call, failure: attempt };
    const made = eventOf(call, attempt.body);
    if (!made.ok) return { kind: 'failed', call, failure: { retry: false, status: attempt.status, error: made.error, latencyMs: attempt.latencyMs } };
    return { kind: 'answered', call, event: made.event, status: attempt.status, latencyMs: attempt.latencyMs };
  };

  // The POSTs, PARALLEL_POSTS at a time; nothing is written meanwhile.
  const posted: Posted[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    for (let call = calls[next++]; call; call = calls[next++]) posted.push(await send(call));
  };
  try {
    await Promise.all(Array.from({ length: Math.min(PARALLEL_POSTS, calls.length) }, lane));
  } finally {
    await dispatcher.destroy();
  }

  // The answers' events in one batch per workspace and evaluator: one refused event fails alone.
  const answered = posted.flatMap((p) => (p.kind === 'answered' ? [p] : []));
  const written = answered.length === 0 ? new Map<Answered, SubmitOutcome>() : await submitAnswers(answered, options.submit);
  const done: CallDone[] = [];
  const failed: Array<{ call: DueEvaluatorCall; failure: Failed }> = posted.flatMap((p) => (p.kind === 'failed' ? [p] : []));
  answered.forEach((a) => {
    const outcome = written.get(a) ?? { ok: false, code: 'FEEDLOOP_ERR_INTERNAL' };
    if (outcome.ok) done.push({ id: a.call.id, status: a.status, latencyMs: a.latencyMs, eventId: a.event.id ?? '' });
    else failed.push({ call: a.call, failure: { retry: outcome.code === UNAVAILABLE, status: a.status, error: `event_rejected:${outcome.code}`, latencyMs: a.latencyMs } });
  });
  const failures: CallFailure[] = failed.map(({ call, failure }) => {
    const attempts = call.attempts + 1;
    const dead = !failure.retry || attempts >= maxAttempts;
    if (dead) report.dead++;
    else report.retried++;
    return { id: call.id, dead, status: failure.status, error: failure.error, latencyMs: failure.latencyMs, retryInMs: dead ? 0 : retryDelayMs(attempts, backoffMs) };
  });
  await markCallsDone(db, done);
  await recordCallFailures(db, failures);
  report.done = done.length;
  return report;
}
