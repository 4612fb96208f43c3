/**
 * The feedloop client: typed methods for every feedback event type and for responses, batched by
 * size and time, retried with exponential backoff and jitter (network errors, 429, 5xx, honouring
 * Retry-After). Ids are made here (UUIDv7), so a retried batch is deduplicated by the server:
 * nothing acknowledged twice, nothing lost. Runs in browsers and Node (fetch only).
 */
import type { FeedbackEventInput, FeedbackEventType, ResponseInput } from '@feedloop/core';
import { v7 as uuidv7 } from 'uuid';
import { DEFAULT_RETRY, backoffDelay, retryAfterMs, retryableStatus, type RetryPolicy } from './backoff.js';
import { PersistentQueue, type QueueStorage, type QueuedItem } from './queue-store.js';

/** Bodies up to this many characters are sent with `keepalive` (browsers cap keepalive at 64 KiB). */
const KEEPALIVE_MAX_BODY = 60_000;

/** An event of one type, as a caller gives it (the type and response are the method's). */
export type EventFields<T extends FeedbackEventType> = {
  [K in keyof Extract<FeedbackEventInput, { type: T }> as K extends 'type' | 'responseId' | 'targetId' ? never : K]: Extract<FeedbackEventInput, { type: T }>[K];
} & {
  /** A part of the response (required by the label actions: the server says so when missing). */
  targetId?: string;
};

/** The outcome of one item the server judged. */
export interface ItemOutcome {
  id: string;
  kind: 'response' | 'feedback';
  status: 'accepted' | 'created' | 'duplicate' | 'rejected';
  error?: { code: string; message: string; field?: string };
}

/** Options of {@link FeedloopClient}. */
export interface ClientOptions {
  /** Base URL of the feedloop server, e.g. `https://feedback.example.com`. */
  url: string;
  /** A key: public (`fl_pk_…`, browsers) or secret (`fl_sk_…`, servers; needed for responses). */
  key?: string;
  /** A feedback token instead of a key (one response; events are sent one by one). */
  token?: string;
  /** Items per request at most (default 10 with a public key or token, 100 otherwise). */
  maxBatchSize?: number;
  /** How long an item waits for companions before a flush (default 1000 ms). */
  flushIntervalMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Where unsent items survive a reload; default `localStorage` in a browser, none in Node. */
  storage?: QueueStorage | null;
  /** Storage key of the queue (default `feedloop:queue`). */
  storageKey?: string;
  /** The queue's size cap in bytes (default 256 KiB); past it the oldest items are dropped. */
  maxQueueBytes?: number;
  /** Hears every judged item (accepted, duplicate, rejected). */
  onOutcome?: (outcome: ItemOutcome) => void;
  /** Hears items dropped by the size cap. */
  onDrop?: (items: QueuedItem[]) => void;
  /** The fetch to use (default the global one). */
  fetch?: typeof fetch;
}

/** What one flush did. */
export interface FlushResult {
  sent: number;
  rejected: number;
  /** Items still queued (the server could not be reached within the retry policy). */
  pending: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const defaultStorage = (): QueueStorage | undefined => {
  try {
    const ls = (globalThis as { localStorage?: QueueStorage }).localStorage;
    return ls ?? undefined;
  } catch {
    return undefined;
  }
};

/**
 * A batching, retrying client.
 *
 * @example
 * const fl = new FeedloopClient({ url: 'http://127.0.0.1:8787', key: 'fl_sk_…' });
 * const responseId = fl.response({ query: 'Sales last month?', answer: 'SELECT …' });
 * fl.thumbsDown(responseId, { payload: { comment: 'wrong table' } });
 * await fl.shutdown();
 */
export class FeedloopClient {
  readonly #options: ClientOptions;
  readonly #queue: PersistentQueue;
  readonly #retry: RetryPolicy;
  readonly #maxBatch: number;
  readonly #fetch: typeof fetch;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #flushing: Promise<FlushResult> | undefined;
  #closed = false;

