/**
 * What the pipeline's emit stage sends to subscribers (webhooks and the stream): one JSON event
 * with a stable id, so a receiver (or JetStream's duplicate window) can drop a repeat.
 */

/** The event types subscribers can ask for. */
export const OUTBOUND_EVENT_TYPES = ['feedback.submitted', 'learning.signal', 'training.batch_ready'] as const;

/** One of {@link OUTBOUND_EVENT_TYPES}. */
export type OutboundEventType = (typeof OUTBOUND_EVENT_TYPES)[number];

/** One event as delivered: the body of a webhook POST, the payload of a stream message. */
export interface OutboundMessage {
  /** Stable across retries and replays: `<type>:<feedback event id>` (`training.batch_ready:<batch id>`). */
  id: string;
  type: OutboundEventType;
  workspaceId: string;
  /** ISO 8601. */
  createdAt: string;
  data: Record<string, unknown>;
}

/**
 * The id of the message of `type` about one feedback event.
 *
 * @example
 * outboundMessageId('learning.signal', '0190…') // 'learning.signal:0190…'
 */
export function outboundMessageId(type: OutboundEventType, eventId: string): string {
  return `${type}:${eventId}`;
}
