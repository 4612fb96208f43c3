/**
 * `GET /v1/exports/:format` and `GET /api/rag/feedback/export` on both stores: each format's rows
 * from real ingested feedback, checked against the format's published rules (OpenAI chat and
 * preference fine-tuning, TRL prompt-completion, preference and unpaired preference), plus
 * filters, dedup, workspace isolation, the validator's counts and the errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const SQL_QUERY = 'What were sales last month?';
const SQL_ANSWER = 'SELECT * FROM sales';
const SQL_FIX = "SELECT * FROM sales WHERE region = 'US'";

/** Parses a JSONL body, checking every line is one JSON object. */
function jsonl(body: string): Record<string, unknown>[] {
  if (body === '') return [];
  expect(body.endsWith('\n')).toBe(true);
  return body
    .slice(0, -1)
    .split('\n')
    .map((line) => {
      const row: unknown = JSON.parse(line);
      expect(typeof row === 'object' && row !== null && !Array.isArray(row)).toBe(true);
      // Rows carry their provenance (issue 22, checked in poisoning.test.ts); the rest is compared here.
      const { provenance: _provenance, ...rest } = row as Record<string, unknown>;
      return rest;
    });
}

/** OpenAI chat fine-tuning: messages of system/user/assistant with string content, weight 0|1 only on assistant. */
function expectOpenAiMessages(messages: unknown): void {
  expect(Array.isArray(messages)).toBe(true);
  for (const m of messages as Record<string, unknown>[]) {
    expect(['system', 'user', 'assistant']).toContain(m.role);
    expect(typeof m.content).toBe('string');
    expect((m.content as string).length).toBeGreaterThan(0);
    expect(Object.keys(m).every((k) => ['role', 'content', 'weight'].includes(k))).toBe(true);
    if ('weight' in m) {
      expect(m.role).toBe('assistant');
      expect([0, 1]).toContain(m.weight);
    }
  }
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`training-data exports on ${backend.name}`, () => {
    let t: TestApp;
    let other: { workspaceId: string; secretKey: string };
    const get = (url: string, auth = t.auth) => t.app.inject({ method: 'GET', url, headers: auth });
    const rows = async (url: string) => {
      const res = await get(url);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
      return jsonl(res.body);
    };

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), {}, { worker: true });
      other = await t.otherWorkspace();
      const post = (url: string, payload: object, auth = t.auth) => t.app.inject({ method: 'POST', url, headers: auth, payload });
      const responses = await post('/v1/responses/batch', {
        responses: [
          { id: 'x-sql', query: SQL_QUERY, answer: SQL_ANSWER, model: 'gpt-4o', agent: 'sql', variant: 'A', contextDocumentIds: ['schema:sales'], contextTokenCount: 4096 },
          { id: 'x-good', query: 'Top customers?', answer: 'Acme and Globex.', model: 'gpt-4o', agent: 'chat', variant: 'B' },
          { id: 'x-bad', query: '  top   CUSTOMERS? ', answer: 'I do not know.', model: 'small', agent: 'chat', variant: 'B' },
          { id: 'x-good2', query: 'TOP customers?', answer: 'Acme, Globex and Initech.', model: 'gpt-4o', agent: 'chat', variant: 'B' },
          { id: 'x-tie', query: 'Refund policy?', answer: 'Maybe.', agent: 'chat' },
          { id: 'x-both', query: 'Opening hours?', answer: '9 to 5.', agent: 'chat' },
          { id: 'x-nli', query: 'Did sales rise in May?', answer: 'Sales rose 4 % in May.', agent: 'research' },
          { id: 'x-old', query: 'Old question?', answer: 'Old answer.', agent: 'chat', createdAt: '2020-01-01T00:00:00Z' },
        ],
      });
      expect(responses.statusCode).toBe(207);
      const feedback = await post('/v1/feedback/batch', {
        events: [
          { responseId: 'x-sql', type: 'thumbs_down', userId: 'u1' },
          { responseId: 'x-sql', type: 'correction', userId: 'u1', payload: { corrected: SQL_FIX, format: 'sql' } },
          { responseId: 'x-good', type: 'thumbs_up', userId: 'u1' },
          { responseId: 'x-good', type: 'rating', userId: 'u2', payload: { rating: 5 } },
          { responseId: 'x-good2', type: 'thumbs_up', userId: 'u3' },
          { responseId: 'x-bad', type: 'thumbs_down', userId: 'u2' },
          { responseId: 'x-bad', type: 'error_categories', userId: 'u2', payload: { categories: ['hallucination'] } },
          { responseId: 'x-tie', type: 'rating', userId: 'u1', payload: { rating: 3 } },
          { responseId: 'x-both', type: 'thumbs_up', userId: 'u1' },
          { responseId: 'x-both', type: 'thumbs_down', userId: 'u2' },
          { responseId: 'x-nli', type: 'correct_label', userId: 'u1', targetId: 'edge-1', payload: { correct_relation: 'SUPPORTS', original_relation: 'REFUTES', confidence: 0.7 } },
          {
            responseId: 'x-nli',
            type: 'correct_label',
            userId: 'u2',
            targetId: 'edge-2',
            payload: { correct_relation: 'NEUTRAL' },
            metadata: { premise: 'The May report shows flat sales.', hypothesis: 'Sales rose in May.' },
          },
          { responseId: 'x-old', type: 'thumbs_up', userId: 'u1', occurredAt: '2020-01-01T01:00:00Z' },
        ],
      });
      expect(feedback.statusCode).toBe(207);
      expect((feedback.json() as { results: { status: string }[] }).results.filter((r) => r.status !== 'accepted')).toEqual([]);
      // The other workspace has an answer to the same question, corrected: it must never show here.
      const otherAuth = { authorization: `Bearer ${other.secretKey}` };
      await post('/v1/responses', { id: 'x-sql', query: SQL_QUERY, answer: 'SELECT 1', agent: 'sql' }, otherAuth);
      await post('/v1/feedback', { responseId: 'x-sql', type: 'correction', payload: { corrected: 'SELECT 2' } }, otherAuth);
      await t.services.pipeline.idle(10_000);
    });
    afterAll(async () => {
      await t.close();
    });

    it('trl-dpo: a correction is a pair of the query, the corrected text over the answer; a contrast pair joins answers to one normalized query', async () => {
      const dpo = await rows('/v1/exports/trl-dpo');
      for (const row of dpo) {
        expect(Object.keys(row).sort()).toEqual(['chosen', 'prompt', 'rejected']);
        for (const key of ['prompt', 'chosen', 'rejected']) expect(typeof row[key]).toBe('string');
        expect(row.chosen).not.toBe(row.rejected);
      }
      expect(dpo).toContainEqual({ prompt: SQL_QUERY, chosen: SQL_FIX, rejected: SQL_ANSWER });
      // Best positive (x-good: thumbs up and 5 stars, higher score) over the negative answer.
      const contrast = dpo.filter((r) => r.rejected === 'I do not know.');
      expect(contrast).toHaveLength(1);
      expect(contrast[0]?.chosen).toBe('Acme and Globex.');
      expect(dpo).toHaveLength(2);
    });

    it('openai-preference: input.messages ends with the user query, one assistant message on each side', async () => {
      const prefs = await rows('/v1/exports/openai-preference?system=You%20write%20SQL.');
      const sql = prefs.find((r) => (r.input as { messages: { content: string }[] }).messages.at(-1)?.content === SQL_QUERY);
      expect(sql).toEqual({
        input: { messages: [{ role: 'system', content: 'You write SQL.' }, { role: 'user', content: SQL_QUERY }] },
        preferred_output: [{ role: 'assistant', content: SQL_FIX }],
        non_preferred_output: [{ role: 'assistant', content: SQL_ANSWER }],
      });
      for (const row of prefs) {
        expect(Object.keys(row).sort()).toEqual(['input', 'non_preferred_output', 'preferred_output']);
        const messages = (row.input as { messages: { role: string }[] }).messages;
        expectOpenAiMessages(messages);
        expect(messages.at(-1)?.role).toBe('user');
        for (const side of ['preferred_output', 'non_preferred_output']) {
          const output = row[side] as { role: string; content: string }[];
          expect(output).toHaveLength(1);
          expect(output[0]?.role).toBe('assistant');
        }
      }
    });

    it('trl-kto: thumbs up and down give label true and false, ratings by the 4-5 / 1-2 threshold, 3 stars left out', async () => {
      const kto = await rows('/v1/exports/trl-kto?dedup=false');
      for (const row of kto) {
        expect(Object.keys(row).sort()).toEqual(['completion', 'label', 'prompt']);
        expect(typeof row.label).toBe('boolean');
      }
      const of = (answer: string) => kto.filter((r) => r.completion === answer).map((r) => r.label);
      expect(of('Acme and Globex.')).toEqual([true, true]);
      expect(of('I do not know.')).toEqual([false]);
      expect(of(SQL_ANSWER)).toEqual([false]);
      expect(of('Maybe.')).toEqual([]);
      expect(of('9 to 5.').sort()).toEqual([false, true]);
      // Deduplicated: one row per prompt, completion and label.
      const deduped = await rows('/v1/exports/trl-kto');
      expect(deduped.filter((r) => r.completion === 'Acme and Globex.')).toEqual([{ prompt: 'Top customers?', completion: 'Acme and Globex.', label: true }]);
    });

    it('openai-chat: corrected text is the target, then positive answers, one per normalized prompt; contradictory and tied answers left out', async () => {
      const chat = await rows('/v1/exports/openai-chat?system=Be%20brief.');
      for (const row of chat) {
        expect(Object.keys(row)).toEqual(['messages']);
        const messages = row.messages as { role: string; content: string; weight?: number }[];
        expectOpenAiMessages(messages);
        expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
        expect(messages[0]?.content).toBe('Be brief.');
        expect(messages[2]?.weight).toBe(1);
      }
      const targets = chat.map((r) => (r.messages as { content: string }[])[2]?.content);
      expect(targets).toContain(SQL_FIX);
      expect(targets).not.toContain(SQL_ANSWER);
      expect(targets).not.toContain('9 to 5.');
      expect(targets).not.toContain('Maybe.');
      // Two positive answers to "top customers?": one row deduplicated, both without dedup.
      const customers = (list: Record<string, unknown>[]) => list.filter((r) => /customers/i.test((r.messages as { role: string; content: string }[]).find((m) => m.role === 'user')?.content ?? ''));
      expect(customers(chat)).toHaveLength(1);
      expect(customers(await rows('/v1/exports/openai-chat'))).toHaveLength(1);
      expect(customers(await rows('/v1/exports/openai-chat?dedup=false'))).toHaveLength(2);
    });

    it('trl-sft: standard prompt/completion strings, or conversational messages', async () => {
      const standard = await rows('/v1/exports/trl-sft');
      expect(standard).toContainEqual({ prompt: SQL_QUERY, completion: SQL_FIX });
      for (const row of standard) expect(Object.keys(row).sort()).toEqual(['completion', 'prompt']);
      const conversational = await rows('/v1/exports/trl-sft?style=conversational');
      expect(conversational).toContainEqual({ messages: [{ role: 'user', content: SQL_QUERY }, { role: 'assistant', content: SQL_FIX }] });
    });

    it('learning-signals: the pipeline signal of each event, per response with the composite score, and reward pairs', async () => {
      const events = await rows('/v1/exports/learning-signals');
      const correction = events.find((s) => s.signal_type === 'sql_correction');
      expect(correction).toMatchObject({ input: SQL_QUERY, expected_output: SQL_FIX, actual_output: SQL_ANSWER });
      for (const s of events) expect(Object.keys(s)).toEqual(['signal_type', 'input', 'expected_output', 'actual_output', 'reward', 'context']);
      const perResponse = await rows('/v1/exports/learning-signals?kind=response');
      const good = perResponse.find((s) => (s.context as { response_id: string }).response_id === 'x-good');
      expect(good?.signal_type).toBe('response');
      expect(good?.reward).toBeGreaterThan(0);
      const pairs = await rows('/v1/exports/learning-signals?kind=pair');
      const contrast = pairs.find((p) => p.rejected === 'I do not know.');
      expect(contrast?.margin).toBeGreaterThan(0);
    });

    it('nli: correct_label actions with weight = confidence, 0.9 by default', async () => {
      const nli = await rows('/v1/exports/nli');
      expect(nli).toEqual(
        expect.arrayContaining([
          { premise: 'Sales rose 4 % in May.', hypothesis: 'Did sales rise in May?', label: 'SUPPORTS', weight: 0.7, original_label: 'REFUTES', target_id: 'edge-1' },
          { premise: 'The May report shows flat sales.', hypothesis: 'Sales rose in May.', label: 'NEUTRAL', weight: 0.9, original_label: null, target_id: 'edge-2' },
        ]),
      );
      expect(nli).toHaveLength(2);
      expect(await rows('/v1/exports/nli?minWeight=0.8')).toHaveLength(1);
    });

    it('anonymized: ADR-016 fields only, no ids and no free text', async () => {
      const anon = await rows('/v1/exports/anonymized');
      for (const row of anon) {
        expect(Object.keys(row).sort()).toEqual(['contextCategories', 'editDistance', 'errorCategories', 'qualityScores', 'rating', 'tokenBudgetUtilization']);
        expect(JSON.stringify(row)).not.toMatch(/x-|u1|u2|SELECT|Acme|customers/i);
      }
      expect(anon).toContainEqual({
        contextCategories: ['schema'],
        tokenBudgetUtilization: 0.5,
        rating: 'negative',
        errorCategories: [],
        qualityScores: null,
        editDistance: expect.any(Number),
      });
      expect(anon.filter((r) => r.rating === 'negative' && (r.errorCategories as string[]).includes('hallucination'))).toHaveLength(1);
    });

    it('filters by agent, model, variant, time range and composite score', async () => {
      const prompts = async (query: string) => (await rows(`/v1/exports/trl-kto?dedup=false&${query}`)).map((r) => r.prompt);
      expect(new Set(await prompts('agent=sql'))).toEqual(new Set([SQL_QUERY]));
      expect(new Set(await prompts('model=small'))).toEqual(new Set(['  top   CUSTOMERS? ']));
      expect(new Set(await prompts('variant=B'))).toEqual(new Set(['Top customers?', '  top   CUSTOMERS? ', 'TOP customers?']));
      expect(await prompts('to=2021-01-01T00:00:00Z')).toEqual(['Old question?']);
      expect(await prompts('from=2021-01-01T00:00:00Z')).not.toContain('Old question?');
      const scored = await prompts('minScore=0.5');
      expect(scored).toContain('Top customers?');
      expect(scored).not.toContain('  top   CUSTOMERS? ');
    });

    it('never shows another workspace', async () => {
      const dpo = await rows('/v1/exports/trl-dpo');
      expect(dpo.map((r) => r.chosen)).not.toContain('SELECT 2');
      const theirs = jsonl((await get('/v1/exports/trl-dpo', { authorization: `Bearer ${other.secretKey}` })).body);
      expect(theirs).toEqual([{ prompt: SQL_QUERY, chosen: 'SELECT 2', rejected: 'SELECT 1' }]);
    });

    it('validate=true reports rows, problems, tokens and what was left out', async () => {
      const res = await get('/v1/exports/openai-preference?validate=true');
      expect(res.statusCode).toBe(200);
      const report = res.json();
      expect(report).toMatchObject({ format: 'openai-preference', rows: 2, valid: 2, errors: {} });
      // x-tie (3 stars) is a tie; x-both (up and down) contradictory; x-good2 is a positive left without a negative.
      expect(report.excluded).toEqual({ tie: 1, contradictory: 1, duplicate: 0 });
      // The same by reason, and what the raw counters never said: judged answers with no opposite
      // answer to pair with (x-good2 among them), and no same-text pair here.
      expect(report.leftOut).toEqual({ neutralRating: 1, contradictory: 1, unpaired: expect.any(Number) });
      expect(report.leftOut.unpaired).toBeGreaterThanOrEqual(1);
      expect(report.deduplicated).toEqual({});
      expect(report.read.responses).toBeGreaterThan(0);
      expect(report.read.events).toBe(Object.values(report.read.eventsByType as Record<string, number>).reduce((a, b) => a + b, 0));
      expect(report.tokens.max).toBeGreaterThan(0);
      // With dedup, rows of one prompt beyond the first are counted as deduplicated, by reason;
      // without it they are rows: written + deduplicated is the same either way.
      const deduped = (await get('/v1/exports/trl-kto?validate=true')).json();
      const all = (await get('/v1/exports/trl-kto?validate=true&dedup=false')).json();
      expect(deduped.deduplicated.sameAnswerAndLabel).toBeGreaterThan(0);
      expect(deduped.rows + deduped.deduplicated.sameAnswerAndLabel).toBe(all.rows);
      expect(all.deduplicated).toEqual({});
      const tight = (await get('/v1/exports/openai-chat?validate=true&maxTokens=5')).json();
      expect(tight.errors.too_long).toBe(tight.rows);
      expect(tight.valid).toBe(0);
    });

    it('answers an unknown format with 404 naming format, and a bad filter with 400 naming it', async () => {
      const unknown = await get('/v1/exports/csv');
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_EXPORT_UNKNOWN_FORMAT', field: 'format' });
      for (const [query, field] of [
        ['minScore=2', 'minScore'],
        ['minWeight=-1', 'minWeight'],
        ['from=yesterday', 'from'],
        ['style=chat', 'style'],
        ['from=2024-02-01T00:00:00Z&to=2024-01-01T00:00:00Z', 'to'],
      ] as const) {
        const res = await get(`/v1/exports/trl-dpo?${query}`);
        expect(res.statusCode, query).toBe(400);
        expect(res.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field });
      }
      expect((await t.app.inject({ method: 'GET', url: '/v1/exports/trl-dpo' })).statusCode).toBe(401);
      const nul = await get('/v1/exports/trl-dpo?agent=a%00b');
      expect(nul.statusCode).toBe(400);
      expect(nul.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_UNSTORABLE', field: 'agent' });
      expect((await get('/v1/exports/trl-dpo', { authorization: `Bearer ${t.publicKey}` })).statusCode).toBe(403);
    });

    it('GET /api/rag/feedback/export serves Phase 4.1 TrainingExamples with contrast pairs, as JSON or JSONL', async () => {
      const res = await get('/api/rag/feedback/export?format=json');
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const examples = res.json() as Record<string, unknown>[];
      for (const e of examples) {
        expect(typeof e.query).toBe('string');
        expect(typeof e.positiveAnswer).toBe('string');
        expect(Array.isArray(e.context)).toBe(true);
        expect(typeof e.rating).toBe('number');
      }
      const customers = examples.filter((e) => /customers/i.test(e.query as string));
      expect(customers.find((e) => e.positiveAnswer === 'Acme and Globex.')?.negativeAnswer).toBe('I do not know.');
      expect(customers).toHaveLength(2);
      expect(examples.some((e) => e.positiveAnswer === '9 to 5.')).toBe(false);
      const lines = jsonl((await get('/api/rag/feedback/export?format=jsonl')).body);
      expect(lines).toEqual(examples);
      expect((await get('/api/rag/feedback/export?format=csv')).json().error.field).toBe('format');
    });
  });
}
