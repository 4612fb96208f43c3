/**
 * What feedloop sends to subscribers (webhooks and the stream): one JSON event
 * with a stable id, so a receiver (or JetStream's duplicate window) can drop a repeat.
 */

/** The event types subscribers can ask for (the alert ones go to webhooks only, not the stream). */
export const OUTBOUND_EVENT_TYPES = ['feedback.submitted', 'learning.signal', 'alert.firing', 'alert.resolved', 'training.batch_ready', 'target.corrected'] as const;

/** The alert event types: the only ones an `alertmanager` or `slack` webhook can carry. */
export const ALERT_EVENT_TYPES = ['alert.firing', 'alert.resolved'] as const satisfies readonly OutboundEventType[];

/** One of {@link OUTBOUND_EVENT_TYPES}. */
export type OutboundEventType = (typeof OUTBOUND_EVENT_TYPES)[number];

/** One event as delivered: the body of a webhook POST, the payload of a stream message. */
export interface OutboundMessage {
  /** Stable across retries and replays: `<type>:<feedback event id>` (an alert's: `<type>:<alert id>`; `training.batch_ready:<batch id>`). */
  id: string;
  type: OutboundEventType;
  workspaceId: string;
  /** ISO 8601. */
  createdAt: string;
  data: Record<string, unknown>;
}

/**
 * The id of the message of `type` about one feedback event (or one alert).
 *
 * @example
 * outboundMessageId('learning.signal', '0190…') // 'learning.signal:0190…'
 */
export function outboundMessageId(type: OutboundEventType, eventId: string): string {
  return `${type}:${eventId}`;
}

/** The `data` of an alert message: the alert with its times in ISO 8601. */
export interface AlertMessageData {
  id: string;
  ruleId: string;
  fingerprint: string;
  kind: string;
  severity: string;
  state: string;
  labels: Record<string, string>;
  metric: string;
  value: number;
  threshold: number;
  sample: number;
  message: string;
  activeAt: string;
  firedAt: string | null;
  resolvedAt: string | null;
}

/**
 * A destination for outbound messages (the server's emit/stream-sink.ts says how to add one; NATS
 * JetStream is built in).
 */
export interface StreamSink {
  /** What it publishes to, for logs and metrics: `nats`, `kafka`, … */
  readonly kind: string;
  /**
   * Publishes a batch and resolves once every message is stored by the broker; rejects when any
   * is not, and then the caller publishes the whole batch again (sinks deduplicate on the message
   * id, so the ones that made it are not stored twice).
   */
  publish(messages: readonly OutboundMessage[]): Promise<void>;
  /** Flushes what is in flight and closes the connection. */
  close(): Promise<void>;
}
