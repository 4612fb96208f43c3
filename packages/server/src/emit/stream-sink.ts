/**
 * Where the emit stage streams every outbound message, for consumers that want all of them
 * (analytics, training pipelines) rather than a webhook per event. NATS JetStream is the one
 * built in (`nats-sink.ts`).
 *
 * Adding a sink, e.g. Kafka: implement `StreamSink` (@feedloop/core) with `kind: 'kafka'`; map each
 * {@link streamSubject} to a topic (one topic per subject, or one topic with the subject as a
 * header when topics are costly), produce the JSON of the message with the message id as the key
 * (a compacted topic or an idempotent consumer then drops replays, and one key keeps one
 * partition's order), and resolve `publish` only once the broker acknowledged every message
 * (`acks=all`), so a rejection makes the caller publish the batch again later.
 */
import type { OutboundMessage } from '@feedloop/core';

/** The first token of every subject unless a sink is given another. */
export const DEFAULT_SUBJECT_PREFIX = 'feedloop';

/** Any character a subject token may not hold (NATS splits on `.`, and `*` `>` are wildcards). */
const UNSAFE_TOKEN_CHARS = /[^A-Za-z0-9_-]/g;

/**
 * The subject of a message: `<prefix>.<workspaceId>.<type>`, with the workspace id made one safe
 * token (anything outside `[A-Za-z0-9_-]` becomes `_`). A consumer subscribes to
 * `feedloop.*.learning.signal` for one type everywhere, `feedloop.<ws>.>` for one workspace.
 *
 * @example
 * streamSubject({ workspaceId: 'ws-1', type: 'feedback.submitted', … }) // 'feedloop.ws-1.feedback.submitted'
 * streamSubject({ workspaceId: 'a.b', type: 'learning.signal', … }, 'test') // 'test.a_b.learning.signal'
 */
export function streamSubject(message: Pick<OutboundMessage, 'workspaceId' | 'type'>, prefix: string = DEFAULT_SUBJECT_PREFIX): string {
  // An empty token would make an invalid subject; workspace ids are never empty, but be safe.
  const workspaceToken = message.workspaceId.replace(UNSAFE_TOKEN_CHARS, '_') || '_';
  return `${prefix}.${workspaceToken}.${message.type}`;
}
