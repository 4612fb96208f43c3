/**
 * The `alert.firing` and `alert.resolved` messages: an alert that fired or resolved, as webhooks
 * receive it in the `feedloop` format (the other formats are written from it at delivery).
 */
import { outboundMessageId, type AlertMessageData, type OutboundMessage } from '@feedloop/core';
import type { AlertRecord } from '../store/alerts.js';

/**
 * The message announcing that an alert fired or resolved; its id is stable (one per alert and
 * transition), so a receiver can drop a repeat.
 *
 * @example
 * alertMessage('ws_1', firedAlert, now).id // 'alert.firing:al_0190…'
 */
export function alertMessage(workspaceId: string, alert: AlertRecord, now: Date): OutboundMessage {
  const type = alert.state === 'resolved' ? 'alert.resolved' : 'alert.firing';
  const data: AlertMessageData = {
    id: alert.id,
    ruleId: alert.ruleId,
    fingerprint: alert.fingerprint,
    kind: alert.kind,
    severity: alert.severity,
    state: alert.state,
    labels: alert.labels,
    metric: alert.metric,
    value: alert.value,
    threshold: alert.threshold,
    sample: alert.sample,
    message: alert.message,
    activeAt: alert.activeAt.toISOString(),
    firedAt: alert.firedAt?.toISOString() ?? null,
    resolvedAt: alert.resolvedAt?.toISOString() ?? null,
  };
  return {
    id: outboundMessageId(type, alert.id),
    type,
    workspaceId,
    createdAt: now.toISOString(),
    data: { ...data },
  };
}
