/**
 * Webhook body formats: an alert message written as Alertmanager and Slack bodies, and anything
 * else passed through as feedloop's message.
 */
import { describe, expect, it } from 'vitest';
import { alertMessage } from '../src/pipeline/alert-messages.js';
import { formatWebhookBody } from '../src/emit/webhook-formats.js';
import type { AlertRecord } from '../src/store/alerts.js';
import { message } from './webhook-helpers.js';

const fired: AlertRecord = {
  id: 'al_1',
  ruleId: 'category-spike',
  fingerprint: '0123456789abcdef',
  kind: 'category_spike',
  severity: 'warning',
  state: 'firing',
  labels: { category: 'accuracy' },
  metric: 'category_negatives:accuracy',
  value: 16,
  threshold: 14,
  sample: 46,
  message: '16 negatives name "accuracy"',
  activeAt: new Date('2026-11-23T08:00:00Z'),
  firedAt: new Date('2026-11-23T08:00:00Z'),
  resolvedAt: null,
  updatedAt: new Date('2026-11-23T08:00:00Z'),
};
const resolved: AlertRecord = { ...fired, state: 'resolved', resolvedAt: new Date('2026-11-23T09:00:00Z') };

describe('webhook formats', () => {
  it('passes feedloop messages through, and non-alert messages in every format', () => {
    const m = message('ws_1');
    for (const format of ['feedloop', 'alertmanager', 'slack'] as const) expect(formatWebhookBody(format, m, { webhookId: 'wh_1' })).toBe(m);
    const a = alertMessage('ws_1', fired, new Date());
    expect(formatWebhookBody('feedloop', a, { webhookId: 'wh_1' })).toBe(a);
    expect(a.id).toBe('alert.firing:al_1');
    expect(alertMessage('ws_1', resolved, new Date()).id).toBe('alert.resolved:al_1');
  });

  it('writes an Alertmanager version 4 body with the alert labels, annotations and times', () => {
    expect(formatWebhookBody('alertmanager', alertMessage('ws_1', fired, new Date()), { webhookId: 'wh_1' })).toEqual({
      version: '4',
      groupKey: '{}:{alertname="category-spike", workspace="ws_1"}',
      truncatedAlerts: 0,
      status: 'firing',
      receiver: 'wh_1',
      groupLabels: { alertname: 'category-spike' },
      commonLabels: { alertname: 'category-spike', severity: 'warning', kind: 'category_spike', workspace: 'ws_1', category: 'accuracy' },
      commonAnnotations: { summary: '16 negatives name "accuracy"', metric: 'category_negatives:accuracy', value: '16', threshold: '14', sample: '46' },
      externalURL: '',
      alerts: [
        {
          status: 'firing',
          labels: { alertname: 'category-spike', severity: 'warning', kind: 'category_spike', workspace: 'ws_1', category: 'accuracy' },
          annotations: { summary: '16 negatives name "accuracy"', metric: 'category_negatives:accuracy', value: '16', threshold: '14', sample: '46' },
          startsAt: '2026-11-23T08:00:00.000Z',
          endsAt: '0001-01-01T00:00:00Z',
          generatorURL: '',
          fingerprint: '0123456789abcdef',
        },
      ],
    });
    const body = formatWebhookBody('alertmanager', alertMessage('ws_1', resolved, new Date()), { webhookId: 'wh_1' }) as { status: string; alerts: Array<{ endsAt: string }> };
    expect([body.status, body.alerts[0]?.endsAt]).toEqual(['resolved', '2026-11-23T09:00:00.000Z']);
    // With FEEDLOOP_PUBLIC_URL the links point at the server and the alert's own page.
    const linked = formatWebhookBody('alertmanager', alertMessage('ws_1', fired, new Date()), { webhookId: 'wh_1', publicUrl: 'https://fl.example.com' }) as {
      externalURL: string;
      alerts: Array<{ generatorURL: string }>;
    };
    expect([linked.externalURL, linked.alerts[0]?.generatorURL]).toEqual(['https://fl.example.com', 'https://fl.example.com/v1/alerts/al_1']);
  });

  it('writes a Slack message with text and blocks', () => {
    const body = formatWebhookBody('slack', alertMessage('ws_1', resolved, new Date()), { webhookId: 'wh_1' }) as { text: string; blocks: unknown[] };
    expect(body.text).toBe('Resolved [warning] category-spike: 16 negatives name "accuracy"');
    expect(body.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Resolved: category-spike' } });
    expect(body.blocks).toHaveLength(4);
  });
});
