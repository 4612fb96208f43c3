/**
 * The load of the durability test: seeded events of many types, sent by concurrent clients as
 * single events and batches, with a record of what each request was answered.
 */
import { expect } from 'vitest';
import type { JsonClient } from './process-helpers.js';

/** Concurrent HTTP clients of the load. */
export const CLIENTS = 32;
/** Acknowledged events before the SIGKILL, and before the SIGTERM. */
export const KILL_AFTER_ACKED = 1_000;
export const TERM_AFTER_ACKED = 400;
/** Bounds of one load, whatever happens. */
export const MAX_EVENTS_PER_LOAD = 20_000;
export const LOAD_TIME_LIMIT_MS = 30_000;
export const RESPONSES = 8;
export const TEST_TIMEOUT_MS = 120_000;

export interface WireEvent {
  id: string;
  responseId: string;
  type: string;
  userId?: string;
  targetId?: string;
  payload?: Record<string, unknown>;
}

export interface SentRequest {
  kind: 'single' | 'batch';
  events: WireEvent[];
}

export type Ack = 'accepted' | 'duplicate';

export interface LoadReport {
  requests: SentRequest[];
  /** Event id → the answer that acknowledged it. */
  acked: Map<string, Ack>;
  signalled: boolean;
  ackedBeforeSignal: number;
  /** Events acknowledged by answers read after the signal was sent. */
  ackedAfterSignal: number;
  requestsOutstandingAtSignal: number;
  eventsOutstandingAtSignal: number;
  /** Requests (and their events) that got no answer: connection refused, reset or cut off. */
  failedRequests: number;
  failedEvents: number;
  /** Requests by HTTP status, `error` for no answer. */
  statuses: Record<string, number>;
  /** Answers that must never happen: rejections, malformed bodies, unexpected statuses. */
  problems: string[];
}

/** A small seeded PRNG (mulberry32), so a failing run can be replayed from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * A valid event of a random type. Each event has its own user (or none), so no two events share
 * a content fingerprint or a vote slot: the dedup window and vote replacement never merge them.
 */
export function makeEvent(id: string, rnd: () => number): WireEvent {
  const base = { id, responseId: `resp-${Math.floor(rnd() * RESPONSES)}`, ...(rnd() < 0.8 ? { userId: `user-${id}` } : {}) };
  const n = Math.floor(rnd() * 1_000_000);
  switch (Math.floor(rnd() * 11)) {
    case 0:
      return { ...base, type: 'thumbs_up' };
    case 1:
      return { ...base, type: 'thumbs_down', payload: { comment: `wrong table ${n}`, category: 'accuracy' } };
    case 2:
      return { ...base, type: 'rating', payload: { rating: 1 + (n % 5) } };
    case 3:
      return { ...base, type: 'comment', payload: { comment: `comment ${id}` } };
    case 4: // no original: the edit distance is computed against the stored answer
      return { ...base, type: 'correction', payload: { corrected: `SELECT region, sum(amount) FROM sales WHERE year = ${1990 + (n % 40)} GROUP BY region` } };
    case 5:
      return { ...base, type: 'correction', payload: { original: 'SELECT 1', corrected: `SELECT ${n}`, format: 'sql' } };
    case 6:
      return { ...base, type: 'edit', payload: { edited: `edited answer ${n}` } };
    case 7:
      return { ...base, type: 'error_categories', payload: { categories: ['hallucination', 'wrong_context'] } };
    case 8:
      return { ...base, type: 'flag_irrelevant', targetId: `frag-${n % 50}`, payload: { reason: 'off topic' } };
    case 9:
      return { ...base, type: 'quality_scores', payload: { accuracy: n % 101 } };
    default:
      return { ...base, type: 'outcome', payload: { metric: 'conversion', value: n / 1000, source: 'integration' } };
  }
}

export const isAck = (s: unknown): s is Ack => s === 'accepted' || s === 'duplicate';

/**
 * Reads one answer: the acknowledged events with their statuses, or the problems it shows.
 * Events without an acknowledgement in a well-formed answer (503) are simply unacknowledged.
 */
export function readAnswer(req: SentRequest, status: number, body: unknown, problems: string[]): Map<string, Ack> {
  const acks = new Map<string, Ack>();
  const first = req.events[0] as WireEvent;
  if (status === 503) return acks;
  if (req.kind === 'single') {
    const b = body as { id?: unknown; status?: unknown } | undefined;
    if (status === 202 && b?.id === first.id && isAck(b.status)) acks.set(first.id, b.status);
    else problems.push(`single ${first.id}: ${status} ${JSON.stringify(body)}`);
    return acks;
  }
  const results = (body as { results?: unknown } | undefined)?.results;
  if (status !== 207 || !Array.isArray(results) || results.length !== req.events.length) {
    problems.push(`batch from ${first.id}: ${status} ${JSON.stringify(body).slice(0, 500)}`);
    return acks;
  }
  req.events.forEach((e, i) => {
    const r = results[i] as { id?: unknown; status?: unknown };
    if (r.id === e.id && isAck(r.status)) acks.set(e.id, r.status);
    else problems.push(`batch event ${e.id}: ${JSON.stringify(r)}`);
  });
  return acks;
}

