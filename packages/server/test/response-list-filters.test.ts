/**
 * The response list's filters against a brute-force oracle, on both stores: responses and
 * feedback sent through the API and processed by the worker; for each filter (and combinations)
 * every page followed by its cursor must give exactly the responses, in exactly the order, that a
 * plain reading of the tables filtered in JavaScript gives. The list's tags (migration 0019) must
 * equal what the counted signals derive after processing, after an erasure and after retention
 * deleted signals; a comment search must agree whichever way it runs (a first bounded walk, the
 * piece index's answer, or the full newest-first walk).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rescoreDirtyResponses } from '../src/pipeline/rescore.js';
import { runRetention } from '../src/pipeline/retention.js';
import { derivedTags } from '../src/store/response-list-tags.js';
import { listResponses, type ResponseListFilter } from '../src/store/response-list.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const CATEGORIES = ['hallucination', 'missing_context', 'wrong_context', 'style_mismatch'];
const AGENTS = ['sql', 'support', 'search', 'rare-agent'];
const COMMENTS = ['The Refund policy is 100% wrong', 'ok', 'Straße gesperrt', 'under_score and 50%', 'fine answer', 'a', 'refunded twice'];

/** A small deterministic generator (mulberry32), so a failure reproduces. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Truth {
  id: string;
  createdAt: number;
  agent: string | null;
  model: string | null;
  experimentId: string | null;
  variant: string | null;
  score: number | null;
  polarities: Set<string>;
  categories: Set<string>;
  comments: string[];
  counted: number;
  /** Has a counted correction (every event here is a user's). */
  corrected: boolean;
  /** Its score's conflicts are not empty. */
  conflicting: boolean;
}

/** Everything the list filters on, read plainly from the tables. */
async function readTruth(t: TestApp): Promise<Truth[]> {
  const ws = t.workspaceId;
  const responses = await t.db.query<{ id: string; created_at: Date; agent: string | null; model: string | null; experiment_id: string | null; variant: string | null }>(
    'SELECT id, created_at, agent, model, experiment_id, variant FROM responses WHERE workspace_id = $1',
    [ws],
  );
  const signals = await t.db.query<{ response_id: string; polarity: string | null; categories: string[]; type: string }>(
    `SELECT response_id, polarity, categories, type FROM feedback_signals WHERE workspace_id = $1 AND status = 'counted'`,
    [ws],
  );
  const events = await t.db.query<{ response_id: string; text: string | null }>(
    `SELECT response_id, coalesce(payload->>'comment', payload->>'reason', payload->>'note') AS text FROM feedback_events WHERE workspace_id = $1 AND duplicate_of IS NULL`,
    [ws],
  );
  const scores = await t.db.query<{ response_id: string; score: number | null; conflicts: unknown[] }>('SELECT response_id, score, conflicts FROM response_scores WHERE workspace_id = $1', [ws]);
  const byId = new Map<string, Truth>(
    responses.map((r) => [
      r.id,
      { id: r.id, createdAt: r.created_at.getTime(), agent: r.agent, model: r.model, experimentId: r.experiment_id, variant: r.variant, score: null, polarities: new Set(), categories: new Set(), comments: [], counted: 0, corrected: false, conflicting: false },
    ]),
  );
  for (const s of signals) {
    const r = byId.get(s.response_id);
    if (!r) continue;
    r.counted++;
    if (s.type === 'correction') r.corrected = true;
    if (s.polarity) r.polarities.add(s.polarity);
    for (const c of s.categories) r.categories.add(c);
  }
  for (const e of events) if (e.text !== null) byId.get(e.response_id)?.comments.push(e.text);
  for (const s of scores) {
    const r = byId.get(s.response_id);
    if (r) {
      r.score = s.score;
      r.conflicting = s.conflicts.length > 0;
    }
  }
  return [...byId.values()];
}

