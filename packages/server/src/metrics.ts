/**
 * Prometheus metrics of one server: requests, latencies and feedback outcomes. A registry per
 * app, so tests and several apps in one process never share counters.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The metrics a server records. */
export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route'>;
  feedbackEvents: Counter<'status' | 'code'>;
  responses: Counter<'status'>;
  /** Corrections and edits stored without an edit distance, by reason (see ingest/diff-pool.ts). */
  editDistanceFallbacks: Counter<'reason'>;
  commitBatchSize: Histogram<'kind'>;
  pipelineEvents: Counter<'status'>;
  pipelineBatchSeconds: Histogram;
  pipelineErrors: Counter<'where'>;
  /** OTLP traces received (docs/compat.md): `stored` (a response), `dropped` (no LLM content), `rejected`. */
  otelTraces: Counter<'outcome'>;
  /** Their spans, by the same outcomes. */
  otelSpans: Counter<'outcome'>;
}

/**
 * Reports the pipeline queue's job counts as `feedloop_queue_jobs{state}` whenever /metrics is
 * scraped. They are shared by every workspace, so they belong to the operator's metrics, never to
 * a workspace's API (`GET /v1/pipeline` shows only the caller's own backlog).
 *
 * @example
 * watchQueueCounts(metrics, () => pipeline.queueCounts());
 */
export function watchQueueCounts(metrics: Metrics, counts: () => Promise<Record<string, number>>): void {
  new Gauge({
    name: 'feedloop_queue_jobs',
    help: 'Pipeline queue jobs by state (waiting, active, delayed, failed), all workspaces',
    labelNames: ['state'],
    registers: [metrics.registry],
    async collect() {
      // A queue that cannot be reached must not fail the scrape: the gauge keeps its last values.
      const now = await counts().catch(() => undefined);
      if (now) for (const [state, n] of Object.entries(now)) this.set({ state }, n);
    },
  });
}

/** One workspace's monitoring rates (percentages; response time in ms), null without data. */
export interface WorkspaceRates {
  workspaceId: string;
  positiveRate: number | null;
  correctionRate: number | null;
  escalationRate: number | null;
  avgResponseTimeMs: number | null;
}

/** How long one read of the workspace rates serves scrapes: the rollups move slower than this anyway. */
const WORKSPACE_RATES_CACHE_MS = 30_000;

/**
 * Reports the Feedback-and-RLHF monitoring rates per workspace as gauges whenever /metrics is
 * scraped: `feedloop_workspace_positive_rate`, `_correction_rate`, `_escalation_rate` (percent)
 * and `feedloop_workspace_response_time_ms`, labelled `workspace`. `read` is called at most once
 * per {@link WORKSPACE_RATES_CACHE_MS} however many gauges and scrapes ask, and a failed read
 * keeps the last values, so a scrape stays cheap and never fails. Watching twice is a no-op.
 *
 * @example
 * watchWorkspaceRates(metrics, () => workspaceRates(db, new Date()));
 */
export function watchWorkspaceRates(metrics: Metrics, read: () => Promise<WorkspaceRates[]>, cacheMs = WORKSPACE_RATES_CACHE_MS): void {
  // Several apps may share one registry (a test building a second app on the same services).
  if (metrics.registry.getSingleMetric('feedloop_workspace_positive_rate') !== undefined) return;
  let cached: { at: number; rates: Promise<WorkspaceRates[] | undefined> } | undefined;
  const current = () => {
    if (cached === undefined || Date.now() - cached.at >= cacheMs) cached = { at: Date.now(), rates: read().catch(() => undefined) };
    return cached.rates;
  };
  const gauges: Array<[string, string, keyof Omit<WorkspaceRates, 'workspaceId'>]> = [
    ['feedloop_workspace_positive_rate', 'Positive ratings / rated, percent, last 7 UTC days (rollups)', 'positiveRate'],
    ['feedloop_workspace_correction_rate', 'Corrected responses / registered responses, percent, last 7 UTC days (rollups)', 'correctionRate'],
    ['feedloop_workspace_escalation_rate', 'Escalated sessions / sessions, percent, last 7 UTC days (rollups)', 'escalationRate'],
    ['feedloop_workspace_response_time_ms', 'Mean time from a response to its feedback, ms, last 7 UTC days (rollups)', 'avgResponseTimeMs'],
  ];
  for (const [name, help, field] of gauges) {
    new Gauge({
      name,
      help,
      labelNames: ['workspace'],
      registers: [metrics.registry],
      async collect() {
        const rates = await current();
        if (rates === undefined) return;
        this.reset();
        for (const r of rates) {
          const value = r[field];
          if (value !== null) this.set({ workspace: r.workspaceId }, value);
        }
      },
    });
  }
}

