/**
 * The NATS JetStream sink: each outbound message is published as JSON on its
 * {@link streamSubject}, with the message id as JetStream's `Nats-Msg-Id`, so the stream stores a
 * message published again within the duplicate window once.
 */
import { JetStreamApiCodes, JetStreamApiError, jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, nanos } from '@nats-io/transport-node';
import type { OutboundMessage } from '@feedloop/core';
import type { StreamSink } from '@feedloop/core';
import { DEFAULT_SUBJECT_PREFIX, streamSubject } from './stream-sink.js';

/** Options of {@link connectNatsSink}. */
export interface NatsSinkOptions {
  /** The stream; default `FEEDLOOP`. */
  stream?: string;
  /**
   * The first token of every subject; default `feedloop`. The stream, when created here, takes
   * `<prefix>.>`. Two streams may not share subjects, so tests (or two feedloops on one NATS)
   * use a prefix of their own.
   */
  subjectPrefix?: string;
  /** A new stream's duplicate window: a message id seen again within it is dropped; default 2 min. */
  duplicateWindowMs?: number;
  /** A new stream's retention: messages older than this are removed; default 7 days. */
  maxAgeMs?: number;
  /** The wait between reconnect tries while NATS is away; default 2 s. The tries never stop. */
  reconnectWaitMs?: number;
}

const DEFAULT_STREAM = 'FEEDLOOP';
const DEFAULT_DUPLICATE_WINDOW_MS = 2 * 60_000;
const DEFAULT_MAX_AGE_MS = 7 * 24 * 3_600_000;
const CONNECTION_NAME = 'feedloop';

/** Whether `err` is JetStream's "no such stream". */
function isStreamNotFound(err: unknown): boolean {
  return err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound;
}

/**
 * Creates the stream when it is missing. An existing stream is left as it is: its operator may
 * have tuned retention or replicas, and a second feedloop starting at the same time may have just
 * created it (then `add` fails and the stream is there).
 */
async function ensureStream(jsm: JetStreamManager, name: string, subjects: string, options: NatsSinkOptions): Promise<void> {
  try {
    await jsm.streams.info(name);
    return;
  } catch (err) {
    if (!isStreamNotFound(err)) throw err;
  }
  try {
    await jsm.streams.add({
      name,
      subjects: [subjects],
      duplicate_window: nanos(options.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS),
      max_age: nanos(options.maxAgeMs ?? DEFAULT_MAX_AGE_MS),
    });
  } catch (err) {
    await jsm.streams.info(name).catch(() => {
      throw err;
    });
  }
}

/**
 * Connects to NATS (the client reconnects by itself after a drop, for as long as it takes), makes
 * sure the stream exists and returns a sink publishing to it.
 *
 * @example
 * const sink = await connectNatsSink('nats://127.0.0.1:4222');
 * await sink.publish(messages); // resolves once JetStream stored (or deduplicated) each one
 * await sink.close();
 */
export async function connectNatsSink(url: string, options: NatsSinkOptions = {}): Promise<StreamSink> {
  const prefix = options.subjectPrefix ?? DEFAULT_SUBJECT_PREFIX;
  // The client's default gives up after 10 tries (about 20 s), and a closed connection never
  // publishes again: every later message would wait in the outbox until feedloop restarts.
  const nc = await connect({ servers: url, name: CONNECTION_NAME, maxReconnectAttempts: -1, reconnectTimeWait: options.reconnectWaitMs ?? 2_000 });
  try {
    await ensureStream(await jetstreamManager(nc), options.stream ?? DEFAULT_STREAM, `${prefix}.>`, options);
  } catch (err) {
    await nc.close();
    throw err;
  }
  const js = jetstream(nc);
  let connected = true;
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') connected = false;
      else if (status.type === 'reconnect') connected = true;
    }
  })().catch(() => undefined);
  return {
    kind: 'nats',
    async publish(messages: readonly OutboundMessage[]): Promise<void> {
      // All in flight at once; any unacknowledged one rejects the batch, and the caller's retry
      // publishes it again (the ones already stored are then acknowledged as duplicates).
      await Promise.all(messages.map((m) => js.publish(streamSubject(m, prefix), JSON.stringify(m), { msgID: m.id })));
    },
    async close(): Promise<void> {
      // Twice closed is closed: drain would throw on a connection already closed or draining.
      if (nc.isClosed() || nc.isDraining()) {
        await nc.closed();
        return;
      }
      // A drain flushes to the server: while NATS is away it fails after its timeout, and a
      // shutdown would end in that error. What was not published waits in the effects outbox,
      // so closing at once loses nothing.
      if (connected) await nc.drain();
      else await nc.close();
    },
  };
}
