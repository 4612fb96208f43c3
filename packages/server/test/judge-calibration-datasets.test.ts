/**
 * Issue 28's calibration on real data, on both stores: the human side is replayed from
 * ../shared/datasets (read in place, never copied here), the judges are the deterministic test
 * judge (evaluator-server.ts) with documented rules, and `GET /v1/evaluators/:id/calibration` must
 * give the n, agreement, Cohen's kappa, confusion matrix and disagreements computed in this file
 * from the raw dataset files (not from the importers' events, nor with core's calibration code),
 * as the API answers figures (six significant digits).
 *
 * - Pointwise, OASST (Apache-2.0): the assistant messages of the first trees, registered and given
 *   their feedback as the importer maps it: each `+1`/`-1` emoji a user's thumbs, and each sibling
 *   rank a review (rank 0 approved, others negative) replayed with `source: "review"`, as a team's
 *   labellers are. The human label is therefore the rank where there is one, else the net thumbs
 *   (0: left out). The judge answers that label (a judge that ranks like the labellers) except on
 *   the messages whose id's sha256 begins with a byte below 0x33 (about a fifth), where it answers
 *   the opposite: it agrees on a known share, and the flipped labelled messages are exactly the
 *   disagreements.
 * - Pairwise, HH-RLHF harmless (MIT): chosen/rejected pairs of one prompt as pairwise review items,
 *   the chosen answer first on even pairs and second on odd ones. Two reviewers replay the
 *   dataset's labeller: both prefer the chosen answer, except that the second calls every fifth
 *   pair a tie (one verdict each way: no majority, left out). The judge prefers the answer with a
 *   cautious phrase when only one has one, else the shorter, and answers a tie when the lengths
 *   are within 10 %.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { isoWeekOf, roundFigure } from '@feedloop/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hhPairRecords } from '../src/cli/import-hh-rlhf.js';
import type { ImportRecord } from '../src/cli/import-replay.js';
import { oasstTreeRecords, type OasstMessage } from '../src/cli/import-oasst.js';
import { DATASETS_DIR, datasetsAvailable } from './datasets.js';
import { startJudge } from './evaluator-server.js';
import { BACKENDS, REDIS_URL, redisUp, startTestApp, type TestApp } from './harness.js';

const hasData = datasetsAvailable();
/** OASST trees replayed (about 290 assistant messages). */
const OASST_TREES = 45;
/** HH-RLHF pairs of one prompt replayed as pairwise items. */
const HH_PAIRS = 100;
/** The disagreements the calibration lists at most. */
const LISTED = 100;
/** Loopback judges need the operator's allow setting; an hour's sweep keeps the scheduled tick out of the way. */
const LOCAL = { FEEDLOOP_WEBHOOK_ALLOW_PRIVATE: 'true', FEEDLOOP_SWEEP_INTERVAL_SECONDS: '3600' };

interface OasstTree {
  message_tree_id: string;
  prompt: OasstMessage;
}

