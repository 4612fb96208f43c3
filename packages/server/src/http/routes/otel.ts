/**
 * OpenTelemetry traces (issue 26 §4, docs/compat.md "OpenTelemetry"): `POST /v1/traces`, the path
 * an OTLP/HTTP exporter appends to its endpoint, and `POST /api/public/otel/v1/traces`, Langfuse's
 * OTLP endpoint (where `@langfuse/otel`'s span processor sends). Both take OTLP/HTTP as the
 * specification has it: `application/json` or `application/x-protobuf`, optionally
 * `Content-Encoding: gzip`, answered in the request's own encoding (`ExportTraceServiceResponse`,
 * with `partialSuccess` when spans were refused; `google.rpc.Status` for an error). Each trace with
 * LLM content becomes the response whose id is its trace id (ingest/otel-traces.ts).
 */
import { OtlpShapeError, readOtlpTraceRequest } from '@feedloop/core';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { isUtf8 } from 'node:buffer';
import { Transform, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { FeedloopError } from '../../errors.js';
import { ingestOtelSpans } from '../../ingest/otel-traces.js';
import { authOf } from '../auth.js';
import { toFeedloopError } from '../error-handler.js';
import { langfuseAuth, secretOnly } from '../langfuse-access.js';
import { decodeTraceRequest, exportResponse, grpcCode, statusBody, type OtlpEncoding } from '../otlp-wire.js';
import type { AppServices } from '../services.js';

/** OTLP/HTTP's own path, and Langfuse's OTLP endpoint. */
const OTLP_PATH = '/v1/traces';
const LANGFUSE_OTLP_PATH = '/api/public/otel/v1/traces';

const PROTOBUF = 'application/x-protobuf';
/** What an exporter is told to wait before retrying a 503 that names no time of its own. */
const UNAVAILABLE_RETRY_SECONDS = 5;
/** What an exporter refused for too many exports in flight is told to wait. */
const BUSY_RETRY_SECONDS = 1;

/** The request's encoding, by its Content-Type; JSON unless it says protobuf. */
function encodingOf(request: FastifyRequest): OtlpEncoding {
  const type = request.headers['content-type'] ?? '';
  return type.split(';')[0]?.trim().toLowerCase() === PROTOBUF ? 'protobuf' : 'json';
}

/**
 * A gunzip stream in place of the request's body. Fastify's body limit then counts the
 * decompressed bytes (no gzip bomb gets past it) and `receivedEncodedLength` the compressed ones,
 * which it checks against Content-Length.
 */
function gunzipped(payload: Readable): Readable {
  const gunzip = createGunzip();
  let encoded = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      encoded += chunk.length;
      (gunzip as Readable & { receivedEncodedLength?: number }).receivedEncodedLength = encoded;
      done(null, chunk);
    },
  });
  payload.on('error', (err) => gunzip.destroy(err));
  return payload.pipe(counter).pipe(gunzip);
}

