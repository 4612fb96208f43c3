/**
 * What the pipeline's emit stage sends to subscribers (webhooks and the stream): one JSON event
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
