/**
 * The write side of the API in one place: rate limits for public keys, id assignment, and the
 * group committers for feedback and responses. Routes (v1 and the seeds' compatible ones)
 * validate and map their input, then call this.
 */
import { sourceClaimError, validateTraceUpdate, type FeedbackEvent, type ResponseRegistration, type TraceUpdate } from '@feedloop/core';
import { v7 as uuidv7 } from 'uuid';
import type { SqlClient } from '../db/sql-client.js';
import { FeedloopError } from '../errors.js';
import type { AuthContext } from '../store/auth-context.js';
import type { Metrics } from '../metrics.js';
import type { EventKey } from '../store/pipeline-pending.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.js';
import { AnswerCache } from './answer-cache.js';
import { DiffPool, type DiffPoolOptions } from './diff-pool.js';
import { computeEditDistances } from './edit-distances.js';
import { writeFeedbackBatch, type FeedbackOutcome, type FeedbackSubmission, type WriterOutcome } from '../store/feedback-writer.js';
import { GroupCommitter } from './group-commit.js';
import { ConsentReader } from './consent-reader.js';
import { screenFeedback } from './privacy-screen.js';
import { resolveScores } from './score-resolution.js';
import { protectResponse, protectTraceUpdate } from './query-privacy.js';
import { ResponseFactsCache } from '../store/response-facts-cache.js';
import { retractEvent, type Retraction } from '../store/feedback-retraction.js';
import { writeResponseBatch, type ResponseOutcome, type ResponseSubmission } from '../store/response-writer.js';
import { upsertTraceBatch, type TraceOutcome, type TraceSubmission } from '../store/trace-upserts.js';
import { isolateFailures, unavailableOnFailure } from './commit-failures.js';

const RATE_WINDOW_MS = 60_000;
/** Events per transaction at most; a batch request of 1,000 fits whole. */
const MAX_COMMIT_BATCH = 5_000;
/**
 * A second feedback flush starts while one is in flight only once half as many events wait as
 * that one carries (see group-commit.ts): measured at 50 connections on Postgres, flushes of one
 * or two events fell from ~20 % of all to ~5 %, the mean batch rose from 15 to ~20 events, and
 * each event cost less CPU in the server and in Postgres (docs/benchmarks.md).
 */
const OVERLAP_SHARE = 0.5;

/**
 * Accepts feedback and responses for the API.
 *
 * @example
 * const ingest = new IngestService(db, limiter, metrics, 2);
 * const [outcome] = await ingest.submitFeedback(auth, [event]); // after commit
 */
export class IngestService {
  readonly #feedback: GroupCommitter<FeedbackSubmission, WriterOutcome>;
  readonly #responses: GroupCommitter<ResponseSubmission, ResponseOutcome>;
  readonly #traces: GroupCommitter<TraceSubmission, TraceOutcome>;
  readonly #db: SqlClient;
  readonly #consent: ConsentReader;
  readonly #diffs: DiffPool;
  /** Answers registered here lately: a correction's diff then needs no query (see answer-cache.ts). */
  readonly #answers = new AnswerCache();
  /** Hears of committed events (the pipeline's enqueue); retractions hand their event to it too. */
  readonly #onCommitted: (keys: EventKey[]) => void;
  /** Hears of newly created responses (evaluators judge them; issue 28). */
  #onResponsesCreated: (workspaceId: string, responseIds: string[]) => void = () => undefined;
  /** Submissions whose edit distances are being computed (not yet in a committer): drain waits for them. */
  readonly #preparing = new Set<Promise<void>>();