export const send = (client: JsonClient, req: SentRequest) =>
  req.kind === 'single' ? client.request('POST', '/v1/feedback', req.events[0]) : client.request('POST', '/v1/feedback/batch', { events: req.events });

/**
 * Runs {@link CLIENTS} clients, each sending single events and batches of 20-100 back to back.
 * Once `signalAfterAcked` events are acknowledged, a timer (so the moment is not tied to an
 * answer) calls `signal`; the clients then send nothing new and wait for their requests in flight.
 */
export async function runLoad(client: JsonClient, opts: { prefix: string; seed: number; signalAfterAcked: number; signal: () => void }): Promise<LoadReport> {
  const rnd = prng(opts.seed);
  const report: LoadReport = {
    requests: [],
    acked: new Map(),
    signalled: false,
    ackedBeforeSignal: 0,
    ackedAfterSignal: 0,
    requestsOutstandingAtSignal: 0,
    eventsOutstandingAtSignal: 0,
    failedRequests: 0,
    failedEvents: 0,
    statuses: {},
    problems: [],
  };
  const outstanding = new Set<SentRequest>();
  let generated = 0;
  const deadline = Date.now() + LOAD_TIME_LIMIT_MS;
  const fire = (): void => {
    if (report.signalled) return;
    report.signalled = true;
    report.ackedBeforeSignal = report.acked.size;
    report.requestsOutstandingAtSignal = outstanding.size;
    for (const r of outstanding) report.eventsOutstandingAtSignal += r.events.length;
    opts.signal();
  };
  const trigger = setInterval(() => {
    if (report.acked.size >= opts.signalAfterAcked || Date.now() > deadline || generated >= MAX_EVENTS_PER_LOAD) fire();
  }, 1);

  const worker = async (): Promise<void> => {
    while (!report.signalled && generated < MAX_EVENTS_PER_LOAD) {
      const size = rnd() < 0.5 ? 1 : 20 + Math.floor(rnd() * 81);
      const events = Array.from({ length: size }, () => makeEvent(`${opts.prefix}-${generated++}`, rnd));
      const req: SentRequest = { kind: size === 1 && rnd() < 0.9 ? 'single' : 'batch', events };
      report.requests.push(req);
      outstanding.add(req);
      let answer;
      try {
        answer = await send(client, req);
      } catch (err) {
        // Before the signal every request must be answered.
        if (!report.signalled) report.problems.push(`request from ${events[0]?.id} failed before the signal: ${(err as Error).message}`);
        report.failedRequests++;
        report.failedEvents += events.length;
        report.statuses.error = (report.statuses.error ?? 0) + 1;
        continue;
      } finally {
        outstanding.delete(req);
      }
      report.statuses[answer.status] = (report.statuses[answer.status] ?? 0) + 1;
      if (answer.status === 503 && !report.signalled) report.problems.push(`request from ${events[0]?.id}: 503 before the signal`);
      const acks = readAnswer(req, answer.status, answer.body, report.problems);
      for (const [id, status] of acks) {
        // Every id is new and its content unique: a first submission is never a duplicate.
        if (status !== 'accepted') report.problems.push(`first submission of ${id} answered ${status}`);
        report.acked.set(id, status);
      }
      if (report.signalled) report.ackedAfterSignal += acks.size;
    }
  };
  try {
    await Promise.all(Array.from({ length: CLIENTS }, worker));
  } finally {
    clearInterval(trigger);
  }
  return report;
}

/** Sends every request again, as a client retrying would; returns each event's answer. */
export async function replay(client: JsonClient, requests: SentRequest[], concurrency = 8): Promise<{ answers: Map<string, Ack>; problems: string[] }> {
  const answers = new Map<string, Ack>();
  const problems: string[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let req = requests[next++]; req !== undefined; req = requests[next++]) {
      try {
        const { status, body } = await send(client, req);
        const acks = readAnswer(req, status, body, problems);
        if (status === 503) problems.push(`retry from ${req.events[0]?.id}: 503`);
        for (const [id, s] of acks) answers.set(id, s);
      } catch (err) {
        problems.push(`retry from ${req.events[0]?.id}: ${(err as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { answers, problems };
}

/** All event ids a running server lists, page by page (content duplicates are not listed; the load makes none). */
export async function listedIds(client: JsonClient): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await client.request('GET', `/v1/feedback?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(page.status).toBe(200);
    const body = page.body as { data: Array<{ id: string }>; nextCursor: string | null };
    for (const e of body.data) ids.push(e.id);
    cursor = body.nextCursor;
  } while (cursor !== null);
  return ids;
}

/** Ids stored more than once. */
export function repeated(ids: string[]): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const id of ids) (seen.has(id) ? twice : seen).add(id);
  return [...twice];
}

export const sentIds = (requests: SentRequest[]): string[] => requests.flatMap((r) => r.events.map((e) => e.id));
export const sample = (ids: string[]): string[] => ids.slice(0, 20);
