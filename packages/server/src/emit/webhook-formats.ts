/**
 * The body a webhook receives, per its `format`: feedloop's own message (`feedloop`), the
 * Prometheus Alertmanager webhook body (`alertmanager`, version 4, one alert per notification),
 * or a Slack incoming-webhook message (`slack`: `text` for notifications, Block Kit `blocks` for
 * the channel). The stored delivery keeps feedloop's message; the body is written per webhook at
 * each attempt, and the signature covers the bytes sent.
 */
import type { AlertMessageData, OutboundMessage } from '@feedloop/core';
import type { WebhookFormat } from '../store/webhooks.js';


/** Alertmanager's `endsAt` of an alert still firing: Go's zero time. */
const ZERO_TIME = '0001-01-01T00:00:00Z';
const ALERTMANAGER_VERSION = '4';

const str = (v: unknown): string => (typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v));

/** The alert fields of an `alert.*` message, read defensively from the stored body. */
function alertData(message: OutboundMessage): AlertMessageData {
  const d = message.data;
  const labels = typeof d.labels === 'object' && d.labels !== null ? (d.labels as Record<string, string>) : {};
  return {
    id: str(d.id),
    ruleId: str(d.ruleId),
    fingerprint: str(d.fingerprint),
    kind: str(d.kind),
    severity: str(d.severity),
    state: str(d.state),
    labels,
    metric: str(d.metric),
    value: Number(d.value),
    threshold: Number(d.threshold),
    sample: Number(d.sample),
    message: str(d.message),
    activeAt: str(d.activeAt),
    firedAt: typeof d.firedAt === 'string' ? d.firedAt : null,
    resolvedAt: typeof d.resolvedAt === 'string' ? d.resolvedAt : null,
  };
}

/** What a body needs besides the message: the receiving webhook and where feedloop is reached. */
export interface WebhookBodyContext {
  webhookId: string;
  /** `FEEDLOOP_PUBLIC_URL`: Alertmanager's `externalURL`, and the base of each alert's `generatorURL` (`/v1/alerts/:id`). */
  publicUrl?: string;
}

/**
 * The JSON body of one delivery of `message` to a webhook of `format`. A message that is not an
 * alert goes out as feedloop's message whatever the format (such a webhook cannot subscribe to
 * one; this keeps an older row deliverable).
 *
 * @example
 * formatWebhookBody('alertmanager', alertMessage('ws_1', alert, now), { webhookId: 'wh_…' }).version // '4'
 */
export function formatWebhookBody(format: WebhookFormat, message: OutboundMessage, context: WebhookBodyContext): unknown {
  if (format === 'feedloop' || (message.type !== 'alert.firing' && message.type !== 'alert.resolved')) return message;
  const alert = alertData(message);
  return format === 'alertmanager' ? alertmanagerBody(message, alert, context) : slackBody(message, alert);
}

/** Prometheus Alertmanager's webhook_config body (version 4), with the one alert of this transition. */
function alertmanagerBody(message: OutboundMessage, alert: AlertMessageData, context: WebhookBodyContext): unknown {
  const externalURL = context.publicUrl ?? '';
  const status = message.type === 'alert.resolved' ? 'resolved' : 'firing';
  const labels: Record<string, string> = {
    alertname: alert.ruleId,
    severity: alert.severity,
    kind: alert.kind,
    workspace: message.workspaceId,
    ...alert.labels,
  };
  const annotations = { summary: alert.message, metric: alert.metric, value: String(alert.value), threshold: String(alert.threshold), sample: String(alert.sample) };
  const groupLabels = { alertname: alert.ruleId };
  return {
    version: ALERTMANAGER_VERSION,
    groupKey: `{}:{alertname=${JSON.stringify(alert.ruleId)}, workspace=${JSON.stringify(message.workspaceId)}}`,
    truncatedAlerts: 0,
    status,
    receiver: context.webhookId,
    groupLabels,
    commonLabels: labels,
    commonAnnotations: annotations,
    externalURL,
    alerts: [
      {
        status,
        labels,
        annotations,
        startsAt: alert.firedAt ?? alert.activeAt,
        endsAt: status === 'resolved' ? (alert.resolvedAt ?? message.createdAt) : ZERO_TIME,
        generatorURL: externalURL === '' || alert.id === '' ? '' : `${externalURL}/v1/alerts/${encodeURIComponent(alert.id)}`,
        fingerprint: alert.fingerprint,
      },
    ],
  };
}

/** A Slack incoming-webhook message: `text` (the notification line) and Block Kit blocks. */
function slackBody(message: OutboundMessage, alert: AlertMessageData): unknown {
  const resolved = message.type === 'alert.resolved';
  const headline = `${resolved ? 'Resolved' : 'Firing'} [${alert.severity}] ${alert.ruleId}: ${alert.message}`;
  return {
    text: headline,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: `${resolved ? 'Resolved' : 'Firing'}: ${alert.ruleId}`.slice(0, 150) } },
      { type: 'section', text: { type: 'mrkdwn', text: alert.message } },
      {
        type: 'section',
        fields: [
          { type: 'mrkdwn', text: `*Severity*\n${alert.severity}` },
          { type: 'mrkdwn', text: `*Metric*\n${alert.metric}` },
          { type: 'mrkdwn', text: `*Value*\n${alert.value}` },
          { type: 'mrkdwn', text: `*Threshold*\n${alert.threshold}` },
        ],
      },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `workspace ${message.workspaceId} · alert ${alert.id} · ${resolved ? `resolved ${alert.resolvedAt ?? ''}` : `since ${alert.firedAt ?? alert.activeAt}`}` }] },
    ],
  };
}
