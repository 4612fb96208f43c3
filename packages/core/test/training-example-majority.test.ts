import { describe, expect, it } from 'vitest';
import { emptyTally, majorityVerdict, trainingExamples, type ExportEvent, type ExportResponse, type PromptGroup } from '../src/index.js';

// Issue 24: Phase 4.1's TrainingExample took its context from nothing, and dropped an answer with
// 26 up and 3 down votes as "contradictory".
let clock = Date.parse('2026-01-01T00:00:00Z');
const response = (id: string, answer: string, extra: Partial<ExportResponse> = {}): ExportResponse => ({
  id,
  query: 'Refund policy?',
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
});
const votes = (type: string, count: number, prefix: string): ExportEvent[] =>
  Array.from({ length: count }, (_, i) => {
    clock += 1_000;
    return { id: `${prefix}${i}`, type, payload: {}, userId: `${prefix}-u${i}`, targetId: null, metadata: null, editDistance: null, occurredAt: new Date(clock), weight: 1, learningSignal: null };
  });

describe('majorityVerdict', () => {
  it('a side wins with at least twice the other side (the documented 2:1 margin)', () => {
    expect(majorityVerdict([...votes('thumbs_up', 26, 'a'), ...votes('thumbs_down', 3, 'b')])).toBe('positive');
    expect(majorityVerdict([...votes('thumbs_up', 2, 'a'), ...votes('thumbs_down', 1, 'b')])).toBe('positive');
    expect(majorityVerdict([...votes('thumbs_up', 1, 'a'), ...votes('thumbs_down', 5, 'b')])).toBe('negative');
    expect(majorityVerdict([...votes('thumbs_up', 3, 'a'), ...votes('thumbs_down', 2, 'b')])).toBe('contradictory');
    expect(majorityVerdict([...votes('thumbs_up', 1, 'a'), ...votes('thumbs_down', 1, 'b')])).toBe('contradictory');
    expect(majorityVerdict(votes('thumbs_up', 1, 'a'))).toBe('positive');
    expect(majorityVerdict([{ type: 'rating', payload: { rating: 3 } }])).toBe('tie');
    expect(majorityVerdict([])).toBe('none');
  });
});

describe('Phase 4.1 TrainingExample', () => {
  it('keeps an answer with 26 up and 3 down, its context from its sources and context documents', () => {
    const tally = emptyTally();
    const good = response('r-good', '30 days.', { sources: ['https://docs.example/refunds', 'doc-7'], contextDocumentIds: ['doc-7', 'doc-9'], score: 0.7 });
    const bad = response('r-bad', 'No refunds.');
    const split = response('r-split', 'Ask support.');
    const group: PromptGroup = {
      key: 'k',
      responses: [
        { response: good, events: [...votes('thumbs_up', 26, 'g'), ...votes('thumbs_down', 3, 'h')] },
        { response: bad, events: [...votes('thumbs_down', 4, 'i'), ...votes('thumbs_up', 1, 'j')] },
        { response: split, events: [...votes('thumbs_up', 3, 'k'), ...votes('thumbs_down', 2, 'l')] },
      ],
    };
    expect(trainingExamples(group, tally.excluded)).toEqual([
      { query: 'Refund policy?', positiveAnswer: '30 days.', negativeAnswer: 'No refunds.', context: ['https://docs.example/refunds', 'doc-7', 'doc-9'], rating: 0.7 },
    ]);
    expect(tally.excluded.contradictory).toBe(1);
  });
});
