import { describe, expect, it } from 'vitest';
import {
  checkPairwiseReview,
  checkSingleReview,
  judgeFeedback,
  pairOrder,
  resolveWorkspaceSettings,
  rubricSchema,
  sampleKeeps,
  singleReviewEvents,
  singleReviewFigures,
  validateFeedbackEvent,
} from '../src/index.js';

describe('review queues (issue 27)', () => {
  it('orders a pair per (item, reviewer): stable, about half each way, independent between reviewers', () => {
    const items = Array.from({ length: 2_000 }, (_, i) => `ri_${i}`);
    const annFirst = items.filter((id) => pairOrder(id, 'ann', 'a', 'b')[0] === 'a').length;
    expect(annFirst / items.length).toBeGreaterThan(0.45);
    expect(annFirst / items.length).toBeLessThan(0.55);
    const same = items.filter((id) => pairOrder(id, 'ann', 'a', 'b')[0] === pairOrder(id, 'ben', 'a', 'b')[0]).length;
    expect(same / items.length).toBeGreaterThan(0.45);
    expect(same / items.length).toBeLessThan(0.55);
    expect(pairOrder('ri_1', 'ann', 'a', 'b')).toEqual(pairOrder('ri_1', 'ann', 'a', 'b'));
    expect([...pairOrder('ri_1', 'ann', 'a', 'b')].sort()).toEqual(['a', 'b']);
  });

  it('samples responses deterministically at the asked share', () => {
    const ids = Array.from({ length: 5_000 }, (_, i) => `r${i}`);
    const kept = ids.filter((id) => sampleKeeps('rq_1', id, 0.3)).length / ids.length;
    expect(kept).toBeGreaterThan(0.27);
    expect(kept).toBeLessThan(0.33);
    expect(ids.filter((id) => sampleKeeps('rq_1', id, 0.3))).toEqual(ids.filter((id) => sampleKeeps('rq_1', id, 0.3)));
    expect(ids.every((id) => sampleKeeps('rq_1', id, 1))).toBe(true);
    expect(ids.some((id) => sampleKeeps('rq_1', id, 0))).toBe(false);
  });

  it('checks a single review against the rubric, naming the field', () => {
    const rubric = rubricSchema.parse({ correction: false });
    expect(checkSingleReview({ verdict: 'approved' }, rubric, new Set())).toBeUndefined();
    expect(checkSingleReview({ verdict: 'approved', correction: 'x' }, rubric, new Set())).toMatchObject({ field: 'correction', kind: 'disabled' });
    expect(checkSingleReview({ qualityScores: { accuracy: 3 } }, rubric, new Set())).toMatchObject({ field: 'qualityScores', kind: 'disabled' });
    expect(checkSingleReview({}, rubric, new Set())).toMatchObject({ field: 'verdict', kind: 'invalid' });
    expect(checkSingleReview({ issues: ['hallucination'] }, rubric, new Set())).toMatchObject({ field: 'verdict' });
    expect(checkSingleReview({ scores: [{ name: 'tone', value: 1 }] }, rubric, new Set(['helpfulness']))).toMatchObject({ field: 'scores[0].name' });
    expect(checkSingleReview({ scores: [{ name: 'helpfulness', value: 1 }] }, rubric, new Set(['helpfulness']))).toBeUndefined();
    expect(checkPairwiseReview({ preferred: 'c' }, ['a', 'b'])).toMatchObject({ field: 'preferred' });
    expect(checkPairwiseReview({ preferred: 'tie' }, ['a', 'b'])).toBeUndefined();
  });

  it('turns a review into its feedback events and its figures', () => {
    const review = { verdict: 'rejected' as const, issues: ['hallucination' as const], comment: 'no', qualityScores: { accuracy: 10 }, correction: 'Paris', scores: [{ name: 'tone', value: 2 }] };
    expect(singleReviewEvents(review).map((p) => [p.type, p.payload])).toEqual([
      ['review', { verdict: 'rejected', issues: ['hallucination'], comment: 'no' }],
      ['quality_scores', { accuracy: 10 }],
      ['correction', { corrected: 'Paris' }],
      ['score', { name: 'tone', value: 2 }],
    ]);
    expect(singleReviewEvents({ comment: 'fine' }).map((p) => p.type)).toEqual(['comment']);
    expect(singleReviewFigures(review)).toEqual({ label: 'rejected', scores: { accuracy: 10, tone: 2 } });
  });

  it('lets a review reach a response after the feedback window, not a user\'s vote', () => {
    const settings = resolveWorkspaceSettings({});
    const created = new Date('2026-01-01T00:00:00Z');
    const later = new Date(created.getTime() + 72 * 3_600_000);
    const of = (input: Record<string, unknown>) => {
      const v = validateFeedbackEvent({ responseId: 'r', ...input });
      if (!v.ok) throw new Error(v.error.message);
      return v.value;
    };
    const review = of({ type: 'review', source: 'review', userId: 'ann', payload: { verdict: 'approved' } });
    const user = of({ type: 'review', userId: 'u1', payload: { verdict: 'approved' } });
    expect(judgeFeedback(review, { createdAt: created }, settings, later, true).ok).toBe(true);
    expect(judgeFeedback(user, { createdAt: created }, settings, later, true)).toMatchObject({ ok: false, error: { code: 'FEEDLOOP_ERR_FEEDBACK_WINDOW_CLOSED' } });
  });
});
