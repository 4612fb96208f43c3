import { describe, expect, it } from 'vitest';
import {
  DEFAULT_EXPORT_OPTIONS,
  buildRows,
  emptyTally,
  rowIssues,
  tallyPreferences,
  type ExportEvent,
  type ExportResponse,
  type PromptGroup,
  type ResponseRecord,
} from '../src/index.js';

let clock = Date.parse('2026-01-01T00:00:00Z');
function response(id: string, query: string, answer: string): ExportResponse {
  return { id, query, answer, contextDocumentIds: [], contextTokenCount: null, model: null, agent: null, queryType: null, experimentId: null, variant: null, metadata: {}, createdAt: new Date(0), score: null };
}
/** A preference on `on` (one of the pair) by `who`. */
function pref(on: string, pair: [string, string], preferred: string, who: { userId?: string; source?: string; evaluatorId?: string } = {}): ExportEvent {
  clock += 1_000;
  return {
    id: `p${clock}`,
    type: 'preference',
    payload: { pair, preferred },
    userId: who.userId ?? null,
    targetId: null,
    metadata: who.evaluatorId ? { evaluatorId: who.evaluatorId } : null,
    editDistance: null,
    occurredAt: new Date(clock),
    weight: 0,
    learningSignal: null,
    ...(who.source ? { source: who.source } : {}),
  };
}
const A = response('a', 'Reset my password?', 'Click "forgot password" on the sign-in page.');
const B = response('b', 'reset my password?', 'Ask an admin.');
const C = response('c', 'Delete my account?', 'Settings, then Delete.');
const AB: [string, string] = ['a', 'b'];
const group = (a: ExportEvent[], b: ExportEvent[] = []): PromptGroup => ({ key: 'k', responses: [{ response: A, events: a }, { response: B, events: b }] as ResponseRecord[] });

describe('tallyPreferences', () => {
  it('counts each voter’s newest verdict once, ties for no side, and takes the majority', () => {
    const events = [
      pref('a', AB, 'b', { userId: 'ann' }),
      pref('a', AB, 'a', { userId: 'ann' }), // ann changed her mind: a
      pref('b', ['b', 'a'], 'a', { userId: 'bob' }), // the same pair, given the other way round
      pref('a', AB, 'b', { userId: 'cy' }),
      pref('a', AB, 'tie', { userId: 'dee' }),
    ];
    expect(tallyPreferences(events)).toEqual([{ pair: ['a', 'b'], votes: [2, 1], ties: 1, winner: 'a', sources: ['explicit'] }]);
  });

  it('has no winner on equal votes or ties only; a judge votes once per evaluator', () => {
    expect(tallyPreferences([pref('a', AB, 'a', { userId: 'u1' }), pref('a', AB, 'b', { userId: 'u2' })])[0]?.winner).toBeNull();
    expect(tallyPreferences([pref('a', AB, 'tie', { userId: 'u1' })])[0]).toMatchObject({ votes: [0, 0], ties: 1, winner: null });
    const judged = tallyPreferences([
      pref('a', AB, 'b', { source: 'judge', evaluatorId: 'e1' }),
      pref('a', AB, 'b', { source: 'judge', evaluatorId: 'e1' }),
      pref('a', AB, 'a', { userId: 'u1' }),
    ]);
    expect(judged[0]).toMatchObject({ votes: [1, 1], winner: null, sources: ['explicit', 'judge'] });
  });
});

describe('preference events in the preference exports', () => {
  const dpo = (g: PromptGroup) => {
    const tally = emptyTally();
    return { rows: buildRows('trl-dpo', g, DEFAULT_EXPORT_OPTIONS, tally) as Array<{ prompt: string; chosen: string; rejected: string }>, tally };
  };

  it('writes the majority’s answer as chosen and the other as rejected, for the same query', () => {
    const { rows } = dpo(group([pref('a', AB, 'b', { userId: 'u1', source: 'review' }), pref('a', AB, 'b', { userId: 'u2', source: 'review' })], [pref('b', AB, 'a', { userId: 'u3', source: 'review' })]));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ prompt: 'reset my password?', chosen: 'Ask an admin.', rejected: 'Click "forgot password" on the sign-in page.' });
    expect(rowIssues('trl-dpo', rows[0], DEFAULT_EXPORT_OPTIONS)).toEqual([]);
    const openai = buildRows('openai-preference', group([pref('a', AB, 'a', { userId: 'u1' })]), DEFAULT_EXPORT_OPTIONS, emptyTally());
    expect(openai).toHaveLength(1);
    expect(openai[0]).toMatchObject({ preferred_output: [{ role: 'assistant', content: A.answer }], non_preferred_output: [{ role: 'assistant', content: B.answer }] });
    expect(rowIssues('openai-preference', openai[0], DEFAULT_EXPORT_OPTIONS)).toEqual([]);
  });

  it('writes no line for ties, for no majority, nor for a pair across two queries, and says why', () => {
    const ties = dpo(group([pref('a', AB, 'tie', { userId: 'u1' }), pref('a', AB, 'tie', { userId: 'u2' })]));
    expect(ties.rows).toEqual([]);
    expect(ties.tally.excluded.preferenceTie).toBe(1);
    const split = dpo(group([pref('a', AB, 'a', { userId: 'u1' }), pref('a', AB, 'b', { userId: 'u2' }), pref('a', AB, 'tie', { userId: 'u3' })]));
    expect(split.rows).toEqual([]);
    expect(split.tally.excluded.preferenceNoMajority).toBe(1);
    const across: PromptGroup = { key: 'k', responses: [{ response: A, events: [pref('a', ['a', 'c'], 'a', { userId: 'u1' })] }, { response: C, events: [] }].slice(0, 1) as ResponseRecord[] };
    const crossed = dpo(across);
    expect(crossed.rows).toEqual([]);
    expect(crossed.tally.excluded.preferenceOtherPrompt).toBe(1);
  });

  it('puts a stated preference before the contrast of thumbs on the same prompt', () => {
    const thumbs = (type: string): ExportEvent => ({ ...pref('a', AB, 'a'), type, payload: {}, userId: 'u9' });
    // Thumbs say a over b; the reviewers preferred b: the reviewers' line is the prompt's line.
    const { rows } = dpo(group([thumbs('thumbs_up'), pref('a', AB, 'b', { userId: 'r1', source: 'review' })], [thumbs('thumbs_down')]));
    expect(rows[0]).toMatchObject({ chosen: B.answer, rejected: A.answer });
  });
});
