import { randomBytes } from 'node:crypto';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, nanos, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNatsSink } from '../src/emit/nats-sink.js';
import { outboundMessageId, type OutboundEventType, type OutboundMessage } from '@feedloop/core';
import type { StreamSink } from '@feedloop/core';
import { streamSubject } from '../src/emit/stream-sink.js';
import { natsServerInstalled, startNatsProcess } from './nats-process.js';
import { NATS_URL, natsUp } from './nats-service.js';

function message(workspaceId: string, type: OutboundEventType): OutboundMessage {
  const eventId = `ev-${randomBytes(6).toString('hex')}`;
  return { id: outboundMessageId(type, eventId), type, workspaceId, createdAt: new Date().toISOString(), data: { eventId, value: 0.5 } };
}

describe('stream subjects', () => {
  it('is <prefix>.<workspace token>.<type>, the workspace id made one safe token', () => {
    expect(streamSubject({ workspaceId: 'ws_1-A', type: 'feedback.submitted' })).toBe('feedloop.ws_1-A.feedback.submitted');
    expect(streamSubject({ workspaceId: 'a.b*c>d e', type: 'learning.signal' })).toBe('feedloop.a_b_c_d_e.learning.signal');
    expect(streamSubject({ workspaceId: 'ws', type: 'learning.signal' }, 'test')).toBe('test.ws.learning.signal');
  });
});

// Each run has its own stream and subject prefix (two streams may not share subjects), deleted at the end.
describe.skipIf(!natsUp)('NATS JetStream sink', () => {
  const suffix = randomBytes(4).toString('hex');
  const stream = `FLTEST_${suffix.toUpperCase()}`;
  const subjectPrefix = `fltest_${suffix}`;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let sink: StreamSink;
  const created: string[] = [];

  beforeAll(async () => {
    nc = await connect({ servers: NATS_URL });
    jsm = await jetstreamManager(nc);
    sink = await connectNatsSink(NATS_URL, { stream, subjectPrefix, duplicateWindowMs: 60_000 });
    created.push(stream);
  });
  afterAll(async () => {
    await sink.close();
    for (const name of created) await jsm.streams.delete(name).catch(() => false);
    await nc.close();
  });

  it('creates the stream on the prefix with the duplicate window', async () => {
    const info = await jsm.streams.info(stream);
    expect(info.config.subjects).toEqual([`${subjectPrefix}.>`]);
    expect(info.config.duplicate_window).toBe(nanos(60_000));
    expect(sink.kind).toBe('nats');
  });

  it('publishes each message as JSON on its subject', async () => {
    const a = message('ws.one', 'feedback.submitted');
    const b = message('ws-two', 'learning.signal');
    const before = (await jsm.streams.info(stream)).state.last_seq;
    await sink.publish([a, b]);
    const stored = await Promise.all([before + 1, before + 2].map((seq) => jsm.streams.getMessage(stream, { seq })));
    const bySubject = new Map(stored.map((m) => [m?.subject, m?.json<OutboundMessage>()]));
    expect(bySubject.get(`${subjectPrefix}.ws_one.feedback.submitted`)).toEqual(a);
    expect(bySubject.get(`${subjectPrefix}.ws-two.learning.signal`)).toEqual(b);
    expect(stored.map((m) => m?.header.get('Nats-Msg-Id')).sort()).toEqual([a.id, b.id].sort());
  });

  it('stores a message published twice once', async () => {
    const m = message('ws-dup', 'learning.signal');
    const before = (await jsm.streams.info(stream)).state.messages;
    await sink.publish([m]);
    await sink.publish([m, m]);
    expect((await jsm.streams.info(stream)).state.messages).toBe(before + 1);
  });

  it('leaves an existing stream as it is', async () => {
    const other = `${stream}_X`;
    const otherPrefix = `${subjectPrefix}x`;
    await jsm.streams.add({ name: other, subjects: [`${otherPrefix}.>`], duplicate_window: nanos(5_000) });
    created.push(other);
    const second = await connectNatsSink(NATS_URL, { stream: other, subjectPrefix: otherPrefix });
    try {
      await second.publish([message('ws', 'feedback.submitted')]);
      const info = await jsm.streams.info(other);
      expect(info.config.duplicate_window).toBe(nanos(5_000));
      expect(info.state.messages).toBe(1);
    } finally {
      await second.close();
      await second.close();
    }
  });

  it('rejects a publish nothing stores, so the caller retries', async () => {
    const lost = await connectNatsSink(NATS_URL, { stream: `${stream}_L`, subjectPrefix: `${subjectPrefix}l` });
    created.push(`${stream}_L`);
    await jsm.streams.delete(`${stream}_L`);
    try {
      await expect(lost.publish([message('ws', 'learning.signal')])).rejects.toThrow();
    } finally {
      await lost.close();
    }
  });
});

describe.skipIf(!natsServerInstalled)('NATS JetStream sink across a NATS outage', () => {
  it('publishes again when NATS returns after longer than the client library gives a server by default (10 tries)', async () => {
    const nats = await startNatsProcess();
    // 30 ms between tries: the default 10 tries are spent within the outage below.
    const sink = await connectNatsSink(nats.url, { reconnectWaitMs: 30 });
    try {
      await sink.publish([message('ws', 'feedback.submitted')]);
      await nats.kill();
      await new Promise((r) => setTimeout(r, 1_500));
      await nats.restart();
      // The caller (the effects outbox) retries a rejected publish; JetStream may take a moment
      // to recover its stream after the restart. A closed connection never publishes again.
      const again = message('ws', 'learning.signal');
      const deadline = Date.now() + 20_000;
      for (;;) {
        const failed = await sink.publish([again]).then(() => undefined, (err: unknown) => err);
        if (failed === undefined) break;
        if (Date.now() > deadline) throw failed;
        await new Promise((r) => setTimeout(r, 200));
      }
      const nc = await connect({ servers: nats.url });
      try {
        const info = await (await jetstreamManager(nc)).streams.info('FEEDLOOP');
        expect(info.state.messages).toBe(2);
      } finally {
        await nc.close();
      }
    } finally {
      await sink.close();
      await nats.dispose();
    }
  });

  it('closes at once while NATS is away: a drain would fail after its timeout, and what is unpublished stays in the outbox', async () => {
    const nats = await startNatsProcess();
    const sink = await connectNatsSink(nats.url);
    try {
      await nats.kill();
      await new Promise((r) => setTimeout(r, 300));
      const started = Date.now();
      await sink.close();
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      await nats.dispose();
    }
  });
});