/** The filter, applied the slow, obvious way; newest first, ties by id descending. */
function bruteForce(truth: Truth[], f: ResponseListFilter): string[] {
  return truth
    .filter((r) => {
      if (f.agent !== undefined && r.agent !== f.agent) return false;
      if (f.model !== undefined && r.model !== f.model) return false;
      if (f.experimentId !== undefined && r.experimentId !== f.experimentId) return false;
      if (f.variant !== undefined && r.variant !== f.variant) return false;
      if (f.since !== undefined && r.createdAt < f.since.getTime()) return false;
      if (f.until !== undefined && r.createdAt >= f.until.getTime()) return false;
      if (f.minScore !== undefined && (r.score === null || r.score < f.minScore)) return false;
      if (f.maxScore !== undefined && (r.score === null || r.score > f.maxScore)) return false;
      if ((f.rating === 'positive' || f.rating === 'negative') && !r.polarities.has(f.rating)) return false;
      if (f.rating === 'unrated' && r.counted > 0) return false;
      if (f.category !== undefined && !r.categories.has(f.category)) return false;
      if (f.hasCorrection !== undefined && r.corrected !== f.hasCorrection) return false;
      if (f.conflicting !== undefined && r.conflicting !== f.conflicting) return false;
      if (f.comment !== undefined && !r.comments.some((c) => c.toLowerCase().includes(f.comment!.toLowerCase()))) return false;
      return true;
    })
    .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .map((r) => r.id);
}

/** Every page of the list, following the cursor. */
async function listAll(t: TestApp, f: ResponseListFilter, limit: number, options?: { commentProbeCap?: number; commentWalkFirst?: number; startProbeCap?: number }): Promise<string[]> {
  const ids: string[] = [];
  let after: { createdAt: Date; id: string } | undefined;
  for (let pages = 0; pages < 1_000; pages++) {
    const page = await listResponses(t.db, t.workspaceId, f, after, limit, options);
    ids.push(...page.data.map((r) => r.id));
    const last = page.data[page.data.length - 1];
    if (page.nextCursor === null || !last) break;
    after = { createdAt: new Date(last.createdAt), id: last.id };
  }
  return ids;
}