/** The body as OTLP/JSON's shape; a body that is none is `FEEDLOOP_ERR_OTLP_UNDECODABLE`. */
function decodeBody(encoding: OtlpEncoding, body: unknown): unknown {
  const raw = Buffer.isBuffer(body) ? body : Buffer.alloc(0);
  try {
    if (encoding === 'protobuf') return decodeTraceRequest(raw);
    if (!isUtf8(raw)) throw new Error('the body is not valid UTF-8');
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch (err) {
    const what = encoding === 'protobuf' ? 'a protobuf ExportTraceServiceRequest' : 'valid JSON';
    throw new FeedloopError('FEEDLOOP_ERR_OTLP_UNDECODABLE', `the body is not ${what}`, { cause: err });
  }
}

/** Answers an error as OTLP/HTTP does: `google.rpc.Status` in the request's encoding. */
function sendOtlpError(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const error = toFeedloopError(err);
  if (error.status >= 500) request.log.error({ err }, 'request failed');
  const retryAfter = error.retryAfterSeconds ?? (error.status === 503 ? UNAVAILABLE_RETRY_SECONDS : undefined);
  if (retryAfter !== undefined) void reply.header('retry-after', String(retryAfter));
  void reply.status(error.status);
  if (encodingOf(request) === 'protobuf') return reply.type(PROTOBUF).send(statusBody(error.status, `${error.code}: ${error.message}`));
  // OTLP/JSON's Status (`code`, `message`) beside feedloop's own error body.
  return reply.send({ code: grpcCode(error.status), message: error.message, error: error.toBody() });
}

/** The OTLP trace routes. Encapsulated: their body parsers and error answers are theirs only. */
export const otelRoutes: FastifyPluginAsync<AppServices> = async (app, services) => {
  // Exporters retry a 429 after Retry-After: a burst of them waits its turn instead of piling up
  // in the trace committer's queue (and in memory).
  let inFlight = 0;
  // Both encodings reach the handler as bytes, so an undecodable body is answered OTLP's way.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(['application/json', PROTOBUF], { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.addHook('preParsing', async (request, _reply, payload) => {
    const encoding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    if (encoding === 'identity') return payload;
    if (encoding === 'gzip') return gunzipped(payload);
    throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_UNSUPPORTED_MEDIA_TYPE', `Content-Encoding ${encoding} is not supported; send gzip or none`, {
      field: 'content-encoding',
    });
  });
  app.setErrorHandler(sendOtlpError);

  for (const url of [OTLP_PATH, LANGFUSE_OTLP_PATH]) {
    const langfuse = url === LANGFUSE_OTLP_PATH;
    app.post(
      url,
      {
        // Each trace is judged alone (its piece validated by the trace foundation), not the body whole.
        // Langfuse's path takes Langfuse's credentials (Basic <public key>:<secret key>, or a
        // Bearer secret key) by its own hook, feedloop's by the app's (`access: 'secret'`).
        config: { itemsJudgedAlone: true, ...(langfuse ? { access: 'none' as const } : {}) },
        ...(langfuse
          ? {
              onRequest: async (request: FastifyRequest) => {
                request.auth = await langfuseAuth(services.keys, request.headers.authorization);
                secretOnly(request);
              },
            }
          : {}),
        // An exporter's batch (512 spans by default) with prompts in it outgrows the single-item limit.
        bodyLimit: services.config.batchBodyLimitBytes,
        schema: {
          tags: ['compatibility'],
          summary: langfuse
            ? "Langfuse's OTLP endpoint (@langfuse/otel; Basic <public key>:<secret key>): as POST /v1/traces"
            : 'OTLP/HTTP traces (JSON or protobuf, gzip): traces with LLM content become responses',
        },
      },
      async (request, reply) => {
        if (inFlight >= services.config.otlpMaxInFlight) {
          throw new FeedloopError('FEEDLOOP_ERR_RATE_LIMITED', `this server works on ${services.config.otlpMaxInFlight} OTLP exports at once; retry`, {
            retryAfterSeconds: BUSY_RETRY_SECONDS,
          });
        }
        inFlight += 1;
        try {
          return await exportTraces(request, reply);
        } finally {
          inFlight -= 1;
        }
      },
    );
  }

  /** One export: decoded, written, answered. */
  async function exportTraces(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const encoding = encodingOf(request);
    let spans;
    try {
      spans = readOtlpTraceRequest(decodeBody(encoding, request.body));
    } catch (err) {
      if (!(err instanceof OtlpShapeError)) throw err;
      throw new FeedloopError('FEEDLOOP_ERR_OTLP_UNDECODABLE', `the body is no ExportTraceServiceRequest: ${err.message}`, { cause: err });
    }
    const result = await ingestOtelSpans(services, authOf(request), spans);
    const partial = result.rejectedSpans > 0 ? { rejectedSpans: result.rejectedSpans, errorMessage: result.errors.join('; ') } : undefined;
    const body = exportResponse(encoding, partial);
    return reply.type(encoding === 'protobuf' ? PROTOBUF : 'application/json').send(body);
  }
};
