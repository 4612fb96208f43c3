/**
 * OTLP/HTTP's wire for traces: the protobuf request decoded with OpenTelemetry's own generated
 * code (`@opentelemetry/otlp-transformer`'s protobufjs root, built from the opentelemetry-proto
 * definitions), and the answers in the request's encoding, as the OTLP specification asks:
 * `ExportTraceServiceResponse` for a success, `google.rpc.Status` for an error.
 *
 * The generated code and protobufjs are loaded at the first protobuf request: ~15 MB resident that
 * a server nobody sends OTLP protobuf to never needs (the embedded profile's idle memory, issue 21).
 */
import { createRequire } from 'node:module';
import type protobuf from 'protobufjs/light.js';

/** A message class of protobufjs's generated static code. */
interface GeneratedMessage {
  decode(bytes: Uint8Array): object;
  encode(message: object): { finish(): Uint8Array };
  toObject(message: object, options: protobuf.IConversionOptions): unknown;
}

interface Wire {
  traceService: { ExportTraceServiceRequest: GeneratedMessage; ExportTraceServiceResponse: GeneratedMessage };
  statusType: protobuf.Type;
}
let wire: Wire | undefined;

/** The message classes, loaded once on first use. */
function loadWire(): Wire {
  if (wire) return wire;
  const require = createRequire(import.meta.url);
  const pb = require('protobufjs/light.js') as typeof protobuf;
  // The package types its generated root as a bare `Root`; the static code holds the message
  // classes under their proto packages.
  const otlpRoot = require('@opentelemetry/otlp-transformer/build/src/generated/root.js') as {
    opentelemetry: { proto: { collector: { trace: { v1: Wire['traceService'] } } } };
  };
  // `google.rpc.Status` (google/rpc/status.proto, fields 1 and 2; `details` is never sent), the
  // body OTLP/HTTP gives an error. protobufjs encodes it from this declaration.
  const statusType = pb.Root.fromJSON({
    nested: {
      google: {
        nested: {
          rpc: { nested: { Status: { fields: { code: { type: 'int32', id: 1 }, message: { type: 'string', id: 2 } } } } },
        },
      },
    },
  }).lookupType('google.rpc.Status');
  wire = { traceService: otlpRoot.opentelemetry.proto.collector.trace.v1, statusType };
  return wire;
}

/** The two encodings OTLP/HTTP defines. */
export type OtlpEncoding = 'json' | 'protobuf';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A base64 id (protobufjs's `bytes` as a string) as OTLP/JSON's hex. */
function hexOf(value: unknown): unknown {
  return typeof value === 'string' ? Buffer.from(value, 'base64').toString('hex') : value;
}

/**
 * Decodes a protobuf `ExportTraceServiceRequest` into OTLP/JSON's shape (ids as hex, 64-bit
 * integers as strings), the one core's `readOtlpTraceRequest` reads. Throws when the bytes are no
 * such message.
 *
 * @example
 * readOtlpTraceRequest(decodeTraceRequest(body)).spans
 */
export function decodeTraceRequest(body: Uint8Array): unknown {
  const { traceService } = loadWire();
  const message = traceService.ExportTraceServiceRequest.decode(body);
  const plain: unknown = traceService.ExportTraceServiceRequest.toObject(message, { longs: String, bytes: String, defaults: false });
  if (!isRecord(plain) || !Array.isArray(plain.resourceSpans)) return plain;
  for (const rs of plain.resourceSpans) {
    if (!isRecord(rs) || !Array.isArray(rs.scopeSpans)) continue;
    for (const ss of rs.scopeSpans) {
      if (!isRecord(ss) || !Array.isArray(ss.spans)) continue;
      for (const span of ss.spans) {
        if (!isRecord(span)) continue;
        span.traceId = hexOf(span.traceId);
        span.spanId = hexOf(span.spanId);
        if (span.parentSpanId !== undefined) span.parentSpanId = hexOf(span.parentSpanId);
      }
    }
  }
  return plain;
}

/** A partial success: how many spans were refused and why. */
export interface PartialSuccess {
  rejectedSpans: number;
  errorMessage: string;
}

/**
 * The success answer: `{}` for a request taken whole, `{ partialSuccess }` when spans were
 * refused; protobuf bytes or a JSON object by the request's encoding.
 *
 * @example
 * exportResponse('json', { rejectedSpans: 1, errorMessage: 'a span has no valid traceId' })
 */
export function exportResponse(encoding: OtlpEncoding, partial?: PartialSuccess): Buffer | Record<string, unknown> {
  const body = partial === undefined ? {} : { partialSuccess: partial };
  if (encoding === 'json') return body;
  return Buffer.from(loadWire().traceService.ExportTraceServiceResponse.encode(body).finish());
}

/** gRPC status codes by HTTP status, for `google.rpc.Status.code`. */
const GRPC_CODE: Record<number, number> = { 400: 3, 401: 16, 403: 7, 404: 5, 413: 8, 415: 3, 429: 8, 503: 14 };

/**
 * The `google.rpc.Status` of an error, protobuf-encoded (the JSON answer puts the same `code` and
 * `message` beside feedloop's `error`).
 *
 * @example
 * statusBody(400, 'the body is not a protobuf ExportTraceServiceRequest')
 */
export function statusBody(httpStatus: number, message: string): Buffer {
  const { statusType } = loadWire();
  return Buffer.from(statusType.encode(statusType.create({ code: grpcCode(httpStatus), message })).finish());
}

/** The gRPC code of an HTTP status (13, INTERNAL, for what has none). */
export function grpcCode(httpStatus: number): number {
  return GRPC_CODE[httpStatus] ?? (httpStatus >= 500 ? 13 : 3);
}
