/**
 * Issue 27: under 20 concurrent reviewers no item is over-reserved, on both stores, through the
 * real HTTP routes (a listening server, fetch): never more live reservations plus reviews than
 * `reviewersPerItem`, no reviewer twice on an item, and every item ends with exactly that many;
 * and an item locked for a moment by another reviewer is waited for, not taken for an empty queue.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const REVIEWERS = 20;

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`review reservations under ${REVIEWERS} concurrent reviewers on ${backend.name}`, () => {
    let t: TestApp;
    let base: string;
    let keys: Array<{ id: string; key: string; name: string }>;

    const post = async (key: string, path: string, body: unknown = {}): Promise<{ status: number; json: Record<string, unknown> | null }> => {
      const res = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const text = await res.text();
      return { status: res.status, json: text === '' ? null : (JSON.parse(text) as Record<string, unknown>) };
    };

    const makeQueue = async (name: string, items: number, reviewersPerItem: number): Promise<string> => {
      const ids = Array.from({ length: items }, (_, i) => `${name}-r${i}`);
      const registered = await t.app.inject({ method: 'POST', url: '/v1/responses/batch', headers: t.auth, payload: { responses: ids.map((id) => ({ id, query: `q ${id}`, answer: `a ${id}` })) } });
      expect(registered.statusCode).toBe(207);
      const q = await t.app.inject({ method: 'POST', url: '/v1/review-queues', headers: t.auth, payload: { name, reviewersPerItem, members: keys.map((k) => k.id), reservationSeconds: 3_600 } });
      expect(q.statusCode).toBe(201);
      const queueId = q.json().id as string;
      expect((await t.app.inject({ method: 'POST', url: `/v1/review-queues/${queueId}/items`, headers: t.auth, payload: { responseIds: ids } })).statusCode).toBe(207);
      return queueId;
    };

    beforeAll(async () => {
      t = await startTestApp(await backend.open());
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      keys = [];
      for (let i = 0; i < REVIEWERS; i++) {
        const res = await t.app.inject({ method: 'POST', url: '/v1/keys', headers: t.auth, payload: { kind: 'reviewer', name: `rev${i}` } });
        keys.push({ id: res.json().id, key: res.json().key, name: `rev${i}` });
      }
    });
    afterAll(async () => {
      await t.close();
    });

    it('gives 20 simultaneous `next` calls exactly the free places, never more per item', async () => {
      // 6 items × 2 reviewers = 12 places for 20 reviewers asking at once.
      const queueId = await makeQueue('burst', 6, 2);
      const answers = await Promise.all(keys.map((k) => post(k.key, `/v1/review-queues/${queueId}/next`)));
      const got = answers.filter((a) => a.status === 200);
      expect(answers.filter((a) => a.status === 204)).toHaveLength(REVIEWERS - 12);
      expect(got).toHaveLength(12);
      const perItem = new Map<string, number>();
      for (const a of got) {
        const id = (a.json?.item as { id: string }).id;
        perItem.set(id, (perItem.get(id) ?? 0) + 1);
      }
      expect([...perItem.values()]).toEqual([2, 2, 2, 2, 2, 2]);
      const stored = await t.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM review_reservations WHERE workspace_id = $1 AND queue_id = $2 AND expires_at > now() GROUP BY item_id',
        [t.workspaceId, queueId],
      );
      expect(stored.map((s) => s.n)).toEqual([2, 2, 2, 2, 2, 2]);
    });

    it("waits for an item another reviewer's review holds instead of answering 204 while it still needs this reviewer", async () => {
      const queueId = await makeQueue('held', 1, 2);
      const [item] = await t.db.query<{ id: string }>('SELECT id FROM review_items WHERE workspace_id = $1 AND queue_id = $2', [t.workspaceId, queueId]);
      expect((await post(keys[1]!.key, `/v1/review-queues/${queueId}/next`)).status).toBe(200);
      let answer: ReturnType<typeof post> | undefined;
      // What rev1's review does under the item's lock, held while rev0 asks: one review more, and
      // rev1's reservation ended. rev0 must see the item after the commit, not the reservation
      // its search read before the wait.
      await t.db.transaction(async (tx) => {
        await tx.query('SELECT id FROM review_items WHERE workspace_id = $1 AND id = $2 FOR UPDATE', [t.workspaceId, item!.id]);
        answer = post(keys[0]!.key, `/v1/review-queues/${queueId}/next`);
        await new Promise((resolve) => setTimeout(resolve, 300));
        await tx.query('UPDATE review_items SET reviews = reviews + 1 WHERE workspace_id = $1 AND id = $2', [t.workspaceId, item!.id]);
        await tx.query('DELETE FROM review_reservations WHERE workspace_id = $1 AND item_id = $2 AND reviewer = $3', [t.workspaceId, item!.id, keys[1]!.name]);
      });
      const got = await answer!;
      expect(got.status).toBe(200);
      expect((got.json?.item as { id: string }).id).toBe(item!.id);
    });

    it('drains a queue with 20 reviewers reviewing at once: each item gets exactly reviewersPerItem distinct reviewers', async () => {
      const items = 40;
      const perItem = 3;
      const queueId = await makeQueue('drain', items, perItem);
      // Held counts as the clients see them: raised after `next` answers, lowered before the review
      // is sent, so they never exceed the server's own count; above reviewersPerItem is a failure.
      const held = new Map<string, number>();
      let worst = 0;
      const seen = new Set<string>();
      const reviewer = async (k: { key: string; name: string }) => {
        for (;;) {
          const next = await post(k.key, `/v1/review-queues/${queueId}/next`);
          if (next.status === 204) return;
          expect(next.status).toBe(200);
          const itemId = (next.json?.item as { id: string }).id;
          const pair = `${itemId}/${k.name}`;
          expect(seen.has(pair), pair).toBe(false);
          seen.add(pair);
          held.set(itemId, (held.get(itemId) ?? 0) + 1);
          worst = Math.max(worst, held.get(itemId) ?? 0);
          // The reviewer reads the item for a moment: other reservations overlap this one.
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 10));
          held.set(itemId, (held.get(itemId) ?? 0) - 1);
          const review = await post(k.key, `/v1/review-queues/${queueId}/items/${itemId}/reviews`, { verdict: 'approved' });
          expect(review.status, JSON.stringify(review.json)).toBe(201);
        }
      };
      await Promise.all(keys.map((k) => reviewer(k)));
      expect(worst).toBeLessThanOrEqual(perItem);
      // The check saw reservations overlap (it would have seen too many).
      expect(worst).toBeGreaterThan(1);
      const counts = await t.db.query<{ reviews: number; state: string; distinct_reviewers: number }>(
        `SELECT i.reviews, i.state, (SELECT count(DISTINCT r.reviewer)::int FROM reviews r WHERE r.workspace_id = i.workspace_id AND r.item_id = i.id) AS distinct_reviewers
           FROM review_items i WHERE i.workspace_id = $1 AND i.queue_id = $2`,
        [t.workspaceId, queueId],
      );
      expect(counts).toHaveLength(items);
      for (const c of counts) expect(c).toEqual({ reviews: perItem, state: 'done', distinct_reviewers: perItem });
      expect(seen.size).toBe(items * perItem);
      const events = await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM feedback_events WHERE workspace_id = $1 AND metadata->>'reviewQueueId' = $2 AND source = 'review'", [
        t.workspaceId,
        queueId,
      ]);
      expect(events[0]?.n).toBe(items * perItem);
    });
  });
}