  constructor(options: ClientOptions) {
    if (!options.key && !options.token) throw new Error('feedloop client: give a key or a token');
    this.#options = options;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    const limited = options.token !== undefined || options.key?.startsWith('fl_pk_') === true;
    this.#maxBatch = options.maxBatchSize ?? (limited ? 10 : 100);
    this.#fetch = options.fetch ?? ((...args) => globalThis.fetch(...args));
    const storage = options.storage === null ? undefined : (options.storage ?? defaultStorage());
    this.#queue = new PersistentQueue(storage, options.storageKey ?? 'feedloop:queue', options.maxQueueBytes ?? 262_144, options.onDrop);
    // What a previous page left unsent goes out now; and again when the browser is back online.
    if (this.#queue.items.length > 0) this.#schedule(0);
    const g = globalThis as { addEventListener?: (type: string, fn: () => void) => void };
    g.addEventListener?.('online', () => this.#schedule(0));
  }

  /** Items not yet acknowledged. */
  get pending(): number {
    return this.#queue.items.length;
  }

  /**
   * Registers a response (secret key); returns its id (the given one, or a UUIDv7 made here) so
   * feedback can name it at once.
   */
  response(response: Omit<ResponseInput, 'id'> & { id?: string }): string {
    const id = response.id ?? uuidv7();
    this.#enqueue({ kind: 'response', body: { ...response, id } });
    return id;
  }

  /** Queues any feedback event; returns its id. */
  event<T extends FeedbackEventType>(type: T, responseId: string, fields?: EventFields<T>): string {
    const f = (fields ?? {}) as { id?: string };
    const id = f.id ?? uuidv7();
    const body: Record<string, unknown> & { id: string } = { ...f, id, type };
    // With a token the response is the token's: sending it is allowed but not needed.
    if (!this.#options.token || responseId) body.responseId = responseId;
    this.#enqueue({ kind: 'feedback', body });
    return id;
  }

  thumbsUp(responseId: string, fields?: EventFields<'thumbs_up'>): string { return this.event('thumbs_up', responseId, fields); }
  thumbsDown(responseId: string, fields?: EventFields<'thumbs_down'>): string { return this.event('thumbs_down', responseId, fields); }
  rating(responseId: string, fields: EventFields<'rating'>): string { return this.event('rating', responseId, fields); }
  skip(responseId: string, fields?: EventFields<'skip'>): string { return this.event('skip', responseId, fields); }
  comment(responseId: string, fields: EventFields<'comment'>): string { return this.event('comment', responseId, fields); }
  errorCategories(responseId: string, fields: EventFields<'error_categories'>): string { return this.event('error_categories', responseId, fields); }
  qualityScores(responseId: string, fields: EventFields<'quality_scores'>): string { return this.event('quality_scores', responseId, fields); }
  review(responseId: string, fields: EventFields<'review'>): string { return this.event('review', responseId, fields); }
  correction(responseId: string, fields: EventFields<'correction'>): string { return this.event('correction', responseId, fields); }
  escalation(responseId: string, fields?: EventFields<'escalation'>): string { return this.event('escalation', responseId, fields); }
  correctLabel(responseId: string, fields: EventFields<'correct_label'>): string { return this.event('correct_label', responseId, fields); }
  flagIrrelevant(responseId: string, fields?: EventFields<'flag_irrelevant'>): string { return this.event('flag_irrelevant', responseId, fields); }
  flagMissing(responseId: string, fields: EventFields<'flag_missing'>): string { return this.event('flag_missing', responseId, fields); }
  correctCitation(responseId: string, fields: EventFields<'correct_citation'>): string { return this.event('correct_citation', responseId, fields); }
  rateUsefulness(responseId: string, fields: EventFields<'rate_usefulness'>): string { return this.event('rate_usefulness', responseId, fields); }
  addNote(responseId: string, fields: EventFields<'add_note'>): string { return this.event('add_note', responseId, fields); }
  edit(responseId: string, fields: EventFields<'edit'>): string { return this.event('edit', responseId, fields); }
  retry(responseId: string, fields: EventFields<'retry'>): string { return this.event('retry', responseId, fields); }
  abandon(responseId: string, fields?: EventFields<'abandon'>): string { return this.event('abandon', responseId, fields); }
  continueUse(responseId: string, fields?: EventFields<'continue'>): string { return this.event('continue', responseId, fields); }
  implicitAccept(responseId: string, fields?: EventFields<'implicit_accept'>): string { return this.event('implicit_accept', responseId, fields); }
  implicitReject(responseId: string, fields?: EventFields<'implicit_reject'>): string { return this.event('implicit_reject', responseId, fields); }
  outcome(responseId: string, fields: EventFields<'outcome'>): string { return this.event('outcome', responseId, fields); }

  /**
   * Sends everything queued, batch by batch (responses before feedback), retrying per the
   * policy. Resolves when the queue is empty or a batch ran out of attempts (it stays queued).
   */
  flush(): Promise<FlushResult> {
    // One flush at a time; a caller arriving meanwhile waits for it, then flushes what is left.
    const previous = this.#flushing ?? Promise.resolve({ sent: 0, rejected: 0, pending: 0 });
    const next = previous.then(() => this.#flushAll());
    this.#flushing = next.finally(() => {
      if (this.#flushing === wrapped) this.#flushing = undefined;
    });
    const wrapped = this.#flushing;
    return next;
  }

  /** Stops taking items, flushes (within `timeoutMs`, default 10 s), and stops its timer. */
  async shutdown(timeoutMs = 10_000): Promise<FlushResult> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<FlushResult>((resolve) => {
      timer = setTimeout(() => resolve({ sent: 0, rejected: 0, pending: this.pending }), timeoutMs);
    });
    try {
      return await Promise.race([this.flush(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  #enqueue(item: QueuedItem): void {
    if (this.#closed) throw new Error('feedloop client: shut down');
    this.#queue.push(item);
    this.#schedule(this.#queue.items.length >= this.#maxBatch ? 0 : (this.#options.flushIntervalMs ?? 1_000));
  }

  #schedule(delayMs: number): void {
    if (this.#closed) return;
    if (this.#timer && delayMs > 0) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.flush().catch(() => undefined);
    }, delayMs);
  }

  async #flushAll(): Promise<FlushResult> {
    const total: FlushResult = { sent: 0, rejected: 0, pending: 0 };
    for (;;) {
      const items = this.#queue.items;
      const kind = items.some((i) => i.kind === 'response') ? 'response' : 'feedback';
      const batch = items.filter((i) => i.kind === kind).slice(0, this.#options.token ? 1 : this.#maxBatch);
      if (batch.length === 0) break;
      const outcomes = await this.#send(kind, batch);
      if (!outcomes) break;
      for (const o of outcomes) {
        if (o.status === 'rejected') total.rejected++;
        else total.sent++;
        this.#options.onOutcome?.(o);
      }
      this.#queue.remove(new Set(batch.map((b) => b.body.id)));
    }
    total.pending = this.pending;
    return total;
  }

  /** One batch with retries; undefined when attempts ran out. */
  async #send(kind: 'response' | 'feedback', batch: QueuedItem[]): Promise<ItemOutcome[] | undefined> {
    const { url, key, token } = this.#options;
    const base = url.replace(/\/+$/, '');
    let path: string;
    let body: unknown;
    if (token) {
      path = `/v1/feedback/token/${encodeURIComponent(token)}`;
      body = batch[0]?.body;
    } else if (kind === 'response') {
      path = '/v1/responses/batch';
      body = { responses: batch.map((b) => b.body) };
    } else {
      path = '/v1/feedback/batch';
      body = { events: batch.map((b) => b.body) };
    }
    for (let attempt = 1; attempt <= this.#retry.maxAttempts; attempt++) {
      let wait: number | undefined;
      try {
        const text = JSON.stringify(body);
        const res = await this.#fetch(base + path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(key && !token ? { authorization: `Bearer ${key}` } : {}) },
          body: text,
          // keepalive: a request a page starts as it is hidden or unloaded still reaches the server
          // (the widget flushes on pagehide). Browsers cap keepalive bodies at 64 KiB in flight.
          ...(text.length <= KEEPALIVE_MAX_BODY ? { keepalive: true } : {}),
        });
        const json = (await res.json().catch(() => undefined)) as
          | { results?: Array<{ id: string | null; status: ItemOutcome['status']; error?: ItemOutcome['error'] }>; id?: string; status?: ItemOutcome['status']; error?: ItemOutcome['error'] }
          | undefined;
        if (!retryableStatus(res.status)) {
          if (json?.results) {
            return json.results.map((r, i) => ({ ...r, id: r.id ?? batch[i]?.body.id ?? '', kind }));
          }
          const only = batch[0]?.body.id ?? '';
          if (res.ok && json?.status) return [{ id: only, kind, status: json.status }];
          // A whole request refused (bad key, token scope, bad event): its items will not pass later.
          return batch.map((b) => ({ id: b.body.id, kind, status: 'rejected' as const, ...(json?.error ? { error: json.error } : {}) }));
        }
        wait = retryAfterMs(res.headers.get('retry-after'));
      } catch {
        // Network error: the server may have stored the batch; the ids make the retry safe.
      }
      if (attempt < this.#retry.maxAttempts) await sleep(wait ?? backoffDelay(attempt, this.#retry));
    }
    return undefined;
  }
}