/** One pending or firing alert, as the `feedloop_alerts_active` gauge labels it. */
export interface ActiveAlertLabels {
  workspaceId: string;
  ruleId: string;
  severity: string;
  state: 'pending' | 'firing';
}

/** How long one read of the open alerts serves scrapes: shorter than the default evaluation interval (30 s). */
const ACTIVE_ALERTS_CACHE_MS = 5_000;

/**
 * Reports every workspace's open alerts whenever /metrics is scraped, as Prometheus reports its
 * own (`ALERTS{alertstate}`): `feedloop_alerts_active{workspace, rule, severity, state}` is 1 for
 * each pending or firing alert, and a resolved alert's series disappears. So a Prometheus that
 * already scrapes feedloop can page on its quality alerts without a webhook. Cached and
 * failure-tolerant like {@link watchWorkspaceRates}; watching twice is a no-op.
 *
 * @example
 * watchActiveAlerts(metrics, () => openAlertLabels(db));
 */
export function watchActiveAlerts(metrics: Metrics, read: () => Promise<ActiveAlertLabels[]>, cacheMs = ACTIVE_ALERTS_CACHE_MS): void {
  if (metrics.registry.getSingleMetric('feedloop_alerts_active') !== undefined) return;
  let cached: { at: number; alerts: Promise<ActiveAlertLabels[] | undefined> } | undefined;
  new Gauge({
    name: 'feedloop_alerts_active',
    help: 'Open quality alerts: 1 per pending or firing alert, by workspace, rule, severity and state',
    labelNames: ['workspace', 'rule', 'severity', 'state'],
    registers: [metrics.registry],
    async collect() {
      if (cached === undefined || Date.now() - cached.at >= cacheMs) cached = { at: Date.now(), alerts: read().catch(() => undefined) };
      const alerts = await cached.alerts;
      if (alerts === undefined) return;
      this.reset();
      for (const a of alerts) this.set({ workspace: a.workspaceId, rule: a.ruleId, severity: a.severity, state: a.state }, 1);
    },
  });
}

/**
 * Creates a registry with feedloop's metrics and the process defaults.
 *
 * @example
 * const metrics = createMetrics(); metrics.feedbackEvents.inc({ status: 'accepted', code: '' });
 */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'feedloop_' });
  return {
    registry,
    httpRequests: new Counter({
      name: 'feedloop_http_requests_total',
      help: 'HTTP requests by method, route and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'feedloop_http_request_duration_seconds',
      help: 'HTTP request latency',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    feedbackEvents: new Counter({
      name: 'feedloop_feedback_events_total',
      help: 'Feedback events by outcome (accepted, duplicate, rejected) and error code',
      labelNames: ['status', 'code'],
      registers: [registry],
    }),
    otelTraces: new Counter({
      name: 'feedloop_otel_traces_total',
      help: 'OTLP traces (per request) by outcome: stored as a response, dropped (no LLM content), rejected',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    otelSpans: new Counter({
      name: 'feedloop_otel_spans_total',
      help: 'OTLP spans by outcome: stored (their trace made a response), dropped (no LLM content), rejected',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    responses: new Counter({
      name: 'feedloop_responses_total',
      help: 'Response registrations by outcome (created, duplicate, rejected)',
      labelNames: ['status'],
      registers: [registry],
    }),
    editDistanceFallbacks: new Counter({
      name: 'feedloop_edit_distance_fallbacks_total',
      help: 'Corrections and edits stored without an edit distance: time_budget, queue_full, worker_failed',
      labelNames: ['reason'],
      registers: [registry],
    }),
    commitBatchSize: new Histogram({
      name: 'feedloop_group_commit_batch_size',
      help: 'Items written per group-commit transaction',
      labelNames: ['kind'],
      buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000],
      registers: [registry],
    }),
    pipelineEvents: new Counter({
      name: 'feedloop_pipeline_events_total',
      help: 'Events processed by the pipeline, by outcome (counted, dropped, failed)',
      labelNames: ['status'],
      registers: [registry],
    }),
    pipelineBatchSeconds: new Histogram({
      name: 'feedloop_pipeline_batch_duration_seconds',
      help: 'Time to process one batch of events, effects included',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    pipelineErrors: new Counter({
      name: 'feedloop_pipeline_errors_total',
      help: 'Pipeline steps that failed and were left for the sweep (enqueue, effects, deliver)',
      labelNames: ['where'],
      registers: [registry],
    }),
  };
}
