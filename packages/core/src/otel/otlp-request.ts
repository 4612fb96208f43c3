/**
 * An OTLP trace export request (`ExportTraceServiceRequest`, in OTLP/JSON's shape) read into flat
 * spans with plain attribute values. The protobuf encoding reaches here too: the server decodes it
 * with OpenTelemetry's generated code and hands over the same shape (ids as hex). What does not
 * have the request's shape at all is an error (the caller answers 400); a single span without a
 * valid trace or span id is rejected alone and counted, as OTLP's partial success expects.
 *
 * @module
 */

/** A plain attribute value: OTLP's `AnyValue` without its wrapper. */
export type OtelValue = string | number | boolean | null | OtelValue[] | { [key: string]: OtelValue };

/** Attributes by key. */
export type OtelAttributes = Record<string, OtelValue>;

/** A span event: its name and attributes. */
export interface OtelSpanEvent {
  name: string;
  attributes: OtelAttributes;
}

/** One span of a request, with its resource's and scope's attributes beside it. */
export interface OtelSpan {
  /** 32 lowercase hex digits. */
  traceId: string;
  /** 16 lowercase hex digits. */
  spanId: string;
  /** Absent on a root span. */
  parentSpanId?: string;
  name: string;
  /** Milliseconds since the epoch (OTLP sends nanoseconds; ms is what a response keeps). */
  startTimeMs?: number;
  endTimeMs?: number;
  attributes: OtelAttributes;
  events: OtelSpanEvent[];
  resource: OtelAttributes;
  scopeName: string;
}

/** What a request held: its valid spans, and the spans refused with the reasons. */
export interface OtelRequestSpans {
  spans: OtelSpan[];
  rejectedSpans: number;
  /** The first few reasons, for the partial success's `errorMessage`. */
  errors: string[];
}

/** Thrown for a body that is not an export request at all: the caller answers 400. */
export class OtlpShapeError extends Error {
  override readonly name = 'OtlpShapeError';
}

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);
/** How many refusal reasons one answer names; the count says the rest. */
const MAX_ERRORS = 5;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const listOf = (value: unknown, field: string): unknown[] => {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new OtlpShapeError(`${field} is not an array`);
  return value;
};

/** OTLP/JSON sends 64-bit integers as strings or numbers. */
function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  return undefined;
}

/**
 * An OTLP `AnyValue` as a plain value: `{ stringValue: 'a' }` → `'a'`, an `intValue` → a number
 * (a string when beyond 2^53), `arrayValue` → an array, `kvlistValue` → an object, `bytesValue` →
 * its base64 text.
 *
 * @example
 * anyValue({ arrayValue: { values: [{ intValue: '3' }, { boolValue: true }] } }) // [3, true]
 */
export function anyValue(value: unknown): OtelValue {
  if (!isObject(value)) return null;
  if (typeof value.stringValue === 'string') return value.stringValue;
  if (typeof value.boolValue === 'boolean') return value.boolValue;
  if (value.intValue !== undefined && value.intValue !== null) {
    const n = toNumber(value.intValue);
    if (n === undefined) return String(value.intValue);
    return Number.isSafeInteger(n) ? n : String(value.intValue);
  }
  if (value.doubleValue !== undefined && value.doubleValue !== null) return toNumber(value.doubleValue) ?? null;
  if (isObject(value.arrayValue)) return listOf(value.arrayValue.values, 'arrayValue.values').map(anyValue);
  if (isObject(value.kvlistValue)) return attributesOf(value.kvlistValue.values, 'kvlistValue.values');
  if (typeof value.bytesValue === 'string') return value.bytesValue;
  return null;
}

/** A `KeyValue` list as an object; a later duplicate key wins. */
function attributesOf(list: unknown, field: string): OtelAttributes {
  const out: OtelAttributes = {};
  for (const kv of listOf(list, field)) {
    // `__proto__` as a key would set the object's prototype, not a property.
    if (isObject(kv) && typeof kv.key === 'string' && kv.key !== '__proto__') out[kv.key] = anyValue(kv.value);
  }
  return out;
}

const nanosToMs = (value: unknown): number | undefined => {
  const n = toNumber(value);
  return n === undefined || n <= 0 ? undefined : Math.floor(n / 1e6);
};

/** An id as lowercase hex; OTLP/JSON's ids are hex, case-insensitive. */
const hexId = (value: unknown): string => (typeof value === 'string' ? value.toLowerCase() : '');

/** One span, or the reason it is refused. */
function readSpan(raw: unknown, resource: OtelAttributes, scopeName: string): OtelSpan | string {
  if (!isObject(raw)) return 'a span is not an object';
  const traceId = hexId(raw.traceId);
  const spanId = hexId(raw.spanId);
  if (!TRACE_ID.test(traceId) || traceId === ZERO_TRACE_ID) return 'a span has no valid traceId (32 hex digits, not all zero)';
  if (!SPAN_ID.test(spanId) || spanId === ZERO_SPAN_ID) return `span of trace ${traceId} has no valid spanId (16 hex digits)`;
  const parent = hexId(raw.parentSpanId);
  const span: OtelSpan = {
    traceId,
    spanId,
    name: typeof raw.name === 'string' ? raw.name : '',
    attributes: attributesOf(raw.attributes, 'span.attributes'),
    events: listOf(raw.events, 'span.events').filter(isObject).map((e) => ({
      name: typeof e.name === 'string' ? e.name : '',
      attributes: attributesOf(e.attributes, 'event.attributes'),
    })),
    resource,
    scopeName,
  };
  if (SPAN_ID.test(parent) && parent !== ZERO_SPAN_ID) span.parentSpanId = parent;
  const start = nanosToMs(raw.startTimeUnixNano);
  const end = nanosToMs(raw.endTimeUnixNano);
  if (start !== undefined) span.startTimeMs = start;
  if (end !== undefined) span.endTimeMs = end;
  return span;
}

/**
 * Reads an OTLP/JSON `ExportTraceServiceRequest` (`{ resourceSpans: [{ resource, scopeSpans:
 * [{ scope, spans }] }] }`) into flat spans. Throws {@link OtlpShapeError} when the body is not
 * such a request; a span without valid ids is counted in `rejectedSpans` instead.
 *
 * @example
 * const { spans, rejectedSpans } = readOtlpTraceRequest(JSON.parse(body));
 */
export function readOtlpTraceRequest(body: unknown): OtelRequestSpans {
  if (!isObject(body)) throw new OtlpShapeError('the body is not an OTLP ExportTraceServiceRequest object');
  const out: OtelRequestSpans = { spans: [], rejectedSpans: 0, errors: [] };
  for (const rs of listOf(body.resourceSpans, 'resourceSpans')) {
    if (!isObject(rs)) throw new OtlpShapeError('resourceSpans holds a non-object');
    const resource = isObject(rs.resource) ? attributesOf(rs.resource.attributes, 'resource.attributes') : {};
    for (const ss of listOf(rs.scopeSpans, 'scopeSpans')) {
      if (!isObject(ss)) throw new OtlpShapeError('scopeSpans holds a non-object');
      const scopeName = isObject(ss.scope) && typeof ss.scope.name === 'string' ? ss.scope.name : '';
      for (const raw of listOf(ss.spans, 'spans')) {
        const span = readSpan(raw, resource, scopeName);
        if (typeof span === 'string') {
          out.rejectedSpans += 1;
          if (out.errors.length < MAX_ERRORS) out.errors.push(span);
        } else {
          out.spans.push(span);
        }
      }
    }
  }
  return out;
}
