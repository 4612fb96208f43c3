/**
 * The training-data builders and the validator, checked against the formats' published rules and
 * examples:
 * - OpenAI chat fine-tuning and the cookbook "Data preparation and analysis for chat model
 *   fine-tuning" (roles system/user/assistant, content, an assistant message, `weight` 0/1 only on
 *   assistant messages, 16,385 tokens an example);
 * - OpenAI preference fine-tuning (DPO): `input.messages`, one assistant message in each of
 *   `preferred_output` and `non_preferred_output`;
 * - Hugging Face TRL "Dataset formats and types": prompt-completion, preference and unpaired
 *   preference, standard and conversational (the examples below are the guide's own).
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_EXPORT_OPTIONS,
  anonymizedFeedback,
  buildRows,
  checkRow,
  emptyReport,
  emptyTally,
  estimateTokens,
  exclusionReasons,
  eventVerdict,
  ktoRows,
  nliSamples,
  openaiChatRow,
  openaiPreferenceRow,
  preferencePairs,
  responseVerdict,
  rowIssues,
  sftExamples,
  TRAINING_BATCH_FORMATS,
  trainingBatchRows,
  trainingExamples,
  trlDpoRow,
  trlSftRow,
  type ExportEvent,
  type ExportFormat,
  type ExportResponse,
  type PromptGroup,
  type ResponseRecord,
} from '../src/index.js';

let clock = Date.parse('2026-01-01T00:00:00Z');
function response(id: string, query: string, answer: string, extra: Partial<ExportResponse> = {}): ExportResponse {
  return {
    id,
    query,
    answer,
    contextDocumentIds: [],
    contextTokenCount: null,
    model: null,
    agent: null,
    queryType: null,
    experimentId: null,
    variant: null,
    metadata: {},
    createdAt: new Date(clock),
    score: null,
    ...extra,
  };
}
function event(type: string, payload: Record<string, unknown> = {}, extra: Partial<ExportEvent> = {}): ExportEvent {
  clock += 1_000;
  return { id: `e${clock}`, type, payload, userId: 'u1', targetId: null, metadata: null, editDistance: null, occurredAt: new Date(clock), weight: 1, learningSignal: null, ...extra };
}
const record = (r: ExportResponse, ...events: ExportEvent[]): ResponseRecord => ({ response: r, events });
const group = (...responses: ResponseRecord[]): PromptGroup => ({ key: 'k', responses });
const options = DEFAULT_EXPORT_OPTIONS;
const noIssues = (format: ExportFormat, row: unknown, o = options) => expect(rowIssues(format, row, o)).toEqual([]);

const SQL = record(
  response('r-sql', 'What were sales last month?', 'SELECT * FROM sales', { score: -0.5 }),
  event('thumbs_down'),
  event('correction', { corrected: "SELECT * FROM sales WHERE region = 'US'" }),
);
const GOOD = record(response('r-good', 'Top customers?', 'Acme and Globex.', { score: 0.9 }), event('thumbs_up'), event('rating', { rating: 5 }));
const GOOD2 = record(response('r-good2', 'top customers?', 'Acme.', { score: 0.4 }), event('thumbs_up'));
const BAD = record(response('r-bad', 'top  customers? ', 'No idea.', { score: -0.8 }), event('thumbs_down'));
const TIE = record(response('r-tie', 'top customers?', 'Maybe Acme.'), event('rating', { rating: 3 }));
const BOTH = record(response('r-both', 'top customers?', 'Globex.'), event('thumbs_up'), event('thumbs_down', {}, { userId: 'u2' }));

describe('verdicts', () => {
  it('read thumbs, ratings by 4-5 / 1-2 with 3 a tie, reviews and corrections', () => {
    expect(['thumbs_up', 'thumbs_down', 'correction', 'comment'].map((type) => eventVerdict({ type, payload: {} }))).toEqual(['positive', 'negative', 'negative', 'none']);
    expect([1, 2, 3, 4, 5].map((rating) => eventVerdict({ type: 'rating', payload: { rating } }))).toEqual(['negative', 'negative', 'tie', 'positive', 'positive']);
    expect(['approved', 'changes_requested', 'rejected'].map((verdict) => eventVerdict({ type: 'review', payload: { verdict } }))).toEqual(['positive', 'negative', 'negative']);
  });

  it('call a response voted both ways contradictory', () => {
    expect(responseVerdict(BOTH.events)).toBe('contradictory');
    expect(responseVerdict(TIE.events)).toBe('tie');
    expect(responseVerdict([])).toBe('none');
  });
});

describe('SFT', () => {
  it('targets the newest correction, then positive answers by score; leaves out contradictory and tied answers, counted', () => {
    const tally = emptyTally();
    const examples = sftExamples(group(GOOD2, SQL, GOOD, TIE, BOTH, BAD), tally.excluded);
    expect(examples.map((e) => e.target)).toEqual(["SELECT * FROM sales WHERE region = 'US'", 'Acme and Globex.', 'Acme.']);
    expect(tally.excluded).toEqual({ tie: 1, contradictory: 1, duplicate: 0 });
  });

  it('writes OpenAI chat rows: system, user, assistant with weight 1', () => {
    const row = openaiChatRow({ prompt: 'Hi?', target: 'Hello.' }, 'Be brief.');
    expect(row).toEqual({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi?' }, { role: 'assistant', content: 'Hello.', weight: 1 }] });
    noIssues('openai-chat', row);
    expect(openaiChatRow({ prompt: 'Hi?', target: 'Hello.' }, undefined).messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('writes TRL prompt-completion and conversational rows', () => {
    expect(trlSftRow({ prompt: 'The sky is', target: ' blue.' }, 'standard', undefined)).toEqual({ prompt: 'The sky is', completion: ' blue.' });
    const conversational = trlSftRow({ prompt: 'What color is the sky?', target: 'It is blue.' }, 'conversational', undefined);
    expect(conversational).toEqual({ messages: [{ role: 'user', content: 'What color is the sky?' }, { role: 'assistant', content: 'It is blue.' }] });
    noIssues('trl-sft', conversational, { ...options, style: 'conversational' });
  });
});

describe('preference pairs', () => {
  it('make a correction a pair of the query, the corrected text over the answer', () => {
    const [pair] = preferencePairs(group(SQL), emptyTally().excluded);
    expect(pair && trlDpoRow(pair)).toEqual({ prompt: 'What were sales last month?', chosen: "SELECT * FROM sales WHERE region = 'US'", rejected: 'SELECT * FROM sales' });
    expect(pair && openaiPreferenceRow(pair, undefined)).toEqual({
      input: { messages: [{ role: 'user', content: 'What were sales last month?' }] },
      preferred_output: [{ role: 'assistant', content: "SELECT * FROM sales WHERE region = 'US'" }],
      non_preferred_output: [{ role: 'assistant', content: 'SELECT * FROM sales' }],
    });
  });

  it('contrast the best positive answer with the worst negative one, excluding ties and contradictions', () => {
    const tally = emptyTally();
    const pairs = preferencePairs(group(GOOD2, BAD, GOOD, TIE, BOTH), tally.excluded);
    expect(pairs.map((p) => [p.chosen, p.rejected, p.source])).toEqual([['Acme and Globex.', 'No idea.', 'contrast']]);
    // GOOD2, the second positive answer, has no negative answer left to pair with.
    expect(tally.excluded).toEqual({ tie: 1, contradictory: 1, duplicate: 0, unpaired: 1 });
    expect(exclusionReasons('trl-dpo', DEFAULT_EXPORT_OPTIONS, tally.excluded)).toEqual({ deduplicated: {}, leftOut: { neutralRating: 1, contradictory: 1, unpaired: 1 } });
  });

  it('pair reviewed answers first, as review pairs', () => {
    const approved = record(response('r-a', 'q', 'reviewed good', { score: 0.1 }), event('review', { verdict: 'approved', issues: [] }));
    const rejected = record(response('r-r', 'q', 'reviewed bad', { score: 0 }), event('review', { verdict: 'rejected', issues: [] }));
    const voted = record(response('r-v', 'q', 'voted bad', { score: -1 }), event('thumbs_down'));
    const pairs = preferencePairs(group(voted, rejected, approved, GOOD), emptyTally().excluded);
    expect(pairs[0]).toMatchObject({ chosen: 'reviewed good', rejected: 'reviewed bad', source: 'review' });
  });

  it('count a correction that changes nothing as a tie', () => {
    const tally = emptyTally();
    const same = record(response('r-s', 'q', 'answer'), event('correction', { corrected: ' answer ' }));
    expect(preferencePairs(group(same), tally.excluded)).toEqual([]);
    expect(tally.excluded.tie).toBe(1);
    // Named apart from 3-star ties by the report's reasons (the corrected answer, judged negative,
    // also has no positive answer to pair with).
    expect(tally.excluded.sameText).toBe(1);
    expect(exclusionReasons('trl-dpo', DEFAULT_EXPORT_OPTIONS, tally.excluded).leftOut).toEqual({ sameText: 1, unpaired: 1 });
  });
});

describe('KTO', () => {
  it('labels thumbs up true, thumbs down false, ratings by the threshold, skipping 3 stars', () => {
    const tally = emptyTally();
    const rows = ktoRows(group(GOOD, BAD, TIE), tally.excluded);
    expect(rows).toEqual([
      { prompt: 'Top customers?', completion: 'Acme and Globex.', label: true },
      { prompt: 'Top customers?', completion: 'Acme and Globex.', label: true },
      { prompt: 'top  customers? ', completion: 'No idea.', label: false },
    ]);
    expect(tally.excluded.tie).toBe(1);
    for (const row of rows) noIssues('trl-kto', row);
  });
});

describe('buildRows', () => {
  it('keeps one row per normalized prompt unless dedup is off, counting duplicates', () => {
    const tally = emptyTally();
    expect(buildRows('trl-sft', group(GOOD, GOOD2), options, tally)).toEqual([{ prompt: 'Top customers?', completion: 'Acme and Globex.', provenance: { trust: 'verified', verifiedEvents: 3, unverifiedEvents: 0 } }]);
    expect(tally).toEqual({ rows: 1, excluded: { tie: 0, contradictory: 0, duplicate: 1 } });
    expect(buildRows('trl-sft', group(GOOD, GOOD2), { ...options, dedup: false }, emptyTally())).toHaveLength(2);
    // KTO keeps one row per completion and label.
    expect(buildRows('trl-kto', group(GOOD, BAD), options, emptyTally())).toHaveLength(2);
  });

  it('ignores events lighter than minWeight', () => {
    const light = record(response('r-l', 'q', 'a'), event('thumbs_up', {}, { weight: 0.2 }), event('thumbs_up', {}, { weight: null }));
    expect(buildRows('trl-kto', group(light), { ...options, minWeight: 0.5, dedup: false }, emptyTally())).toEqual([]);
    expect(buildRows('trl-kto', group(light), { ...options, minWeight: 0.1, dedup: false }, emptyTally())).toHaveLength(1);
  });

  it('writes learning-signal pairs with a margin when both answers are scored', () => {
    const rows = buildRows('learning-signals', group(GOOD, BAD), { ...options, kind: 'pair' }, emptyTally());
    expect(rows).toEqual([{ prompt: 'Top customers?', chosen: 'Acme and Globex.', rejected: 'No idea.', margin: 1.7, provenance: { trust: 'verified', verifiedEvents: 3, unverifiedEvents: 0 } }]);
    const perResponse = buildRows('learning-signals', group(GOOD), { ...options, kind: 'response' }, emptyTally());
    expect(perResponse).toMatchObject([{ signal_type: 'response', input: 'Top customers?', actual_output: 'Acme and Globex.', reward: 0.9, expected_output: null }]);
    noIssues('learning-signals', perResponse[0], { ...options, kind: 'response' });
  });
});

describe('NLI samples (ADR-0012)', () => {
  it('take weight = confidence, 0.9 by default, premise and hypothesis from metadata or the response', () => {
    const r = record(
      response('r-n', 'Did sales rise?', 'Sales rose 4 %.'),
      event('correct_label', { correct_relation: 'SUPPORTS', confidence: 0.6 }, { targetId: 'edge-1' }),
      event('correct_label', { correct_relation: 'REFUTES', original_relation: 'SUPPORTS' }, { metadata: { premise: 'Flat sales.', hypothesis: 'Sales rose.' } }),
    );
    const samples = nliSamples(group(r));
    expect(samples).toEqual([
      { premise: 'Sales rose 4 %.', hypothesis: 'Did sales rise?', label: 'SUPPORTS', weight: 0.6, original_label: null, target_id: 'edge-1' },
      { premise: 'Flat sales.', hypothesis: 'Sales rose.', label: 'REFUTES', weight: 0.9, original_label: 'SUPPORTS', target_id: null },
    ]);
    expect(buildRows('nli', group(r), { ...options, minWeight: 0.7 }, emptyTally())).toHaveLength(1);
  });
});

describe('anonymized feedback (ADR-016)', () => {
  it('keeps categories, budget, rating, error categories, quality scores and edit distance; no ids, no text', () => {
    const r = record(
      response('r-secret', 'secret question', 'secret answer', { contextDocumentIds: ['adr:016', 'plain-id-42', 'code:x'], contextTokenCount: 2048 }),
      event('thumbs_down'),
      event('error_categories', { categories: ['hallucination', 'missing_context'], comment: 'secret comment' }),
      event('quality_scores', { accuracy: 40 }),
      event('correction', { corrected: 'secret fix' }, { editDistance: 35 }),
    );
    const row = anonymizedFeedback(r, 8192);
    expect(row).toEqual({
      contextCategories: ['adr', 'code'],
      tokenBudgetUtilization: 0.25,
      rating: 'negative',
      errorCategories: ['hallucination', 'missing_context'],
      qualityScores: { accuracy: 40, completeness: null, styleMatch: null },
      editDistance: 35,
    });
    expect(JSON.stringify(row)).not.toMatch(/secret|r-secret|u1|plain-id/);
    noIssues('anonymized', row);
    expect(anonymizedFeedback(record(response('r', 'q', 'a'), event('skip')), 8192)?.rating).toBe('skipped');
    expect(anonymizedFeedback(record(response('r', 'q', 'a')), 8192)).toBeNull();
  });
});

describe('Phase 4.1 TrainingExample', () => {
  it('pairs each positive answer with a negative one to the same normalized query', () => {
    const examples = trainingExamples(group(GOOD, GOOD2, BAD), emptyTally().excluded);
    expect(examples).toEqual([
      { query: 'Top customers?', positiveAnswer: 'Acme and Globex.', negativeAnswer: 'No idea.', context: [], rating: 0.9 },
      { query: 'top customers?', positiveAnswer: 'Acme.', context: [], rating: 0.4 },
    ]);
  });
});

describe('the validator', () => {
  it("accepts the published examples: OpenAI's chat and preference lines, TRL's standard and conversational types", () => {
    // OpenAI cookbook toy_chat_fine_tuning.jsonl, first example.
    noIssues('openai-chat', {
      messages: [
        { role: 'system', content: 'You are a happy assistant that puts a positive spin on everything.' },
        { role: 'user', content: 'I fell off my bike today.' },
        { role: 'assistant', content: "It's great that you're getting exercise outdoors!" },
      ],
    });
    // OpenAI DPO guide's example (tools and parallel_tool_calls left out).
    noIssues('openai-preference', {
      input: { messages: [{ role: 'user', content: 'Hello, can you tell me how cold San Francisco is today?' }] },
      preferred_output: [{ role: 'assistant', content: 'Today in San Francisco, it is not quite cold as expected.' }],
      non_preferred_output: [{ role: 'assistant', content: 'It is not particularly cold in San Francisco today.' }],
    });
    // TRL "Dataset formats and types".
    noIssues('trl-sft', { prompt: 'The sky is', completion: ' blue.' });
    noIssues('trl-dpo', { prompt: 'The sky is', chosen: ' blue.', rejected: ' green.' });
    noIssues('trl-kto', { prompt: 'The sky is', completion: ' blue.', label: true });
  });

  it('finds what the cookbook checks: roles, keys, content, a missing assistant message, weights', () => {
    expect(rowIssues('openai-chat', 'text', options)).toEqual(['data_type']);
    expect(rowIssues('openai-chat', { messages: [] }, options)).toContain('missing_messages_list');
    expect(rowIssues('openai-chat', { messages: [{ role: 'user', content: 'Hi' }] }, options)).toEqual(['example_missing_assistant_message']);
    expect(rowIssues('openai-chat', { messages: [{ role: 'robot', content: 'Hi' }, { role: 'assistant', content: '' }] }, options).sort()).toEqual(['missing_content', 'unrecognized_role']);
    expect(rowIssues('openai-chat', { messages: [{ role: 'user', content: 'Hi', weight: 1 }, { role: 'assistant', content: 'Yo', weight: 2 }] }, options)).toEqual(['invalid_weight']);
    expect(rowIssues('openai-chat', { messages: [{ role: 'user' }, { role: 'assistant', content: 'Yo', name: 'x' }] }, options).sort()).toEqual(['message_missing_key', 'message_unrecognized_key']);
  });

  it('multi-turn SFT: earlier turns are context (weight 0), only the rated answer is trained; none trained is reported', () => {
    const row = openaiChatRow({ prompt: 'And in May?', target: 'SELECT 12', history: [{ query: 'Sales in April?', answer: 'SELECT 10' }, { query: 'Per region?', answer: 'GROUP BY region' }] }, 'You write SQL.');
    expect(row.messages).toEqual([
      { role: 'system', content: 'You write SQL.' },
      { role: 'user', content: 'Sales in April?' },
      { role: 'assistant', content: 'SELECT 10', weight: 0 },
      { role: 'user', content: 'Per region?' },
      { role: 'assistant', content: 'GROUP BY region', weight: 0 },
      { role: 'user', content: 'And in May?' },
      { role: 'assistant', content: 'SELECT 12', weight: 1 },
    ]);
    expect(rowIssues('openai-chat', row, options)).toEqual([]);
    const untrained = { messages: row.messages.map((m) => (m.role === 'assistant' ? { ...m, weight: 0 } : m)) };
    expect(rowIssues('openai-chat', untrained, options)).toEqual(['no_trained_assistant_message']);
    // An assistant message without weight is trained (OpenAI's default).
    expect(rowIssues('openai-chat', { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Yo' }] }, options)).toEqual([]);
  });

  it('checks the preference and TRL rules', () => {
    expect(
      rowIssues('openai-preference', { input: { messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }] }, preferred_output: [], non_preferred_output: [{ role: 'user', content: 'x' }] }, options).sort(),
    ).toEqual(['bad_non_preferred_output', 'bad_preferred_output', 'last_message_not_user']);
    expect(rowIssues('trl-dpo', { prompt: 'q', chosen: 'a', rejected: 'a' }, options)).toEqual(['chosen_equals_rejected']);
    expect(rowIssues('trl-kto', { prompt: 'q', completion: '', label: 'yes' }, options).sort()).toEqual(['label_not_boolean', 'missing_completion']);
    expect(rowIssues('nli', { premise: 'p', hypothesis: 'h', label: 'L', weight: 1.5 }, options)).toEqual(['weight_out_of_range']);
    expect(rowIssues('anonymized', { rating: 'positive', userId: 'u1' }, options)).toEqual(['unexpected_field']);
  });

  it('estimates tokens as characters / 4 plus the cookbook overheads, and counts over-long rows', () => {
    expect(estimateTokens({ prompt: 'abcd', completion: 'efgh' })).toBe(5);
    expect(estimateTokens({ messages: [{ role: 'user', content: 'abcdefgh' }] })).toBe(3 + 3 + 2);
    const report = emptyReport('trl-sft', 10);
    checkRow(report, { prompt: 'short', completion: 'row' }, options);
    checkRow(report, { prompt: 'x'.repeat(100), completion: 'long' }, options);
    checkRow(report, { prompt: '', completion: 'empty prompt' }, options);
    expect(report).toMatchObject({ rows: 3, valid: 1, errors: { too_long: 1, missing_prompt: 1 } });
    expect(report.tokens.max).toBe(3 + 25 + 1);
  });
});

describe('training batch rows (core builds them, as the exports do)', () => {
  const alone = (answer: string, payload: Record<string, unknown>): PromptGroup => group(record(response('r-1', 'sales?', answer), event('correction', payload, { verified: true })));

  it('a corrections batch writes a correction as a TRL DPO pair by the corrected-pair rule, with its provenance', () => {
    expect(TRAINING_BATCH_FORMATS.corrections.format).toBe('trl-dpo');
    expect(trainingBatchRows('corrections', alone('SELECT * FROM sales', { corrected: 'SELECT sum(total) FROM sales' }), emptyTally())).toEqual([
      { prompt: 'sales?', chosen: 'SELECT sum(total) FROM sales', rejected: 'SELECT * FROM sales', provenance: { trust: 'verified', verifiedEvents: 1, unverifiedEvents: 0 } },
    ]);
  });

  it('a tie (chosen the same as rejected) is no row, and is counted as one', () => {
    const tally = emptyTally();
    expect(trainingBatchRows('corrections', alone('SELECT 1', { corrected: 'SELECT 1' }), tally)).toEqual([]);
    expect(trainingBatchRows('corrections', alone('the answer', { original: 'x ', corrected: ' x' }), tally)).toEqual([]);
    expect(tally.excluded.tie).toBe(2);
    expect(tally.rows).toBe(0);
  });
});
