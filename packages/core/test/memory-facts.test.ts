import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryFacts, memoryFromFacts, userMemory, type MemoryEvent } from '../src/index.js';
import { referenceUserMemory } from './memory-reference.js';

const now = new Date('2026-06-01T12:00:00Z');
const TYPES = ['thumbs_down', 'thumbs_up', 'rating', 'rate_usefulness', 'error_categories', 'review', 'correction', 'implicit_reject', 'implicit_accept', 'escalation', 'edit', 'comment', 'continue'];
const WORDS = ['too', 'verbose', 'wrong', 'join', 'made up', 'numbers', 'slow', "don't", 'hallucinated'];
const TEXTS = ['Hey! I think the answer is 42 🎉\n- one\n- two', 'The answer is 42.', 'Perhaps it is 42, maybe 43, probably more words here', '```sql\nSELECT 1\n```', 'Short.', 'A much longer answer that says a lot more than the original ever did, in prose.'];

/** Events with overlapping categories, comments, responses and occurrence times (ties included). */
const eventArb = fc.record({
  type: fc.constantFrom(...TYPES),
  category: fc.constantFrom('hallucination', 'accuracy', 'other', 'style_mismatch'),
  categories: fc.subarray(['hallucination', 'accuracy', 'other', 'missing_context', 'hallucination']),
  issues: fc.subarray(['accuracy', 'tone', 'completeness']),
  verdict: fc.constantFrom('approved', 'rejected', 'needs_work'),
  rating: fc.integer({ min: 1, max: 5 }),
  comment: fc.option(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 5 }).map((w) => w.join(' ')), { nil: undefined }),
  edited: fc.constantFrom(...TEXTS),
  original: fc.option(fc.constantFrom(...TEXTS), { nil: undefined }),
  answer: fc.option(fc.constantFrom(...TEXTS), { nil: null }),
  queryType: fc.option(fc.constantFrom('sql', 'chat'), { nil: null }),
  response: fc.integer({ min: 0, max: 6 }),
  daysAgo: fc.constantFrom(-1, 0, 0, 1, 15, 30, 61, 200),
});

type RawEvent = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

function toEvents(raw: RawEvent[]): MemoryEvent[] {
  return raw.map((r, i) => ({
    id: `e${String(i).padStart(3, '0')}`,
    type: r.type,
    payload: {
      category: r.category,
      categories: r.categories,
      issues: r.issues,
      verdict: r.verdict,
      rating: r.rating,
      comment: r.comment,
      reason: r.comment,
      edited: r.edited,
      corrected: r.edited,
      original: r.original,
    },
    occurredAt: new Date(now.getTime() - r.daysAgo * 86_400_000),
    answer: r.answer,
    queryType: r.queryType,
    responseId: `r${r.response}`,
  }));
}

describe('memory facts', () => {
  it('userMemory equals the reference it replaces (decay, support, text, explain ids, order)', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 60 }), fc.constantFrom(1, 30, 365), (raw, halfLifeDays) => {
        const events = toEvents(raw);
        expect(userMemory(events, now, { halfLifeDays })).toEqual(referenceUserMemory(events, now, { halfLifeDays }));
      }),
      { numRuns: 300 },
    );
  });

  it('survive a JSON round trip: facts kept as JSON give the same memory', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 40 }), (raw) => {
        const facts = toEvents(raw).map((e) => memoryFacts(e));
        expect(memoryFromFacts(JSON.parse(JSON.stringify(facts)), now)).toEqual(memoryFromFacts(facts, now));
      }),
      { numRuns: 100 },
    );
  });

  it('keep only the first 120 characters of a complaint comment, which is all an item quotes', () => {
    const comment = `too verbose ${'x'.repeat(300)}`;
    const f = memoryFacts({ id: 'e1', type: 'thumbs_down', payload: { comment }, occurredAt: now, answer: null, queryType: null, responseId: 'r1' });
    expect(f.example).toBe(comment.slice(0, 120));
    expect(f.complaints).toContain('verbose');
  });

  it("take the text corrected by core's one rule: an empty original is the text corrected, not the answer", () => {
    const edited = TEXTS[0]!;
    const base = { id: 'e1', type: 'correction', occurredAt: now, queryType: null, responseId: 'r1' };
    const emptyOriginal = memoryFacts({ ...base, payload: { corrected: edited, original: '' }, answer: TEXTS[2]! });
    const fromEmptyAnswer = memoryFacts({ ...base, payload: { corrected: edited }, answer: '' });
    const fromAnswer = memoryFacts({ ...base, payload: { corrected: edited }, answer: TEXTS[2]! });
    expect(emptyOriginal.style).toEqual(fromEmptyAnswer.style);
    expect(emptyOriginal.style).not.toEqual(fromAnswer.style);
  });
});
