/**
 * The effects outbox is applied with no database transaction open: while Redis or the stream
 * is slow (here: a publish held until the test lets it go), the effect row is not locked and no
 * connection waits in a transaction. Exactly once still holds through a failed publish, a sweep
 * and an applier that outlived its lease. Real Postgres or PGlite, real Redis, real NATS.
 */
import { randomBytes } from 'node:crypto';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { utcDay } from '@feedloop/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNatsSink } from '../src/emit/nats-sink.js';
import type { OutboundMessage } from '@feedloop/core';
import type { StreamSink } from '@feedloop/core';
import { applyEffects } from '../src/pipeline/effects.js';
import { RedisLiveCounters } from '../src/pipeline/live-counter-store.js';
import { processEvents } from '../src/pipeline/process-events.js';
import { BACKENDS, REDIS_URL, redisUp, startTestApp, type TestApp } from './harness.js';
import { NATS_URL, natsUp } from './nats-service.js';

/** Rejects when `promise` takes longer than `ms`: a query stuck behind a lock fails the test. */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  return Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} waited over ${ms} ms`)), ms))]);
}

/** A sink that stops every publish at a gate until `release()`, then publishes for real. */
function gatedSink(real: StreamSink) {
  let release!: () => void;
  let reached!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const entered = new Promise<void>((r) => (reached = r));
  const sink: StreamSink = {
    kind: 'gated',
    async publish(messages: readonly OutboundMessage[]) {
      reached();
      await gate;
      await real.publish(messages);
    },
    close: async () => undefined,
  };
  return { sink, entered, release: () => release() };
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available || !redisUp || !natsUp)(`effects after commit on ${backend.name}`, () => {
    const suffix = randomBytes(4).toString('hex');
    const stream = `FLTEST_FX_${suffix.toUpperCase()}`;
    let t: TestApp;
    let counters: RedisLiveCounters;
    let sink: StreamSink;
    let nc: NatsConnection;
    let jsm: JetStreamManager;
    let n = 0;

    beforeAll(async () => {
      t = await startTestApp(await backend.open());
      counters = new RedisLiveCounters(REDIS_URL, `fltest-fx-${suffix}`);
      sink = await connectNatsSink(NATS_URL, { stream, subjectPrefix: `fltestfx_${suffix}` });
      nc = await connect({ servers: NATS_URL });
      jsm = await jetstreamManager(nc);
      const res = await t.app.inject({ method: 'POST', url: '/v1/responses', headers: t.auth, payload: { id: 'fx-r1', query: 'q', answer: 'a' } });
      expect(res.statusCode).toBe(201);
    });
    afterAll(async () => {
      await sink?.close();
      await counters?.close();
      await jsm?.streams.delete(stream).catch(() => false);
      await nc?.close();
      await t?.close();
    });

    /** Ingests `count` events and processes them in one transaction; returns its effect row's id. */
    async function committedEffect(count: number): Promise<number> {
      const ids = Array.from({ length: count }, () => `fx-e${++n}`);
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/feedback/batch',
        headers: t.auth,
        payload: { events: ids.map((id) => ({ id, responseId: 'fx-r1', type: 'thumbs_up', userId: `u-${id}` })) },
      });
      expect(res.json().results.map((r: { status: string }) => r.status)).toEqual(ids.map(() => 'accepted'));
      const report = await processEvents(t.db, ids.map((id) => [t.workspaceId, id]), { counters: { kind: 'outbox' }, stream: true });
      expect(report.counted).toBe(count);
      if (report.effectId === null) throw new Error('no effect row');
      return report.effectId;
    }
    const liveTotal = async () => (await counters.read(t.workspaceId, utcDay(new Date()))).total ?? 0;
    const streamed = async () => (await jsm.streams.info(stream)).state.messages;
    const effectRow = (id: number) =>
      t.db.query<{ counters_done: boolean; messages_done: boolean; lease_until: Date | null }>(
        'SELECT counters_done, messages_done, lease_until FROM pipeline_effects WHERE id = $1',
        [id],
      );

    it('holds no lock and no transaction while the stream is slow', async () => {
      const effectId = await committedEffect(3);
      const [totalBefore, streamedBefore] = [await liveTotal(), await streamed()];
      const slow = gatedSink(sink);
      const applying = applyEffects(t.db, { ids: [effectId] }, { counters, sink: slow.sink });
      await within(5_000, 'the publish', slow.entered);

      // Another transaction locks the effect row at once: nobody holds it (on PGlite, whose one
      // connection a transaction holds whole, this also proves no transaction is open).
      const locked = await within(2_000, 'locking the effect row', t.db.transaction((tx) => tx.query('SELECT id FROM pipeline_effects WHERE id = $1 FOR UPDATE NOWAIT', [effectId])));
      expect(locked).toHaveLength(1);
      if (backend.name === 'postgres') {
        // No other session holds any lock on this suite's outbox table (a transaction that took
        // its rows FOR UPDATE would hold a table lock until it ends).
        const held = await t.db.query<{ mode: string }>(
          `SELECT mode FROM pg_locks WHERE relation = 'pipeline_effects'::regclass AND pid <> pg_backend_pid()`,
        );
        expect(held).toEqual([]);
      }
      // The lease keeps a second applier (the sweep, another worker) off the row meanwhile.
      expect(await applyEffects(t.db, { olderThanMs: 0, limit: 100 }, { counters, sink })).toEqual({ applied: 0, pending: 0, errors: [] });
      expect((await effectRow(effectId))[0]?.lease_until).toBeInstanceOf(Date);

      slow.release();
      expect(await applying).toEqual({ applied: 1, pending: 0, errors: [] });
      expect(await effectRow(effectId)).toEqual([]);
      expect(await liveTotal()).toBe(totalBefore + 3);
      expect(await streamed()).toBe(streamedBefore + 6); // feedback.submitted and learning.signal per event
    });

    it('keeps what a failed publish did not apply, for the sweep, and counts once', async () => {
      const effectId = await committedEffect(2);
      const [totalBefore, streamedBefore] = [await liveTotal(), await streamed()];
      const failing: StreamSink = { kind: 'down', publish: () => Promise.reject(new Error('stream away')), close: async () => undefined };

      expect(await applyEffects(t.db, { ids: [effectId] }, { counters, sink: failing })).toEqual({ applied: 0, pending: 1, errors: ['stream: stream away'] });
      expect(await effectRow(effectId)).toEqual([{ counters_done: true, messages_done: false, lease_until: null }]);
      expect(await liveTotal()).toBe(totalBefore + 2);

      expect(await applyEffects(t.db, { olderThanMs: 0, limit: 100 }, { counters, sink })).toEqual({ applied: 1, pending: 0, errors: [] });
      expect(await effectRow(effectId)).toEqual([]);
      expect(await liveTotal()).toBe(totalBefore + 2); // not counted again by the sweep
      expect(await streamed()).toBe(streamedBefore + 4);
    });

    it('applies an effect once when its applier outlives its lease', async () => {
      const effectId = await committedEffect(2);
      const [totalBefore, streamedBefore] = [await liveTotal(), await streamed()];
      // The first applier counts, then stalls in its publish past a short lease.
      const stalled = gatedSink(sink);
      const first = applyEffects(t.db, { ids: [effectId] }, { counters, sink: stalled.sink }, { leaseMs: 200 });
      await within(5_000, 'the publish', stalled.entered);
      await new Promise((r) => setTimeout(r, 400));

      // A second applier takes the row whose lease ended, and applies it whole.
      expect(await applyEffects(t.db, { ids: [effectId] }, { counters, sink })).toEqual({ applied: 1, pending: 0, errors: [] });
      stalled.release();
      expect(await first).toEqual({ applied: 1, pending: 0, errors: [] });

      // Twice applied, once counted (the Lua applied-marker) and once stored (JetStream's msg id).
      expect(await liveTotal()).toBe(totalBefore + 2);
      expect(await streamed()).toBe(streamedBefore + 4);
      expect(await effectRow(effectId)).toEqual([]);
    });
  });
}
