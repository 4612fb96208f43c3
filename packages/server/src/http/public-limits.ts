/**
 * Limits of public keys, enforced before a body is read. A public key is in every visitor's
 * browser, so what it may cost the server must be small and decided early: the rate limit is
 * charged (1 event at least), then a body larger than `publicBodyLimitBytes` is refused by its
 * Content-Length, both before the body is read; a chunked body is cut off at the limit while
 * it streams. After parsing, a batch may hold `publicBatchMax` events at most, and pays for the
 * events beyond the one charged up front ({@link chargeEvents}).
 */
import { Transform, type TransformCallback } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { FeedloopError } from '../errors.js';
import type { IngestService } from '../ingest/ingest-service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Events already taken from the public-key rate limit for this request. */
    rateCharged: number;
  }
}

const tooLarge = (limit: number): FeedloopError =>
  new FeedloopError('FEEDLOOP_ERR_VALIDATION_BODY_TOO_LARGE', `a request with a public key may carry at most ${limit} bytes`);

/** Counts bytes as they stream and fails the stream once they pass the limit. */
class ByteCap extends Transform {
  #seen = 0;
  constructor(private readonly limit: number) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.#seen += chunk.length;
    if (this.#seen > this.limit) done(tooLarge(this.limit));
    else done(null, chunk);
  }
}

/** Whether the request is made with a public key (authenticated by the auth hook, which runs first). */
const isPublic = (request: FastifyRequest): boolean => request.auth?.kind === 'public';

/**
 * Adds the hooks; register after the authentication hook.
 *
 * @example
 * installAuth(app, keys); installPublicLimits(app, config, ingest);
 */
export function installPublicLimits(app: FastifyInstance, config: Pick<Config, 'publicBodyLimitBytes'>, ingest: Pick<IngestService, 'checkRate'>): void {
  app.decorateRequest('rateCharged', 0);
  app.addHook('onRequest', async (request) => {
    const auth = request.auth;
    if (!auth || auth.kind !== 'public') return;
    // The rate first: a client over its limit is told to wait, whatever it sends.
    await ingest.checkRate(auth, request.ip, 1);
    request.rateCharged = 1;
    const length = Number(request.headers['content-length']);
    if (Number.isFinite(length) && length > config.publicBodyLimitBytes) throw tooLarge(config.publicBodyLimitBytes);
  });
  app.addHook('preParsing', async (request, _reply, payload) => {
    // Content-Length was checked above; a chunked body has none and is counted as it streams.
    if (!isPublic(request) || request.headers['content-length'] !== undefined) return payload;
    return payload.pipe(new ByteCap(config.publicBodyLimitBytes));
  });
}

/**
 * Takes what is left to pay for `events` events from the public-key rate limit (the hook charged
 * 1 before parsing); for a batch, first checks its length against `publicBatchMax`. Secret keys
 * pass free.
 *
 * @throws FeedloopError `FEEDLOOP_ERR_VALIDATION_INVALID_FIELD` (field `events`) for a batch too
 *   long for a public key, `FEEDLOOP_ERR_RATE_LIMITED` past the limit.
 * @example
 * await chargeEvents(request, ingest, config, body.events.length, { batch: true });
 */
export async function chargeEvents(
  request: FastifyRequest,
  ingest: Pick<IngestService, 'checkRate'>,
  config: Pick<Config, 'publicBatchMax'>,
  events: number,
  options: { batch?: boolean } = {},
): Promise<void> {
  const auth = request.auth;
  if (!auth || auth.kind !== 'public') return;
  if (options.batch && events > config.publicBatchMax) {
    throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', `events: a public key may send at most ${config.publicBatchMax} events in one batch`, {
      field: 'events',
    });
  }
  const cost = events - request.rateCharged;
  if (cost <= 0) return;
  await ingest.checkRate(auth, request.ip, cost);
  request.rateCharged += cost;
}
