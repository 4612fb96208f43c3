/**
 * Test helpers around OpenTelemetry's real SDK and OTLP exporters (published npm packages): a
 * tracer provider whose batch processor sends to a running feedloop, and whose exports' results
 * are kept, so a test flushes, then asserts what the exporter was answered and what was stored.
 */
import { context, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';

/** A provider sending to feedloop, the results of its exports, and its tracer. */
export interface ExportingTracer {
  tracer: Tracer;
  /** Every export's result, in order (0 = SUCCESS, 1 = FAILED). */
  results: ExportResult[];
  /** Sends what has ended so far, as one request (the batch is larger than any test's spans). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** Wraps an exporter to keep each export's result; the wire is the real exporter's own. */
function recording(exporter: SpanExporter, results: ExportResult[]): SpanExporter {
  return {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void) {
      exporter.export(spans, (result) => {
        results.push(result);
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

/**
 * A tracer whose spans go to `url` (a full OTLP traces URL) through the protobuf or the JSON
 * exporter, optionally gzip-compressed, with these headers.
 *
 * @example
 * const t = exportingTracer({ url: `${base}/v1/traces`, encoding: 'protobuf', gzip: true, headers: { authorization: 'Bearer …' } });
 */
export function exportingTracer(options: { url: string; encoding: 'json' | 'protobuf'; gzip?: boolean; headers: Record<string, string>; timeoutMs?: number }): ExportingTracer {
  const config = {
    url: options.url,
    headers: options.headers,
    // An export's time, retries after 429/503 included (the exporter's default is 10 s).
    timeoutMillis: options.timeoutMs ?? 30_000,
    ...(options.gzip ? { compression: CompressionAlgorithm.GZIP } : {}),
  };
  const exporter = options.encoding === 'protobuf' ? new ProtoTraceExporter(config) : new JsonTraceExporter(config);
  const results: ExportResult[] = [];
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'feedloop-otel-test' }),
    spanProcessors: [new BatchSpanProcessor(recording(exporter, results), { maxExportBatchSize: 512, scheduledDelayMillis: 60_000 })],
  });
  return {
    tracer: provider.getTracer('feedloop-test'),
    results,
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/** Starts a span, the child of `parent` when given. */
export function startSpan(tracer: Tracer, name: string, attributes: Attributes, parent?: Span): Span {
  const ctx = parent ? trace.setSpan(context.active(), parent) : context.active();
  return tracer.startSpan(name, { attributes }, ctx);
}
