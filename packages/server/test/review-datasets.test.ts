/**
 * Issue 27 on real data, on both stores: HH-RLHF chosen/rejected pairs as pairwise items (the
 * reviewers prefer what the dataset's labellers chose, so every stored verdict must name the
 * chosen response whatever order each reviewer saw), and OASST assistant messages as single
 * items added by filter, reviewed with the verdicts their ranks give.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readHhRlhf } from '../src/cli/import-hh-rlhf.js';
import type { ImportRecord } from '../src/cli/import-replay.js';
import { readOasst } from '../src/cli/import-oasst.js';
import { processEvents } from '../src/pipeline/process-events.js';
import { DATASETS_DIR, datasetsAvailable } from './datasets.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const hasData = datasetsAvailable();
const HH = join(DATASETS_DIR, 'hh-rlhf-harmless-test/harmless-base-test.jsonl.gz');
const OASST = join(DATASETS_DIR, 'oasst-en100-trees/en_100_tree.jsonl');
const PAIRS = 24;
const OASST_ITEMS = 30;

async function firstRecords(read: AsyncGenerator<ImportRecord>, n: number, keep: (r: ImportRecord) => boolean = () => true): Promise<ImportRecord[]> {
  const out: ImportRecord[] = [];
  for await (const r of read) {
    if (keep(r)) out.push(r);
    if (out.length >= n) break;
  }
  return out;
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available || !hasData)(`review queues on real data on ${backend.name}`, () => {
    let t: TestApp;
    const call = (method: 'GET' | 'POST', url: string, payload?: unknown, headers: Record<string, string> = t.auth) =>
      t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
    const reviewer = async (name: string) => {
      const res = await call('POST', '/v1/keys', { kind: 'reviewer', name });
      return { id: res.json().id as string, key: res.json().key as string, name };
    };
    const register = async (records: ImportRecord[]) => {
      for (let at = 0; at < records.length; at += 500) {
        const res = await call('POST', '/v1/responses/batch', { responses: records.slice(at, at + 500).map((r) => r.response) });
        expect(res.json().results.filter((x: { status: string }) => x.status === 'rejected')).toEqual([]);
      }
    };

    beforeAll(async () => {
      t = await startTestApp(await backend.open());
    });
    afterAll(async () => {
      await t.close();
    });

    it('reviews HH-RLHF pairs: per-reviewer order, and the verdict names the chosen response', async () => {
      // Records come chosen, rejected, chosen, rejected, …
      const records = await firstRecords(readHhRlhf(HH), PAIRS * 2);
      await register(records);
      const pairs: Array<[string, string]> = [];
      for (let i = 0; i < records.length; i += 2) pairs.push([records[i]?.response.id ?? '', records[i + 1]?.response.id ?? '']);
      const sameQuery = pairs.filter(([c, r]) => records.find((x) => x.response.id === c)?.response.query === records.find((x) => x.response.id === r)?.response.query);
      expect(sameQuery.length).toBeGreaterThan(PAIRS / 2);

      const [ann, ben] = [await reviewer('hh-ann'), await reviewer('hh-ben')];
      const q = await call('POST', '/v1/review-queues', { name: 'hh-rlhf', kind: 'pairwise', reviewersPerItem: 2, members: [ann.id, ben.id], instructions: 'Which answer is more harmless?' });
      const queueId = q.json().id as string;
      const added = await call('POST', `/v1/review-queues/${queueId}/items`, { pairs });
      expect(added.statusCode).toBe(207);
      const statuses = added.json().results.map((r: { status: string }) => r.status);
      // A pair whose conversations differ before the last turn answers two queries: refused alone.
      expect(statuses.filter((s: string) => s === 'added')).toHaveLength(sameQuery.length);
      expect(statuses.filter((s: string) => s === 'rejected')).toHaveLength(pairs.length - sameQuery.length);

      const orders = new Map<string, Map<string, string[]>>();
      for (const who of [ann, ben]) {
        for (;;) {
          const next = await call('POST', `/v1/review-queues/${queueId}/next`, {}, bearer(who.key));
          if (next.statusCode === 204) break;
          const screen = next.json();
          expect(screen.responses.map((r: { id: string }) => r.id)).toEqual(screen.order);
          expect(screen.responses[0].query).toBe(screen.responses[1].query);
          const byItem = orders.get(screen.item.id) ?? new Map<string, string[]>();
          byItem.set(who.name, screen.order);
          orders.set(screen.item.id, byItem);
          const chosen = (screen.order as string[]).find((id) => id.endsWith(':chosen'));
          expect(chosen).toBeDefined();
          const url = `/v1/review-queues/${queueId}/items/${screen.item.id}/reviews`;
          expect((await call('POST', url, { preferred: 'hh-rlhf:elsewhere' }, bearer(who.key))).json().error.field).toBe('preferred');
          const res = await call('POST', url, { preferred: chosen, reason: 'less harmful' }, bearer(who.key));
          expect(res.statusCode, res.body).toBe(201);
          expect(res.json().events.map((e: { status: string }) => e.status)).toEqual(['accepted']);
        }
      }
      expect(orders.size).toBe(sameQuery.length);
      // The order is the reviewer's own: it differs between the two on some items, not on all.
      const differing = [...orders.values()].filter((m) => JSON.stringify(m.get('hh-ann')) !== JSON.stringify(m.get('hh-ben'))).length;
      expect(differing).toBeGreaterThan(0);
      expect(differing).toBeLessThan(orders.size);

      const reviews = await t.db.query<{ item_id: string; reviewer: string; label: string; first_response_id: string }>(
        'SELECT item_id, reviewer, label, first_response_id FROM reviews WHERE workspace_id = $1 AND queue_id = $2',
        [t.workspaceId, queueId],
      );
      expect(reviews).toHaveLength(sameQuery.length * 2);
      for (const r of reviews) {
        expect(r.label).toMatch(/:chosen$/);
        expect(r.first_response_id).toBe(orders.get(r.item_id)?.get(r.reviewer)?.[0]);
      }
      const events = await t.db.query<{ source: string; user_id: string; response_id: string; payload: { pair: string[]; preferred: string; shown: string[] } }>(
        "SELECT source, user_id, response_id, payload FROM feedback_events WHERE workspace_id = $1 AND type = 'preference' AND metadata->>'reviewQueueId' = $2",
        [t.workspaceId, queueId],
      );
      expect(events).toHaveLength(sameQuery.length * 2);
      for (const e of events) {
        expect(e.source).toBe('review');
        expect(e.payload.preferred).toMatch(/:chosen$/);
        expect(e.payload.pair).toContain(e.payload.preferred);
        expect([...e.payload.shown].sort()).toEqual([...e.payload.pair].sort());
        expect(e.payload.pair).toContain(e.response_id);
      }
    });

    it('reviews OASST answers added by filter, with the verdicts their ranks give, processed as review feedback', async () => {
      const records = await firstRecords(readOasst(OASST), OASST_ITEMS, (r) => r.events.some((e) => e.type === 'review'));
      // Registered without their own events: the reviewers' verdicts are the only feedback.
      await register(records);
      const verdictOf = new Map(records.map((r) => [r.response.id, (r.events.find((e) => e.type === 'review')?.payload as { verdict: string }).verdict]));
      const cy = await reviewer('oasst-cy');
      const q = await call('POST', '/v1/review-queues', { name: 'oasst', members: [cy.id], rubric: { qualityScores: true } });
      const queueId = q.json().id as string;
      const added = await call('POST', `/v1/review-queues/${queueId}/items`, { filter: { agent: 'oasst' } });
      expect(added.json()).toEqual({ matched: OASST_ITEMS, added: OASST_ITEMS, existing: 0, truncated: false });

      let reviewed = 0;
      for (;;) {
        const next = await call('POST', `/v1/review-queues/${queueId}/next`, {}, bearer(cy.key));
        if (next.statusCode === 204) break;
        const response = next.json().responses[0] as { id: string; answer: string };
        expect(response.answer.length).toBeGreaterThan(0);
        const verdict = verdictOf.get(response.id);
        const res = await call(
          'POST',
          `/v1/review-queues/${queueId}/items/${next.json().item.id}/reviews`,
          { verdict, qualityScores: { accuracy: verdict === 'approved' ? 90 : 40 } },
          bearer(cy.key),
        );
        expect(res.statusCode, res.body).toBe(201);
        reviewed++;
      }
      expect(reviewed).toBe(OASST_ITEMS);
      const labels = await t.db.query<{ response_id: string; label: string }>(
        'SELECT i.response_id, r.label FROM reviews r JOIN review_items i ON i.workspace_id = r.workspace_id AND i.id = r.item_id WHERE r.workspace_id = $1 AND r.queue_id = $2',
        [t.workspaceId, queueId],
      );
      for (const l of labels) expect(l.label).toBe(verdictOf.get(l.response_id));

      const keys = await t.db.query<{ workspace_id: string; event_id: string }>('SELECT workspace_id, event_id FROM pipeline_pending WHERE workspace_id = $1', [t.workspaceId]);
      await processEvents(t.db, keys.map((k) => [k.workspace_id, k.event_id]), { counters: { kind: 'outbox' }, stream: false });
      const signals = await t.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM feedback_signals s JOIN feedback_events e ON e.workspace_id = s.workspace_id AND e.id = s.event_id WHERE s.workspace_id = $1 AND e.source = 'review' AND e.response_id LIKE 'oasst:%'",
        [t.workspaceId],
      );
      expect(signals[0]?.n).toBe(OASST_ITEMS * 2);
      const progress = (await call('GET', `/v1/review-queues/${queueId}`)).json().progress;
      expect(progress).toEqual({ total: OASST_ITEMS, pending: 0, inProgress: 0, done: OASST_ITEMS });
    });
  });
}
