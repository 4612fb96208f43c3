/**
 * GET /v1/insights over both stores: corrections, comments, ratings and escalations submitted
 * through the API, processed by the worker and rolled up; the report's patterns, rankings,
 * minimum-sample rule, themes against the previous period, the events it names, its input
 * validation and workspace isolation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollupDirtyDays } from '../src/pipeline/rollup.js';
import { INSIGHT_EVENTS_SQL, readInsightEvents } from '../src/store/insights-queries.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const DAY_MS = 86_400_000;
const day = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);

interface Group {
  agent: string;
  model: string;
  queryType: string;
  responses: number;
  positive: number;
  escalated: number;
  answer: string;
}

/** Ratings and escalations per group: one response, session and vote each. */
const GROUPS: Record<string, Group> = {
  a: { agent: 'sql-agent', model: 'm-bad', queryType: 'billing', responses: 40, positive: 10, escalated: 20, answer: 'SELECT * FROM invoices' },
  b: { agent: 'chat-agent', model: 'm-good', queryType: 'reports', responses: 50, positive: 40, escalated: 2, answer: 'Revenue grew by 12 % in Q3.' },
  c: { agent: 'tiny-agent', model: 'm-tiny', queryType: 'rare', responses: 10, positive: 0, escalated: 10, answer: 'I think it might be 3.' },
};

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`GET /v1/insights on ${backend.name}`, () => {
    let t: TestApp;
    let other: { workspaceId: string; secretKey: string };
    const ids = { negatives: new Map<string, string[]>(), escalations: new Map<string, string[]>() };
    const get = (url: string, key?: string) =>
      t.app.inject({ method: 'GET', url, headers: key ? { authorization: `Bearer ${key}` } : t.auth });
    const post = (url: string, payload: unknown, key?: string) =>
      t.app.inject({ method: 'POST', url, headers: key ? { authorization: `Bearer ${key}` } : t.auth, payload: payload as object });

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), {}, { worker: true });
      other = await t.otherWorkspace();
      // Feedback on responses of four days ago (the previous period) needs a wider window.
      await t.db.query(`UPDATE workspaces SET settings = settings || '{"feedbackWindowHours": 720}' WHERE id = ANY($1::text[])`, [[t.workspaceId, other.workspaceId]]);
      t.services.keys.clear();

      const responses: object[] = [];
      const events: object[] = [];
      for (const [g, group] of Object.entries(GROUPS)) {
        ids.negatives.set(group.agent, []);
        ids.escalations.set(group.queryType, []);
        for (let i = 0; i < group.responses; i++) {
          const id = `${g}-r${i}`;
          responses.push({ id, query: `question ${i}`, answer: group.answer, agent: group.agent, model: group.model, queryType: group.queryType, sessionId: `${g}-s${i}` });
          const up = i < group.positive;
          events.push({ id: `${g}-v${i}`, responseId: id, type: up ? 'thumbs_up' : 'thumbs_down', userId: `${g}-u${i}` });
          if (!up) ids.negatives.get(group.agent)?.push(`${g}-v${i}`);
          if (i >= group.responses - group.escalated) {
            events.push({ id: `${g}-x${i}`, responseId: id, type: 'escalation', userId: `${g}-u${i}` });
            ids.escalations.get(group.queryType)?.push(`${g}-x${i}`);
          }
        }
      }
      // SQL corrections on group a's answers: 6 add a filter (3 say format sql, 3 are detected),
      // 3 change the limit; 2 are not SQL the parser reads.
      for (let i = 0; i < 6; i++) {
        events.push({ id: `sqlfix-${i}`, responseId: `a-r${i}`, type: 'correction', userId: `fixer`, payload: { corrected: `SELECT * FROM invoices WHERE customer_id = ${i}`, ...(i < 3 ? { format: 'sql' } : {}) } });
      }
      for (let i = 6; i < 9; i++) {
        events.push({ id: `sqllimit-${i}`, responseId: `a-r${i}`, type: 'correction', userId: 'fixer', payload: { original: 'SELECT id FROM invoices LIMIT 10', corrected: 'SELECT id FROM invoices LIMIT 100' } });
      }
      for (let i = 9; i < 11; i++) {
        events.push({ id: `sqlbad-${i}`, responseId: `a-r${i}`, type: 'correction', userId: 'fixer', payload: { original: 'SELEC * FORM invoices', corrected: 'SELECT * FROM invoices', format: 'sql' } });
      }
      // Text corrections on group b's answers: 4 fix the number.
      for (let i = 0; i < 4; i++) {
        events.push({ id: `numfix-${i}`, responseId: `b-r${i}`, type: 'correction', userId: 'fixer', payload: { corrected: 'Revenue grew by 9 % in Q3.' } });
      }
      // Comments of the range: a new theme (wrong join) and an old one (slow).
      const comments = ['Wrong join again', 'the wrong join, customers are duplicated', 'wrong join on invoices', 'wrong join!', 'too slow', 'slow answer', 'slow today'];
      comments.forEach((comment, i) => events.push({ id: `cm-${i}`, responseId: `a-r${i}`, type: 'comment', userId: `commenter-${i}`, payload: { comment } }));
      expect((await post('/v1/responses/batch', { responses })).statusCode).toBe(207);
      const sent = await post('/v1/feedback/batch', { events });
      expect(sent.json().results.filter((r: { status: string }) => r.status !== 'accepted')).toEqual([]);

      // The previous period (3 days before the range asked below): "slow" was common already.
      const fourDaysAgo = new Date(Date.now() - 4 * DAY_MS);
      await post('/v1/responses', { id: 'old-r', query: 'q', answer: 'a', createdAt: new Date(fourDaysAgo.getTime() - 60_000).toISOString() });
      const old = ['too slow', 'slow again', 'so slow', 'slow page', 'slow', 'fine', 'ok'].map((comment, i) => ({
        id: `old-cm-${i}`, responseId: 'old-r', type: 'comment', userId: `old-${i}`, occurredAt: fourDaysAgo.toISOString(), payload: { comment },
      }));
      expect((await post('/v1/feedback/batch', { events: old })).statusCode).toBe(207);

      // Another workspace with the same names and its own texts.
      await post('/v1/responses', { id: 'a-r0', query: 'q', answer: 'SELECT * FROM secrets', agent: 'sql-agent', queryType: 'billing' }, other.secretKey);
      await post('/v1/feedback', { id: 'other-fix', responseId: 'a-r0', type: 'correction', payload: { corrected: 'SELECT * FROM secrets ORDER BY id' } }, other.secretKey);
      for (let i = 0; i < 4; i++) {
        await post('/v1/feedback', { id: `other-cm-${i}`, responseId: 'a-r0', type: 'comment', userId: `o${i}`, payload: { comment: 'confidential leak' } }, other.secretKey);
      }

      await t.services.pipeline.idle(20_000);
      for (const workspaceId of [t.workspaceId, other.workspaceId]) await rollupDirtyDays(t.db, { workspaceId });
    }, 60_000);
    afterAll(async () => {
      await t.close();
    });

    it('names the most common correction patterns, SQL by clause and text by kind, with their events', async () => {
      const res = await get(`/v1/insights?from=${day(-2)}&to=${day(0)}`);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ workspaceId: t.workspaceId, from: day(-2), to: day(0), previousPeriod: { from: day(-5), to: day(-3) } });
      const { corrections, sampled, patterns } = body.correctionPatterns;
      expect(corrections).toBe(15);
      expect(sampled).toBe(false);
      expect(patterns[0]).toMatchObject({ format: 'sql', kind: 'filter_added', parsed: true, count: 6, tables: [{ table: 'invoices', count: 6 }] });
      expect(patterns[0].share).toBeCloseTo((100 * 6) / 11, 3);
      expect([...patterns[0].events.sample].sort()).toEqual(['sqlfix-0', 'sqlfix-1', 'sqlfix-2', 'sqlfix-3', 'sqlfix-4', 'sqlfix-5']);
      const find = (format: string, kind: string) => patterns.find((p: { format: string; kind: string }) => p.format === format && p.kind === kind);
      expect(find('text', 'number_changed')).toMatchObject({ count: 4, share: 100, events: { count: 4 } });
      expect(find('sql', 'limit_changed')).toMatchObject({ count: 3, parsed: true });
      expect(find('sql', 'limit_changed').events.sample.sort()).toEqual(['sqllimit-6', 'sqllimit-7', 'sqllimit-8']);
      // Unparseable SQL is counted under a text kind, marked as not parsed.
      const unparsed = patterns.filter((p: { format: string; parsed: boolean }) => p.format === 'sql' && !p.parsed);
      expect(unparsed.reduce((n: number, p: { count: number }) => n + p.count, 0)).toBe(2);
    });

    it('stores each counted correction\'s classification when processing it, and the report reads the stored one', async () => {
      const stored = await t.db.query<{ event_id: string; correction: unknown }>(
        `SELECT event_id, correction FROM feedback_signals WHERE workspace_id = $1 AND type = 'correction' ORDER BY event_id`,
        [t.workspaceId],
      );
      expect(stored).toHaveLength(15);
      const of = (id: string) => stored.find((r) => r.event_id === id)?.correction;
      expect(of('sqlfix-0')).toEqual({ v: 1, format: 'sql', parsed: true, kinds: ['filter_added'], tables: ['invoices'] });
      expect(of('sqllimit-6')).toEqual({ v: 1, format: 'sql', parsed: true, kinds: ['limit_changed'], tables: ['invoices'] });
      expect(of('sqlbad-9')).toMatchObject({ v: 1, format: 'sql', parsed: false });
      expect(of('numfix-0')).toMatchObject({ v: 1, format: 'text', kinds: expect.arrayContaining(['number_changed']) });
      // A stored classification is what the report counts: change one, and the report says so.
      await t.db.query(`UPDATE feedback_signals SET correction = $3::jsonb WHERE workspace_id = $1 AND event_id = $2`, [
        t.workspaceId, 'numfix-0', JSON.stringify({ v: 1, format: 'text', parsed: false, kinds: ['emoji_added'], tables: [] }),
      ]);
      try {
        const { patterns } = (await get(`/v1/insights?from=${day(-2)}&to=${day(0)}`)).json().correctionPatterns;
        expect(patterns.find((p: { kind: string }) => p.kind === 'emoji_added')).toMatchObject({ count: 1, events: { sample: ['numfix-0'] } });
      } finally {
        await t.db.query(`UPDATE feedback_signals SET correction = $3::jsonb WHERE workspace_id = $1 AND event_id = $2`, [t.workspaceId, 'numfix-0', JSON.stringify(of('numfix-0'))]);
      }
    });

    it('classifies the corrections without a stored classification of this version itself, to the same report', async () => {
      const url = `/v1/insights?from=${day(-2)}&to=${day(0)}`;
      const withStored = (await get(url)).json().correctionPatterns;
      const saved = await t.db.query<{ event_id: string; correction: unknown }>(
        `SELECT event_id, correction FROM feedback_signals WHERE workspace_id = $1 AND type = 'correction'`,
        [t.workspaceId],
      );
      try {
        // Processed before migration 0021: no classification.
        await t.db.query(`UPDATE feedback_signals SET correction = NULL WHERE workspace_id = $1 AND type = 'correction'`, [t.workspaceId]);
        const events = (await readInsightEvents(t.db, t.workspaceId, new Date(`${day(-2)}T00:00:00Z`), new Date(`${day(1)}T00:00:00Z`))).events;
        expect(events.filter((e) => e.type === 'correction').every((e) => e.correction === null && e.corrected !== null)).toBe(true);
        expect((await get(url)).json().correctionPatterns).toEqual(withStored);
        // Classified by another version of the classifier: not read, classified again.
        await t.db.query(
          `UPDATE feedback_signals SET correction = '{"v": 0, "format": "text", "parsed": false, "kinds": ["emoji_added"], "tables": []}' WHERE workspace_id = $1 AND type = 'correction'`,
          [t.workspaceId],
        );
        expect((await get(url)).json().correctionPatterns).toEqual(withStored);
      } finally {
        for (const row of saved) {
          await t.db.query(`UPDATE feedback_signals SET correction = $3::jsonb WHERE workspace_id = $1 AND event_id = $2`, [t.workspaceId, row.event_id, JSON.stringify(row.correction)]);
        }
      }
      // Stored again: read, not classified (the texts are not read).
      const events = (await readInsightEvents(t.db, t.workspaceId, new Date(`${day(-2)}T00:00:00Z`), new Date(`${day(1)}T00:00:00Z`))).events;
      expect(events.filter((e) => e.type === 'correction').every((e) => e.correction !== null && e.original === null && e.corrected === null)).toBe(true);
    });

    it('ranks agents and models by satisfaction with Wilson intervals, only above the minimum sample', async () => {
      const body = (await get(`/v1/insights?from=${day(-2)}&to=${day(0)}`)).json();
      const { agents, models } = body.lowestSatisfaction;
      expect(agents.minSample).toBe(30);
      expect(agents.ranked.map((a: { name: string }) => a.name)).toEqual(['sql-agent', 'chat-agent']);
      expect(models.ranked.map((m: { name: string }) => m.name)).toEqual(['m-bad', 'm-good']);
      expect(agents.belowMinimumSample).toEqual(['tiny-agent']);
      expect(models.belowMinimumSample).toEqual(['m-tiny']);
      const worst = agents.ranked[0];
      expect(worst).toMatchObject({ positive: 10, negative: 30, rated: 40 });
      expect(worst.satisfaction.rate).toBeCloseTo(25, 6);
      // Wilson 95 % for 10 of 40: [14.19, 40.19] (percent).
      expect(worst.satisfaction.lower).toBeCloseTo(14.19, 2);
      expect(worst.satisfaction.upper).toBeCloseTo(40.19, 2);
      // The events behind it: its thumbs down, counted by the rollup, sampled from the read.
      expect(worst.events.count).toBe(30);
      expect(worst.events.sample).toHaveLength(10);
      for (const id of worst.events.sample) expect(ids.negatives.get('sql-agent')).toContain(id);
    });

    it('ranks query types by escalation rate from the rollup, with the escalations named', async () => {
      const { queryTypes } = (await get(`/v1/insights?from=${day(-2)}&to=${day(0)}`)).json().highestEscalation;
      expect(queryTypes.ranked.map((q: { name: string }) => q.name)).toEqual(['billing', 'reports']);
      expect(queryTypes.belowMinimumSample).toEqual(['rare']);
      expect(queryTypes.ranked[0]).toMatchObject({ sessions: 40, escalated: 20 });
      expect(queryTypes.ranked[0].escalation.rate).toBeCloseTo(50, 6);
      expect(queryTypes.ranked[0].events.count).toBe(20);
      for (const id of queryTypes.ranked[0].events.sample) expect(ids.escalations.get('billing')).toContain(id);
    });

    it('finds rising comment themes against the previous period', async () => {
      const { risingThemes } = (await get(`/v1/insights?from=${day(-2)}&to=${day(0)}`)).json();
      expect(risingThemes.comments).toBe(7);
      expect(risingThemes.previousComments).toBe(7);
      const top = risingThemes.themes[0];
      // A phrase, with the distinct users who said it and a significant rise.
      expect(top).toMatchObject({ phrase: 'wrong join', current: 4, previous: 0, users: 4, rose: true });
      expect([...top.events.sample].sort()).toEqual(['cm-0', 'cm-1', 'cm-2', 'cm-3']);
      expect(risingThemes.themes.some((th: { phrase: string }) => th.phrase === 'slow')).toBe(false);
      // Never a word torn out of its phrase ("join" alone), never praise among complaints.
      const phrases = risingThemes.themes.flatMap((th: { variants: string[] }) => th.variants);
      expect(phrases).not.toContain('join');
      expect(risingThemes.praise).toEqual([]);
    });

    it('keeps workspaces apart', async () => {
      const mine = JSON.stringify((await get(`/v1/insights?from=${day(-2)}&to=${day(0)}`)).json());
      expect(mine).not.toContain('other-');
      expect(mine).not.toContain('confidential');
      const theirs = (await get(`/v1/insights?from=${day(-2)}&to=${day(0)}`, other.secretKey)).json();
      expect(theirs.workspaceId).toBe(other.workspaceId);
      expect(theirs.correctionPatterns.corrections).toBe(1);
      expect(theirs.correctionPatterns.patterns[0]).toMatchObject({ kind: 'order_by_changed', events: { sample: ['other-fix'] }, tables: [{ table: 'secrets' }] });
      expect(theirs.risingThemes.themes[0].events.sample.every((id: string) => id.startsWith('other-cm-'))).toBe(true);
      expect(theirs.lowestSatisfaction.agents.ranked).toEqual([]);
    });

    it('defaults to the last 30 days and leaves a range without data empty', async () => {
      const body = (await get('/v1/insights')).json();
      expect(body).toMatchObject({ from: day(-29), to: day(0), previousPeriod: { from: day(-59), to: day(-30) } });
      expect(body.correctionPatterns.corrections).toBe(15);
      const empty = (await get('/v1/insights?from=2020-01-01&to=2020-01-31')).json();
      expect(empty.correctionPatterns).toEqual({ corrections: 0, sampled: false, patterns: [], bySchemaTable: [], byAgent: [], byQueryType: [] });
      expect(empty.lowestSatisfaction.agents).toEqual({ ranked: [], belowMinimumSample: [], minSample: 30 });
      expect(empty.risingThemes.themes).toEqual([]);
    });

    it.each([
      ['from=2026-13-01', 'from'],
      ['to=2026-02-30', 'to'],
      ['from=yesterday', 'from'],
      ['to=r', 'to'],
      ['from=0001-01-01', 'from'],
      ['to=9999-12-31', 'to'],
      ['from=2026-01-01&to=%3Aud', 'to'],
      [`from=${day(0)}&to=${day(-1)}`, 'from'],
      ['from=2020-01-01&to=2022-01-01', 'from'],
      ['groupBy=agent', 'groupBy'],
    ])('answers %s with a 400 naming %s', async (qs, field) => {
      const res = await get(`/v1/insights?${qs}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field });
    });

    it('reads a bounded number of events, newest first, and says when it sampled', async () => {
      const from = new Date(`${day(-2)}T00:00:00Z`);
      const to = new Date(`${day(1)}T00:00:00Z`);
      const some = await readInsightEvents(t.db, t.workspaceId, from, to, { limit: 5 });
      expect(some.sampled).toBe(true);
      expect(some.events).toHaveLength(5);
      const all = await readInsightEvents(t.db, t.workspaceId, from, to);
      expect(all.sampled).toBe(false);
      // Texts and verdicts only: the 100 votes less the 50 plain thumbs up, escalations, corrections, comments.
      expect(all.events).toHaveLength(50 + 32 + 15 + 7);
      const comments = await readInsightEvents(t.db, t.workspaceId, from, to, { commentsOnly: true });
      expect(comments.events.every((e) => e.comment !== null)).toBe(true);
      expect(comments.events).toHaveLength(7);
    });

    it('reads through the partial index of migration 0009 (its predicate matches the query), probing responses and signal rows', async () => {
      const plan = await t.db.transaction(async (tx) => {
        // The tables are tiny, so the planner would rather scan them: forbid that, and the index
        // must be usable, which it is only if the query implies its predicate.
        await tx.query('SET LOCAL enable_seqscan = off');
        const params = [t.workspaceId, `${day(-2)}T00:00:00Z`, `${day(1)}T00:00:00Z`, 10, false, 100, 100, 1];
        return tx.query<Record<string, string>>(`EXPLAIN ${INSIGHT_EVENTS_SQL}`, params);
      });
      const text = plan.map((row) => Object.values(row).join('')).join('\n');
      expect(text).toMatch(/Index Scan Backward using feedback_events_\w+_workspace_id_occurred_at_idx/);
      expect(text).not.toMatch(/workspace_id_seq_idx/);
      // Each event's response and signal row are probes (LATERAL), never a join over the
      // workspace's: even with nested loops discouraged, the planner cannot hash or merge them.
      const probes = await t.db.transaction(async (tx) => {
        await tx.query('SET LOCAL enable_nestloop = off');
        const params = [t.workspaceId, `${day(-2)}T00:00:00Z`, `${day(1)}T00:00:00Z`, 10, false, 100, 100, 1];
        return tx.query<Record<string, string>>(`EXPLAIN ${INSIGHT_EVENTS_SQL}`, params);
      });
      const probeText = probes.map((row) => Object.values(row).join('')).join('\n');
      expect(probeText).toMatch(/Index Scan using feedback_signals_pkey/);
      expect(probeText).not.toMatch(/Hash|Merge Join/);
    });
  });
}