  /**
   * @param onCommitted hears of each committed batch's stored events (the pipeline's enqueue); it
   *   must not throw, and nothing waits for it: the outbox row written with each event is what
   *   guarantees processing.
   * @param diff the diff pool's threads and time budget (config `diffThreads`, `diffTimeBudgetMs`).
   */
  constructor(
    db: SqlClient,
    private readonly limiter: RateLimiter,
    private readonly metrics: Metrics,
    writeConcurrency: number,
    onCommitted: (keys: EventKey[]) => void = () => undefined,
    diff: Pick<DiffPoolOptions, 'threads' | 'timeBudgetMs'> = { threads: 1, timeBudgetMs: 10_000 },
  ) {
    this.#db = db;
    this.#onCommitted = onCommitted;
    this.#consent = new ConsentReader(db);
    this.#diffs = new DiffPool({ ...diff, onFallback: (reason) => metrics.editDistanceFallbacks.inc({ reason }) });
    const concurrency = db.dialect === 'pglite' ? 1 : writeConcurrency;
    const cache = new ResponseFactsCache();
    this.#feedback = new GroupCommitter(
      async (items) => {
        metrics.commitBatchSize.observe({ kind: 'feedback' }, items.length);
        const outcomes = await writeFeedbackBatch(db, items, { cache });
        // Retries of stored ids are handed over too: processing is idempotent, and a cheap no-op.
        const keys: EventKey[] = [];
        outcomes.forEach((o, i) => {
          const item = items[i];
          if ((o.status === 'accepted' || o.status === 'duplicate') && item) keys.push([item.workspaceId, o.id]);
        });
        onCommitted(keys);
        return outcomes;
      },
      {
        maxBatch: MAX_COMMIT_BATCH,
        concurrency,
        overlapShare: OVERLAP_SHARE,
        ...isolateFailures<FeedbackSubmission, WriterOutcome>((item, error) => ({ id: item.event.id, status: 'rejected', error })),
      },
    );
    this.#responses = new GroupCommitter(
      (items) => {
        metrics.commitBatchSize.observe({ kind: 'responses' }, items.length);
        return writeResponseBatch(db, items);
      },
      {
        maxBatch: MAX_COMMIT_BATCH,
        concurrency,
        ...isolateFailures<ResponseSubmission, ResponseOutcome>((item, error) => ({ id: item.response.id, status: 'rejected', error })),
      },
    );
    this.#traces = new GroupCommitter(
      (items) => {
        metrics.commitBatchSize.observe({ kind: 'traces' }, items.length);
        return upsertTraceBatch(db, items);
      },
      {
        maxBatch: MAX_COMMIT_BATCH,
        concurrency,
        ...isolateFailures<TraceSubmission, TraceOutcome>((item, error) => ({ id: item.update.id, status: 'rejected', error })),
      },
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
   * Takes `cost` from a feedback token's own window (`limitPerMinute`): a token is handed to one
   * page, so it gets a budget of its own whatever the IP. Fails open when the limiter is down.
   *
   * @throws FeedloopError `FEEDLOOP_ERR_RATE_LIMITED` with `retryAfterSeconds`.
   * @example
   * await ingest.checkTokenRate(tokenDigest, 1, config.tokenRateLimitPerMinute);
   */
  async checkTokenRate(tokenKey: string, cost: number, limitPerMinute: number): Promise<void> {
    let decision;
    try {
      decision = await this.limiter.take(`token:${tokenKey}`, cost, limitPerMinute, RATE_WINDOW_MS);
    } catch {
      return;
    }
    if (!decision.allowed) {
      const retryAfterSeconds = Math.max(1, Math.ceil(decision.resetMs / 1000));
      throw new FeedloopError('FEEDLOOP_ERR_RATE_LIMITED', `at most ${limitPerMinute} feedback events a minute with one feedback token; retry in ${retryAfterSeconds} s`, {
        retryAfterSeconds,
      });
    }
  }

  /**
   * Writes validated events; each outcome arrives after its commit. Rejections are counted by
   * the caller ({@link countRejected}), which also sees the ones validation made. A `score` event
   * is validated against its config and mapped (`mapsTo`) first: the one entry point for named
   * scores, the compatibility layers' included (docs/scores.md). `trust.client`
   * is the hashed client of an anonymous submitter (see anonymous-client.ts): the dedup identity
   * of events with neither user nor session.
   */
  async submitFeedback(auth: AuthContext, events: FeedbackEvent[], trust: { verified?: boolean; client?: string } = {}): Promise<FeedbackOutcome[]> {
    // Named scores first (score-resolution.ts): validated against their configs and mapped; a
    // refused one is answered here with the others' outcomes, in order.
    const withIds = events.map((event) => ({ ...event, id: event.id ?? uuidv7() }));
    // A browser key or a feedback token speaks for the user: it may not claim a reviewer's or an
    // evaluator's voice (source-claims.ts). Refused alone, as any bad item of a batch.
    const claims = withIds.map((event) => sourceClaimError(event.source, auth.kind));
    if (claims.some((c) => c !== undefined)) {
      const allowed = withIds.filter((_, i) => claims[i] === undefined);
      const written = allowed.length === 0 ? [] : await this.submitFeedback(auth, allowed, trust);
      let next = 0;
      return withIds.map((event, i): FeedbackOutcome => {
        const refused = claims[i];
        return refused ? { id: event.id, status: 'rejected', error: refused } : (written[next++] as FeedbackOutcome);
      });
    }
    const resolved = await unavailableOnFailure(resolveScores(this.#db, auth.workspaceId, withIds));
    if (resolved.some((r) => !r.ok)) {
      const accepted = resolved.flatMap((r) => (r.ok ? [r.event] : []));
      const written = await this.submitResolved(auth, accepted, trust);
      let next = 0;
      return resolved.map((r, i): FeedbackOutcome => (r.ok ? (written[next++] as FeedbackOutcome) : { id: withIds[i]?.id ?? '', status: 'rejected', error: r.error }));
    }
    return this.submitResolved(
      auth,
      resolved.flatMap((r) => (r.ok ? [r.event] : [])),
      trust,
    );
  }

  /**
   * {@link submitFeedback} after score resolution: consent, privacy, edit distances, the writer.
   * `readConsent`: screen with a read of the users' consent, never leaving it to the write (the
   * second pass of events the write held back for consent).
   */
  private async submitResolved(
    auth: AuthContext,
    events: FeedbackEvent[],
    trust: { verified?: boolean; client?: string },
    readConsent = false,
  ): Promise<FeedbackOutcome[]> {
    if (events.length === 0) return [];
    const withIds = events.map((event) => ({ ...event, id: event.id ?? uuidv7() }));
    // Consent, sampling and redaction (privacy-screen.ts): refused and sampled-out events are
    // answered here and never reach the writer.
    // Tracked like the diffs below, so a drain waits for a request still being screened.
    const screening = screenFeedback(this.#consent, auth.workspaceId, auth.settings, withIds, { read: readConsent });
    const screeningSettled = screening.then(
      () => undefined,
      () => undefined,
    );
    this.#preparing.add(screeningSettled);
    const screened = await unavailableOnFailure(screening).finally(() => this.#preparing.delete(screeningSettled));
    const submissions: FeedbackSubmission[] = screened.flatMap((s) =>
      s.kind !== 'write'
        ? []
        : [
            {
              workspaceId: auth.workspaceId,
              settings: auth.settings,
              event: s.event,
              trustClientTime: auth.kind === 'secret',
              verified: trust.verified ?? auth.kind === 'secret',
              sampleWeight: s.sampleWeight,
              ...(trust.client ? { client: trust.client } : {}),
              ...(s.consentUnread ? { consentUnread: true } : {}),
            },
          ],
    );
    const written = await this.writeFeedback(auth.workspaceId, submissions);
    // Held back by the write: their users have stated consent, which the screen did not read.
    // Read now, and submitted again; the workspace reads first for a while (consent-reader.ts).
    const writes = withIds.filter((_, i) => screened[i]?.kind === 'write');
    const heldEvents = writes.filter((_, j) => written[j]?.status === 'consent_held');
    if (heldEvents.length > 0) this.#consent.noteStated(auth.workspaceId);
    const again = await this.submitResolved(auth, heldEvents, trust, true);
    let nextAgain = 0;
    let next = 0;
    return screened.map((s): FeedbackOutcome => {
      if (s.kind === 'write') {
        const outcome = written[next++] as WriterOutcome;
        return outcome.status === 'consent_held' ? (again[nextAgain++] as FeedbackOutcome) : outcome;
      }
      if (s.kind === 'sampled') {
        this.metrics.feedbackEvents.inc({ status: 'sampled', code: '' });
        return { id: s.id, status: 'sampled' };
      }
      return { id: s.id, status: 'rejected', error: { code: 'FEEDLOOP_ERR_CONSENT_REQUIRED', message: s.message } };
    });
  }

  /** Computes edit distances, then writes through the group committer. */
  private async writeFeedback(workspaceId: string, submissions: FeedbackSubmission[]): Promise<WriterOutcome[]> {
    if (submissions.length === 0) return [];
    // Diffs run here, before the group commit (big ones in worker threads): the flush only writes.
    const prepared = computeEditDistances(this.#db, this.#diffs, workspaceId, submissions, this.#answers);
    const settled = prepared.then(
      () => undefined,
      () => undefined,
    );
    this.#preparing.add(settled);
    // Leaves `#preparing` in the same step as it enters the committer, so drain never misses it.
    const outcomes = await unavailableOnFailure(
      prepared.then(
        () => {
          this.#preparing.delete(settled);
          return this.#feedback.submitMany(submissions);
        },
        (err: unknown) => {
          this.#preparing.delete(settled);
          throw err;
        },
      ),
    );
    for (const o of outcomes) if (o.status === 'accepted' || o.status === 'duplicate') this.metrics.feedbackEvents.inc({ status: o.status, code: '' });
    return outcomes;
  }

  /**
   * Retracts a feedback event of the caller's workspace (issue 26; LangSmith's and Langfuse's
   * DELETE, `DELETE /v1/feedback/:eventId`): the event stays in the log marked retracted, the
   * audit log records it, and the pipeline reverses its effects (live counters, response scores,
   * day rollups, user memory, exports leave it out). Retracting again changes nothing and answers
   * the first retraction (`changed: false`). Which keys may retract is the route's decision.
   *
   * @throws FeedloopError `FEEDLOOP_ERR_FEEDBACK_NOT_FOUND` when the workspace has no event of that id.
   * @example
   * const r = await ingest.retractFeedback(auth, 'evt-1', 'deleted in LangSmith');
   * // { eventId: 'evt-1', responseId: 'r1', type: 'thumbs_down', retractedAt, reason: 'deleted in LangSmith', changed: true }
   */
  async retractFeedback(auth: AuthContext, eventId: string, reason?: string): Promise<Retraction> {
    const done = await unavailableOnFailure(retractEvent(this.#db, auth.workspaceId, eventId, { ...(reason === undefined ? {} : { reason }), actorKeyId: auth.keyId }));
    if (!done) throw new FeedloopError('FEEDLOOP_ERR_FEEDBACK_NOT_FOUND', `eventId: no feedback event ${JSON.stringify(eventId)} in this workspace`, { field: 'eventId' });
    // The outbox row written with the retraction guarantees the reversal; this only hastens it.
    if (done.changed) this.#onCommitted([[auth.workspaceId, eventId]]);
    return done;
  }

  /** Counts rejected events in the metrics. */
  countRejected(code: string, n = 1): void {
    this.metrics.feedbackEvents.inc({ status: 'rejected', code }, n);
  }

  /**
   * Sets who hears of responses created by {@link registerResponses}, after their commit (the
   * composition root: evaluators judge new responses). The listener must not throw, and nothing
   * waits for it; a response it misses is a backfill's to judge.
   */
  onResponsesCreated(listener: (workspaceId: string, responseIds: string[]) => void): void {
    this.#onResponsesCreated = listener;
  }

  /** Writes validated responses; each outcome arrives after its commit. */
  async registerResponses(auth: AuthContext, responses: ResponseRegistration[]): Promise<ResponseOutcome[]> {
    const submissions = responses.map((response) => ({ workspaceId: auth.workspaceId, response: protectResponse({ ...response, id: response.id ?? uuidv7() }, auth.settings) }));
    const outcomes = await unavailableOnFailure(this.#responses.submitMany(submissions));
    outcomes.forEach((o, i) => {
      this.metrics.responses.inc({ status: o.status });
      // Only a created response's answer is the stored one (a duplicate id keeps the first answer).
      const s = submissions[i];
      if (o.status === 'created' && s) this.#answers.set(s.workspaceId, s.response.id, s.response.answer);
    });
    const created = outcomes.flatMap((o, i) => (o.status === 'created' && submissions[i] ? [submissions[i].response.id] : []));
    if (created.length > 0) this.#onResponsesCreated(auth.workspaceId, created);
    return outcomes;
  }

  /**
   * Creates or updates the responses of traces, one piece each (the tracing drop-ins' one write;
   * docs/compat.md): a piece of a response not stored yet creates it (bare while it has no query
   * and no answer), a later one updates it, last write wins per field, and feedback already given
   * stays attached. Pieces are validated again one by one (`validateTraceUpdate`; a typed piece may
   * still hold a bad id or an unstorable text): a bad one is rejected
   * alone, naming its field. Each outcome arrives after its commit, in order.
   *
   * @example
   * await ingest.upsertTraces(auth, [{ id: 't1' }, { id: 't1', query: 'Hi?', answer: 'Hello' }])
   * // [{ id: 't1', status: 'created' }, { id: 't1', status: 'updated' }]
   */
  async upsertTraces(auth: AuthContext, updates: readonly TraceUpdate[]): Promise<TraceOutcome[]> {
    const checked = updates.map((u) => validateTraceUpdate(u));
    const submissions: TraceSubmission[] = checked.flatMap((c) => (c.ok ? [{ workspaceId: auth.workspaceId, update: protectTraceUpdate(c.value, auth.settings) }] : []));
    const written = submissions.length === 0 ? [] : await unavailableOnFailure(this.#traces.submitMany(submissions));
    written.forEach((o, i) => {
      // A later correction's diff reads the answer from this cache first: keep it current.
      const s = submissions[i];
      if (o.status !== 'rejected' && s?.update.answer) this.#answers.set(s.workspaceId, s.update.id, s.update.answer);
    });
    let next = 0;
    return checked.map((c, i): TraceOutcome => {
      if (c.ok) return written[next++] as TraceOutcome;
      const id: unknown = (updates[i] as { id?: unknown } | undefined)?.id;
      return { id: typeof id === 'string' ? id : '', status: 'rejected', error: c.error };
    });
  }

  /** Waits until everything submitted is written (graceful shutdown). */
  async drain(): Promise<void> {
    while (this.#preparing.size > 0) await Promise.all([...this.#preparing]);
    await Promise.all([this.#feedback.drain(), this.#responses.drain(), this.#traces.drain()]);
  }

  /** Drains, then ends the diff pool's threads (shutdown; tests must not leave threads behind). */
  async close(): Promise<void> {
    await this.drain();
    await this.#diffs.close();
  }
}
