/**
 * The write side of the API in one place: rate limits for public keys, id assignment, and the
 * group committers for feedback and responses. Routes (v1 and the seeds' compatible ones)
 * validate and map their input, then call this.
 */
import type { FeedbackEvent, ResponseRegistration } from '@feedloop/core';
import { v7 as uuidv7 } from 'uuid';
import type { SqlClient } from '../db/sql-client.js';
import { FeedloopError } from '../errors.js';
import type { AuthContext } from '../store/auth-context.js';
import type { Metrics } from '../metrics.js';
import type { EventKey } from '../pipeline/pipeline-jobs.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.js';
import { writeFeedbackBatch, type FeedbackOutcome, type FeedbackSubmission } from './feedback-writer.js';
import { GroupCommitter } from './group-commit.js';
import { ResponseFactsCache } from './response-facts-cache.js';
import { writeResponseBatch, type ResponseOutcome, type ResponseSubmission } from './response-writer.js';

const RATE_WINDOW_MS = 60_000;
/** Events per transaction at most; a batch request of 1,000 fits whole. */
const MAX_COMMIT_BATCH = 5_000;

/** A failed write is the database's trouble, not the client's: 503, so the client retries. */
async function unavailableOnFailure<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    throw new FeedloopError('FEEDLOOP_ERR_UNAVAILABLE', 'the database did not take the write; retry', { cause: err });
  }
}

/**
 * Accepts feedback and responses for the API.
 *
 * @example
 * const ingest = new IngestService(db, limiter, metrics, 2);
 * const [outcome] = await ingest.submitFeedback(auth, [event]); // after commit
 */
export class IngestService {
  readonly #feedback: GroupCommitter<FeedbackSubmission, FeedbackOutcome>;
  readonly #responses: GroupCommitter<ResponseSubmission, ResponseOutcome>;

  /**
   * @param onCommitted hears of each committed batch's stored events (the pipeline's enqueue); it
   *   must not throw, and nothing waits for it: the outbox row written with each event is what
   *   guarantees processing.
   */
  constructor(
    db: SqlClient,
    private readonly limiter: RateLimiter,
    private readonly metrics: Metrics,
    writeConcurrency: number,
    onCommitted: (keys: EventKey[]) => void = () => undefined,
  ) {
    const concurrency = db.dialect === 'pglite' ? 1 : writeConcurrency;
    const cache = new ResponseFactsCache();
    this.#feedback = new GroupCommitter(
      async (items) => {
        metrics.commitBatchSize.observe({ kind: 'feedback' }, items.length);
        const outcomes = await unavailableOnFailure(writeFeedbackBatch(db, items, { cache }));
        // Retries of stored ids are handed over too: processing is idempotent, and a cheap no-op.
        const keys: EventKey[] = [];
        outcomes.forEach((o, i) => {
          const item = items[i];
          if (o.status !== 'rejected' && item) keys.push([item.workspaceId, o.id]);
        });
        onCommitted(keys);
        return outcomes;
      },
      { maxBatch: MAX_COMMIT_BATCH, concurrency },
    );
    this.#responses = new GroupCommitter(
      (items) => {
        metrics.commitBatchSize.observe({ kind: 'responses' }, items.length);
        return unavailableOnFailure(writeResponseBatch(db, items));
      },
      { maxBatch: MAX_COMMIT_BATCH, concurrency },
    );
  }

  /**
   * Enforces the per-IP limit of public keys (`cost` events); secret keys are not limited.
   *
   * @throws FeedloopError `FEEDLOOP_ERR_RATE_LIMITED` with `retryAfterSeconds`.
   */
  async checkRate(auth: AuthContext, ip: string, cost: number): Promise<void> {
    if (auth.kind !== 'public') return;
    const limit = auth.settings.publicRateLimitPerMinute;
    let decision;
    try {
      decision = await this.limiter.take(`${auth.workspaceId}:${ip}`, cost, limit, RATE_WINDOW_MS);
    } catch {
      // A limiter outage must not lose feedback: fail open.
      return;
    }
    if (!decision.allowed) {
      const retryAfterSeconds = Math.max(1, Math.ceil(decision.resetMs / 1000));
      throw new FeedloopError(
        'FEEDLOOP_ERR_RATE_LIMITED',
        `at most ${limit} feedback events a minute from one client with a public key; retry in ${retryAfterSeconds} s`,
        { retryAfterSeconds },
      );
    }
  }

  /**
   * Writes validated events; each outcome arrives after its commit. Rejections are counted by
   * the caller ({@link countRejected}), which also sees the ones validation made.
   */
  async submitFeedback(auth: AuthContext, events: FeedbackEvent[]): Promise<FeedbackOutcome[]> {
    const outcomes = await this.#feedback.submitMany(
      events.map((event) => ({
        workspaceId: auth.workspaceId,
        settings: auth.settings,
        event: { ...event, id: event.id ?? uuidv7() },
        trustClientTime: auth.kind === 'secret',
      })),
    );
    for (const o of outcomes) if (o.status !== 'rejected') this.metrics.feedbackEvents.inc({ status: o.status, code: '' });
    return outcomes;
  }

  /** Counts rejected events in the metrics. */
  countRejected(code: string, n = 1): void {
    this.metrics.feedbackEvents.inc({ status: 'rejected', code }, n);
  }

  /** Writes validated responses; each outcome arrives after its commit. */
  async registerResponses(auth: AuthContext, responses: ResponseRegistration[]): Promise<ResponseOutcome[]> {
    const outcomes = await this.#responses.submitMany(
      responses.map((response) => ({ workspaceId: auth.workspaceId, response: { ...response, id: response.id ?? uuidv7() } })),
    );
    for (const o of outcomes) this.metrics.responses.inc({ status: o.status });
    return outcomes;
  }

  /** Waits until everything submitted is written (graceful shutdown). */
  async drain(): Promise<void> {
    await Promise.all([this.#feedback.drain(), this.#responses.drain()]);
  }
}