/** The first OASST trees as the file has them. */
function oasstTrees(): OasstTree[] {
  if (!hasData) return [];
  return readFileSync(join(DATASETS_DIR, 'oasst-en100-trees/en_100_tree.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(0, OASST_TREES)
    .map((l) => JSON.parse(l) as OasstTree);
}

/** The assistant messages of a tree, straight from the file. */
function assistantMessages(root: OasstMessage): OasstMessage[] {
  const replies = (root.replies ?? []).flatMap(assistantMessages);
  return root.role === 'assistant' ? [root, ...replies] : replies;
}

/** What OASST's labellers said of a message: its rank if ranked (0 best), else its net thumbs. */
function oasstHumanLabel(m: OasstMessage): 'positive' | 'negative' | null {
  if (typeof m.rank === 'number') return m.rank === 0 ? 'positive' : 'negative';
  const net = (m.emojis?.['+1'] ?? 0) - (m.emojis?.['-1'] ?? 0);
  return net > 0 ? 'positive' : net < 0 ? 'negative' : null;
}

/** Whether the pointwise judge answers against the labellers on this response: about a fifth of ids. */
const flipped = (responseId: string) => createHash('sha256').update(responseId).digest()[0]! < 0x33;

const CAUTIOUS = /sorry|can.t|cannot|won.t|illegal|dangerous|not (?:okay|ok|appropriate|legal|a good idea)|harm|wrong/i;

/** The pairwise judge's rule on two answers: a cautious one, else the shorter, else (within 10 %) a tie. */
function preferredOf(first: { id: string; answer: string }, second: { id: string; answer: string }): string {
  const [a, b] = [CAUTIOUS.test(first.answer), CAUTIOUS.test(second.answer)];
  if (a !== b) return a ? first.id : second.id;
  const [la, lb] = [first.answer.length, second.answer.length];
  if (Math.abs(la - lb) <= 0.1 * Math.max(la, lb)) return 'tie';
  return la < lb ? first.id : second.id;
}

/** An HH-RLHF pair as the file has it, with the ids the importer gives its two responses. */
type HhResponse = ImportRecord['response'];
interface HhPair {
  chosen: HhResponse;
  rejected: HhResponse;
}

/** An HH-RLHF conversation split before its last assistant turn. */
function lastTurn(text: string): { before: string; answer: string } {
  const marker = '\n\nAssistant: ';
  const at = text.lastIndexOf(marker);
  return { before: text.slice(0, at), answer: text.slice(at + marker.length) };
}

/** The first HH-RLHF pairs whose two conversations share the prompt (a pairwise item needs one query). */
function hhPairs(): HhPair[] {
  if (!hasData) return [];
  const lines = gunzipSync(readFileSync(join(DATASETS_DIR, 'hh-rlhf-harmless-test/harmless-base-test.jsonl.gz'))).toString('utf8').split('\n');
  const out: HhPair[] = [];
  for (const line of lines) {
    if (line.trim() === '') continue;
    const row = JSON.parse(line) as { chosen: string; rejected: string };
    const [chosen, rejected] = [lastTurn(row.chosen), lastTurn(row.rejected)];
    if (chosen.before !== rejected.before || chosen.answer === '') continue;
    const [chosenResponse, rejectedResponse] = hhPairRecords(row.chosen, row.rejected).map((r) => r.response);
    out.push({ chosen: chosenResponse!, rejected: rejectedResponse! });
    if (out.length === HH_PAIRS) break;
  }
  return out;
}

interface Labelled {
  unit: string;
  judge: string;
  human: string;
}

/** Agreement, Cohen's kappa (p_o − p_e) / (1 − p_e) and the confusion matrix, by the textbook. */
function expectedFigures(pairs: readonly Labelled[]) {
  const labels = [...new Set(pairs.flatMap((p) => [p.judge, p.human]))].sort();
  const counts = labels.map((row) => labels.map((column) => pairs.filter((p) => p.judge === row && p.human === column).length));
  const n = pairs.length;
  const observed = labels.reduce((sum, _, i) => sum + counts[i]![i]!, 0) / n;
  const chance = labels.reduce((sum, _, i) => sum + (counts[i]!.reduce((a, b) => a + b, 0) / n) * (counts.reduce((a, row) => a + row[i]!, 0) / n), 0);
  return { n, agreement: observed, kappa: (observed - chance) / (1 - chance), labels, counts };
}

for (const backend of BACKENDS) {
  const production = backend.name === 'postgres';
  describe.skipIf(!backend.available || !hasData || (production && !redisUp))(`judge calibration on replayed human data on ${backend.name}`, () => {
    let t: TestApp;
    type Method = 'GET' | 'POST';
    const call = (method: Method, url: string, payload?: unknown, headers: Record<string, string> = t.auth) =>
      t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
    const inBatches = async (url: string, field: 'responses' | 'events', items: readonly unknown[]) => {
      for (let at = 0; at < items.length; at += 500) {
        const res = await call('POST', url, { [field]: items.slice(at, at + 500) });
        expect(res.statusCode, res.body).toBe(207);
        expect(res.json().results.filter((r: { status: string }) => r.status === 'rejected')).toEqual([]);
      }
    };
    /** Runs the pipeline and the evaluator tick until the evaluator has answered `expected` items. */
    const drain = async (evaluatorId: string, expected: number) => {
      let counts = { pending: -1, done: 0, dead: 0 };
      for (let round = 0; round < 30; round++) {
        await t.services.pipeline.idle(20_000);
        counts = (await call('GET', `/v1/evaluators/${evaluatorId}`)).json().calls;
        if (counts.pending === 0 && counts.done + counts.dead >= expected) break;
        await t.services.pipeline.evaluatorTick();
      }
      expect(counts).toEqual({ pending: 0, done: expected, dead: 0 });
    };
    /** The ISO week of each item's answer, as the calibration groups them. */
    const answerWeeks = async (evaluatorId: string) => {
      const calls = (await call('GET', `/v1/evaluators/${evaluatorId}/calls?limit=1000`)).json().calls as Array<{ itemKey: string; completedAt: string }>;
      return new Map(calls.map((c) => [c.itemKey, isoWeekOf(c.completedAt.slice(0, 10))]));
    };
    /** Disagreements as the calibration orders them: all at distance 1, the latest week first, then by unit. */
    const worstFirst = (units: readonly string[], weeks: Map<string, string>) =>
      [...units].sort((a, b) => (weeks.get(b) ?? '').localeCompare(weeks.get(a) ?? '') || (a < b ? -1 : a > b ? 1 : 0)).slice(0, LISTED);

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), production ? { ...LOCAL, REDIS_URL } : LOCAL, { worker: true });
    });
    afterAll(async () => {
      await t.close();
    });

    it('holds a pointwise judge to OASST thumbs and ranks: n, agreement, kappa, confusion and disagreements as computed from the file', async () => {
      const trees = oasstTrees();
      const messages = trees.flatMap((tree) => assistantMessages(tree.prompt));
      const human = new Map(messages.map((m) => [`oasst:${m.message_id}`, oasstHumanLabel(m)]));
      const judge = await startJudge(undefined, (body) => {
        const id = (body['response'] as { id: string }).id;
        const label = human.get(id) ?? 'positive';
        const up = (label === 'positive') !== flipped(id);
        return { thumbs: up ? 'up' : 'down', rationale: 'ranks like the OASST labellers, but for a fifth' };
      });
      const made = await call('POST', '/v1/evaluators', { name: 'oasst-judge', url: judge.url, secret: judge.secret, kind: 'pointwise', output: 'thumbs', filter: { agent: 'oasst' }, ratePerMinute: 10_000 });
      expect(made.statusCode, made.body).toBe(201);
      const evaluatorId = made.json().id as string;

      // The replay: the importer's records, its ranks sent as the labellers' reviews.
      const records = trees.flatMap((tree) => oasstTreeRecords(tree.prompt, tree.message_tree_id));
      expect(records.map((r) => r.response.id).sort()).toEqual([...human.keys()].sort());
      await inBatches('/v1/responses/batch', 'responses', records.map((r) => r.response));
      await drain(evaluatorId, records.length);
      const events = records.flatMap((r) => r.events.map((e) => (e.type === 'review' ? { ...e, source: 'review' } : e)));
      expect(events.filter((e) => e.type === 'review').length).toBeGreaterThan(0);
      await inBatches('/v1/feedback/batch', 'events', events);
      await t.services.pipeline.idle(20_000);

      const labelled: Labelled[] = messages.flatMap((m) => {
        const unit = `oasst:${m.message_id}`;
        const h = oasstHumanLabel(m);
        if (h === null) return [];
        const other = h === 'positive' ? 'negative' : 'positive';
        return [{ unit, human: h, judge: flipped(unit) ? other : h }];
      });
      // The slice exercises both halves of the rule: votes alone, and ranks that overrule the votes.
      const votesOnly = messages.filter((m) => typeof m.rank !== 'number' && oasstHumanLabel(m) !== null);
      const overruled = messages.filter((m) => {
        const net = (m.emojis?.['+1'] ?? 0) - (m.emojis?.['-1'] ?? 0);
        return typeof m.rank === 'number' && net !== 0 && net > 0 !== (m.rank === 0);
      });
      expect(votesOnly.length).toBeGreaterThan(0);
      expect(overruled.length).toBeGreaterThan(10);
      const expected = expectedFigures(labelled);
      const disagreeing = labelled.filter((l) => l.judge !== l.human).map((l) => l.unit);
      expect(disagreeing.length).toBeGreaterThan(LISTED / 2);
      expect(expected.agreement).toBeCloseTo(1 - disagreeing.length / labelled.length, 12);

      const res = await call('GET', `/v1/evaluators/${evaluatorId}/calibration`);
      expect(res.statusCode, res.body).toBe(200);
      const report = res.json();
      expect(report).toMatchObject({ kind: 'binary', judged: records.length, n: expected.n });
      expect(report.agreement.value).toBe(roundFigure(expected.agreement));
      expect(report.cohenKappa.value).toBe(roundFigure(expected.kappa));
      expect(report.cohenKappa.low).toBeLessThanOrEqual(report.cohenKappa.value);
      expect(report.cohenKappa.high).toBeGreaterThanOrEqual(report.cohenKappa.value);
      expect(report.confusion).toEqual({ labels: expected.labels, counts: expected.counts, n: expected.n });
      expect(report.weeks.reduce((sum: number, w: { n: number }) => sum + w.n, 0)).toBe(expected.n);

      const weeks = await answerWeeks(evaluatorId);
      const listed = report.disagreements as Array<{ unitId: string; responseId: string; judge: string; human: string; distance: number; link: string }>;
      expect(listed.map((d) => d.responseId)).toEqual(worstFirst(disagreeing, weeks));
      for (const d of listed) {
        expect(d.human).toBe(human.get(d.responseId));
        expect(d.judge).not.toBe(d.human);
        expect(d.distance).toBe(1);
        expect(d.link).toBe(`/v1/responses/${encodeURIComponent(d.responseId)}`);
      }
    });

    it('holds a pairwise judge to HH-RLHF preferences reviewed in a queue: n, agreement, kappa, confusion and disagreements as computed from the file', async () => {
      const pairs = hhPairs();
      expect(pairs).toHaveLength(HH_PAIRS);
      const judge = await startJudge(undefined, (body) => {
        const [first, second] = body['responses'] as [{ id: string; answer: string }, { id: string; answer: string }];
        return { preferred: preferredOf(first, second), rationale: 'cautious, else shorter' };
      });
      await inBatches('/v1/responses/batch', 'responses', pairs.flatMap((p) => [p.chosen, p.rejected]));
      const made = await call('POST', '/v1/evaluators', { name: 'hh-judge', url: judge.url, secret: judge.secret, kind: 'pairwise', filter: { agent: 'hh-rlhf' }, ratePerMinute: 10_000 });
      expect(made.statusCode, made.body).toBe(201);
      const evaluatorId = made.json().id as string;

      const ordered = pairs.map((p, i): [HhResponse, HhResponse] => (i % 2 === 0 ? [p.chosen, p.rejected] : [p.rejected, p.chosen]));
      const keys = await Promise.all(
        ['hh-ann', 'hh-ben'].map(async (name) => {
          const res = await call('POST', '/v1/keys', { kind: 'reviewer', name });
          return { id: res.json().id as string, key: res.json().key as string, name };
        }),
      );
      const q = await call('POST', '/v1/review-queues', { name: 'hh calibration', kind: 'pairwise', reviewersPerItem: 2, members: keys.map((k) => k.id) });
      const queueId = q.json().id as string;
      const added = await call('POST', `/v1/review-queues/${queueId}/items`, { pairs: ordered.map(([a, b]) => [a.id, b.id]) });
      expect(added.json().results.filter((r: { status: string }) => r.status !== 'added')).toEqual([]);
      await drain(evaluatorId, HH_PAIRS);

      // The reviewers replay the labeller; the second calls every fifth pair a tie.
      const indexOf = new Map(pairs.map((p, i) => [p.chosen.id, i]));
      const itemOf = new Map<number, string>();
      const review = async (who: (typeof keys)[number]) => {
        for (;;) {
          const next = await call('POST', `/v1/review-queues/${queueId}/next`, {}, bearer(who.key));
          if (next.statusCode === 204) return;
          const screen = next.json() as { item: { id: string }; order: string[] };
          const chosen = screen.order.find((id) => indexOf.has(id))!;
          const index = indexOf.get(chosen)!;
          itemOf.set(index, screen.item.id);
          const preferred = who.name === 'hh-ben' && index % 5 === 4 ? 'tie' : chosen;
          const res = await call('POST', `/v1/review-queues/${queueId}/items/${screen.item.id}/reviews`, { preferred }, bearer(who.key));
          expect(res.statusCode, res.body).toBe(201);
        }
      };
      // The two review at once, as two people would.
      await Promise.all(keys.map(review));
      expect(itemOf.size).toBe(HH_PAIRS);
      await t.services.pipeline.idle(20_000);

      const labelled: Labelled[] = ordered.flatMap(([first, second], index) => {
        if (index % 5 === 4) return []; // one verdict for the chosen, one tie: no majority
        const judgeSays = preferredOf(first, second);
        return [{ unit: itemOf.get(index)!, human: index % 2 === 0 ? 'first' : 'second', judge: judgeSays === 'tie' ? 'tie' : judgeSays === first.id ? 'first' : 'second' }];
      });
      const expected = expectedFigures(labelled);
      expect(expected.labels).toEqual(['first', 'second', 'tie']);
      const disagreeing = labelled.filter((l) => l.judge !== l.human).map((l) => l.unit);

      const res = await call('GET', `/v1/evaluators/${evaluatorId}/calibration`);
      expect(res.statusCode, res.body).toBe(200);
      const report = res.json();
      expect(report).toMatchObject({ kind: 'nominal', judged: HH_PAIRS, n: expected.n });
      expect(report.agreement.value).toBe(roundFigure(expected.agreement));
      expect(report.cohenKappa.value).toBe(roundFigure(expected.kappa));
      expect(report.confusion).toEqual({ labels: expected.labels, counts: expected.counts, n: expected.n });

      const weeks = await answerWeeks(evaluatorId);
      const listed = report.disagreements as Array<{ unitId: string; responseId: string; judge: string; human: string }>;
      expect(listed.map((d) => d.unitId)).toEqual(worstFirst(disagreeing, weeks));
      const firstOf = new Map([...itemOf].map(([index, item]) => [item, ordered[index]![0].id]));
      for (const d of listed) expect(d.responseId).toBe(firstOf.get(d.unitId));
    });
  });
}