async function maintainedTags(t: TestApp): Promise<string[]> {
  const rows = await t.db.query<{ line: string }>(`SELECT response_id || ' ' || tag AS line FROM response_list_tags WHERE workspace_id = $1 ORDER BY 1`, [t.workspaceId]);
  return rows.map((r) => r.line);
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`response list filters vs brute force on ${backend.name}`, () => {
    let t: TestApp;
    let truth: Truth[];
    const archive = mkdtempSync(join(tmpdir(), 'feedloop-list-'));
    // Explicit feedback is accepted for 24 h after a response: the responses span the last 20 h.
    const base = Date.now() - 20 * 3_600_000;
    const slot = 12 * 60_000;
    const post = (url: string, payload: unknown) => t.app.inject({ method: 'POST', url, headers: t.auth, payload: payload as object });

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), {}, { worker: true });
      const rand = rng(19);
      const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
      // 160 responses; some share a creation time, so ties are broken by id across pages.
      const responses = Array.from({ length: 160 }, (_, i) => ({
        id: `r${String(i).padStart(3, '0')}`,
        query: `question ${i}`,
        answer: `answer ${i}`,
        agent: i % 40 === 7 ? 'rare-agent' : pick(AGENTS.slice(0, 3)),
        model: pick(['m-a', 'm-b']),
        ...(i % 3 === 0 ? { experimentId: 'exp', variant: pick(['control', 'concise']) } : {}),
        createdAt: new Date(base + Math.floor(i / 2) * slot).toISOString(),
      }));
      for (let i = 0; i < responses.length; i += 100) expect((await post('/v1/responses/batch', { responses: responses.slice(i, i + 100) })).statusCode).toBe(207);
      const events: object[] = [];
      let n = 0;
      for (const r of responses) {
        const kind = rand();
        if (kind < 0.25) continue; // unrated
        const votes = 1 + Math.floor(rand() * 3);
        for (let v = 0; v < votes; v++) {
          const user = `u${Math.floor(rand() * 12)}`;
          const k = rand();
          if (k < 0.35) events.push({ id: `e${n++}`, responseId: r.id, type: 'thumbs_up', userId: user });
          else if (k < 0.6) events.push({ id: `e${n++}`, responseId: r.id, type: 'thumbs_down', userId: user, payload: rand() < 0.3 ? { comment: pick(COMMENTS) } : {} });
          else if (k < 0.78) {
            // 'style_mismatch' is rare: a handful of responses.
            const category = rand() < 0.08 ? 'style_mismatch' : pick(CATEGORIES.slice(0, 3));
            events.push({ id: `e${n++}`, responseId: r.id, type: 'error_categories', userId: user, payload: { categories: [category] } });
          } else if (k < 0.9) events.push({ id: `e${n++}`, responseId: r.id, type: 'comment', userId: user, payload: { comment: pick(COMMENTS) } });
          else events.push({ id: `e${n++}`, responseId: r.id, type: 'correction', userId: user, payload: { corrected: `better ${r.id}` } });
        }
      }
      for (let i = 0; i < events.length; i += 100) {
        const sent = await post('/v1/feedback/batch', { events: events.slice(i, i + 100) });
        expect(sent.json().results.filter((x: { status: string }) => x.status === 'rejected')).toEqual([]);
      }
      await t.services.pipeline.idle(30_000);
      // Scores settle (the rescore may still have marks when the queue is idle), so the oracle and the list read the same.
      while ((await rescoreDirtyResponses(t.db)) > 0);
      truth = await readTruth(t);
    }, 120_000);
    afterAll(async () => {
      await t?.close();
      rmSync(archive, { recursive: true, force: true });
    });

    it('keeps the tags equal to what the counted signals derive', async () => {
      const derived = await derivedTags(t.db, t.workspaceId);
      expect(derived.length).toBeGreaterThan(160);
      expect(derived.some((l) => l.endsWith(' unrated'))).toBe(true);
      expect(derived.some((l) => l.endsWith(' category:style_mismatch'))).toBe(true);
      expect(await maintainedTags(t)).toEqual(derived);
    });

    it('gives every filter exactly the brute-force answer, in order, across pages', async () => {
      const mid = new Date(base + 40 * slot);
      const filters: ResponseListFilter[] = [
        {},
        { rating: 'positive' },
        { rating: 'negative' },
        { rating: 'unrated' },
        ...CATEGORIES.map((category) => ({ category })),
        { category: 'no_such_category' },
        { comment: 'refund' },
        { comment: 'REFUND POLICY' },
        { comment: '100%' },
        { comment: '_score' },
        { comment: 'ok' },
        { comment: 'a' },
        { comment: 'STRASSE' },
        { comment: 'straße' },
        { comment: 'nothing like this' },
        { agent: 'rare-agent' },
        { agent: 'rare-agent', rating: 'negative' },
        { agent: 'sql', rating: 'negative', category: 'hallucination' },
        { rating: 'unrated', agent: 'support' },
        { rating: 'unrated', category: 'hallucination' },
        { rating: 'positive', category: 'wrong_context', model: 'm-a' },
        { category: 'style_mismatch', comment: 'refund' },
        { rating: 'negative', since: mid },
        { category: 'missing_context', until: mid },
        { rating: 'unrated', since: new Date(base + 10 * slot), until: mid },
        { experimentId: 'exp', variant: 'concise', rating: 'positive' },
        { maxScore: -0.1, rating: 'negative' },
        { minScore: 0.1, category: 'hallucination' },
        { comment: 'fine', rating: 'positive', agent: 'search' },
        { hasCorrection: true },
        { hasCorrection: false },
        { hasCorrection: true, rating: 'negative' },
        { hasCorrection: false, agent: 'rare-agent' },
        { hasCorrection: true, comment: 'refund' },
        { conflicting: true },
        { conflicting: false },
        { conflicting: true, hasCorrection: true },
        { conflicting: true, agent: 'sql', since: mid },
        { conflicting: false, rating: 'positive' },
      ];
      for (const f of filters) {
        const expected = bruteForce(truth, f);
        expect(await listAll(t, f, 7), JSON.stringify(f)).toEqual(expected);
        // With a sizing cap of 1 every filter counts as common: the planner picks the start.
        expect(await listAll(t, f, 7, { startProbeCap: 1 }), `${JSON.stringify(f)} cap 1`).toEqual(expected);
      }
      // The filters this data must make non-trivial, or the comparison proves little.
      expect(bruteForce(truth, { rating: 'unrated' }).length).toBeGreaterThan(10);
      expect(bruteForce(truth, { category: 'style_mismatch' }).length).toBeGreaterThan(0);
      expect(bruteForce(truth, { comment: 'refund' }).length).toBeGreaterThan(3);
      expect(bruteForce(truth, { hasCorrection: true }).length).toBeGreaterThan(3);
      expect(bruteForce(truth, { conflicting: true }).length).toBeGreaterThan(1);
      expect(bruteForce(truth, { conflicting: false }).length).toBeGreaterThan(3);
    });

    it('answers a comment search the same whichever way it goes: first walk, piece index, or full walk', async () => {
      const ways = [
        { commentWalkFirst: 0 }, // the piece index alone (then the walk, for a search under three letters)
        { commentWalkFirst: 3 }, // a first walk too short for a page, then the index
        { commentWalkFirst: 25 }, // a page within the first walk for common searches, not for rare ones
        { commentWalkFirst: 0, commentProbeCap: 1 }, // every search with a match is "too common": the full walk
      ];
      for (const comment of ['refund', 'ok', 'a', 'e', '100%', 'fine answer', 'the', 'nothing like this']) {
        for (const options of ways) {
          const label = `${comment} ${JSON.stringify(options)}`;
          expect(await listAll(t, { comment }, 5, options), label).toEqual(bruteForce(truth, { comment }));
          expect(await listAll(t, { comment, rating: 'negative' }, 5, options), label).toEqual(bruteForce(truth, { comment, rating: 'negative' }));
        }
      }
    });

    it('keeps the tags right after an erasure and after retention deleted signals', async () => {
      // u3 voted on many responses: erasing them takes their signals off other users' responses.
      expect((await t.app.inject({ method: 'DELETE', url: '/v1/users/u3', headers: t.auth })).statusCode).toBe(200);
      expect(await maintainedTags(t)).toEqual(await derivedTags(t.db, t.workspaceId));
      const afterErasure = await readTruth(t);
      for (const f of [{ rating: 'unrated' }, { rating: 'negative' }, { category: 'style_mismatch' }] as ResponseListFilter[]) {
        expect(await listAll(t, f, 9), JSON.stringify(f)).toEqual(bruteForce(afterErasure, f));
      }
      // Retention a year on: every event (and signal) goes, and the responses, past retention with
      // no event left, go with them (issue 24): nothing is listed, no tag is left behind.
      const report = await runRetention(t.db, { archive, now: new Date(Date.now() + 400 * 86_400_000) });
      expect(report.archivedResponses).toBe(afterErasure.length);
      expect(await t.db.query(`SELECT 1 FROM feedback_signals WHERE workspace_id = $1`, [t.workspaceId])).toEqual([]);
      expect(await maintainedTags(t)).toEqual(await derivedTags(t.db, t.workspaceId));
      expect(await listAll(t, { rating: 'unrated' }, 50)).toEqual([]);
      expect(await listAll(t, {}, 50)).toEqual(bruteForce(await readTruth(t), {}));
    });
  });
}
