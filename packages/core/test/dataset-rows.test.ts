/**
 * Issue 27's dataset rules in core: which event gives an item its expected output, and the rows a
 * dataset's frozen items make (KTO from expected outputs; the other formats as the exports').
 */
import { describe, expect, it } from 'vitest';
import { buildRows, DEFAULT_EXPORT_OPTIONS, datasetKtoRows, datasetRows, emptyTally, expectedOutputOf, type ExportEvent, type PromptGroup } from '../src/index.js';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 27, 12, minute));
const candidate = (id: string, type: string, source: string, payload: Record<string, unknown>, minute: number) => ({ id, type, source, payload, occurredAt: at(minute) });

describe('expectedOutputOf', () => {
  it('takes a reviewer’s correction before a newer one from elsewhere, and the newest of each kind', () => {
    const out = expectedOutputOf('old', [
      candidate('c-user', 'correction', 'explicit', { corrected: 'user fix' }, 9),
      candidate('c-rev1', 'correction', 'review', { corrected: 'first review fix' }, 1),
      candidate('c-rev2', 'correction', 'review', { corrected: 'second review fix' }, 2),
      candidate('r-ok', 'review', 'review', { verdict: 'approved' }, 3),
    ]);
    expect(out).toEqual({ expectedOutput: 'second review fix', expectedSource: 'correction', eventId: 'c-rev2' });
    expect(expectedOutputOf('old', [candidate('c-user', 'correction', 'explicit', { corrected: 'user fix' }, 9)])).toEqual({
      expectedOutput: 'user fix',
      expectedSource: 'correction',
      eventId: 'c-user',
    });
  });

  it('takes the answer when its newest review approves it; a later non-approval takes it back', () => {
    const approved = candidate('r1', 'review', 'review', { verdict: 'approved' }, 1);
    expect(expectedOutputOf('the answer', [approved])).toEqual({ expectedOutput: 'the answer', expectedSource: 'approved', eventId: 'r1' });
    const later = candidate('r2', 'review', 'review', { verdict: 'changes_requested' }, 2);
    expect(expectedOutputOf('the answer', [approved, later])).toEqual({ expectedOutput: null, expectedSource: null, eventId: 'r2' });
    // Read order does not matter.
    expect(expectedOutputOf('the answer', [later, approved]).eventId).toBe('r2');
  });

  it('has none without a correction or a review, and skips a correction with no text', () => {
    expect(expectedOutputOf('a', [])).toEqual({ expectedOutput: null, expectedSource: null, eventId: null });
    expect(expectedOutputOf('a', [candidate('c', 'correction', 'review', { comment: 'no text' }, 1)])).toEqual({ expectedOutput: null, expectedSource: null, eventId: null });
  });
});

const event = (id: string, type: string, payload: Record<string, unknown>, weight: number | null = 1): ExportEvent => ({
  id,
  type,
  payload,
  userId: 'rev',
  targetId: null,
  metadata: null,
  editDistance: null,
  occurredAt: at(1),
  weight,
  learningSignal: null,
});
const record = (id: string, query: string, answer: string, events: ExportEvent[]) => ({
  response: { id, query, answer, contextDocumentIds: [], contextTokenCount: null, model: null, agent: null, queryType: null, experimentId: null, variant: null, metadata: {}, createdAt: at(0), score: null },
  events,
});

describe('dataset rows', () => {
  const group: PromptGroup = {
    key: 'k',
    responses: [
      record('fixed', 'q?', 'wrong', [event('c1', 'correction', { corrected: 'right' })]),
      record('ok', 'q?', 'fine', [event('r1', 'review', { verdict: 'approved' })]),
      record('bad', 'q?', 'bad', [event('r2', 'review', { verdict: 'rejected' })]),
      record('same', 'q?', 'same', [event('c2', 'correction', { corrected: ' same ' })]),
      record('plain', 'q?', 'unjudged', []),
    ],
  };

  it('KTO: the expected output desirable, the corrected or rejected answer not; a correction that changes nothing is one row', () => {
    expect(datasetKtoRows(group)).toEqual([
      { prompt: 'q?', completion: 'right', label: true },
      { prompt: 'q?', completion: 'wrong', label: false },
      { prompt: 'q?', completion: 'fine', label: true },
      { prompt: 'q?', completion: 'bad', label: false },
      { prompt: 'q?', completion: ' same ', label: true },
    ]);
    const tally = emptyTally();
    const rows = datasetRows('trl-kto', group, DEFAULT_EXPORT_OPTIONS, tally) as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(5);
    expect(tally.rows).toBe(5);
    expect(rows[0]?.provenance).toEqual({ trust: 'verified', verifiedEvents: 4, unverifiedEvents: 0 });
    // minWeight drops the events lighter than it, as in every export.
    const light = { ...group, responses: group.responses.map((r) => ({ ...r, events: r.events.map((e) => ({ ...e, weight: e.id === 'c1' ? 0.1 : 1 })) })) };
    expect((datasetRows('trl-kto', light, { ...DEFAULT_EXPORT_OPTIONS, minWeight: 0.5 }, emptyTally()) as Array<{ completion: string }>).map((r) => r.completion)).not.toContain('right');
  });

  it('every other format is the exports’ own builder', () => {
    for (const format of ['trl-sft', 'trl-dpo', 'openai-chat', 'openai-preference', 'learning-signals', 'anonymized', 'nli'] as const) {
      const options = { ...DEFAULT_EXPORT_OPTIONS, dedup: false };
      expect(datasetRows(format, group, options, emptyTally()), format).toEqual(buildRows(format, group, options, emptyTally()));
    }
    expect((datasetRows('trl-sft', group, { ...DEFAULT_EXPORT_OPTIONS, dedup: false }, emptyTally()) as Array<{ completion: string }>).map((r) => r.completion)).toEqual([
      'right',
      ' same ',
      'fine',
    ]);
  });
});
