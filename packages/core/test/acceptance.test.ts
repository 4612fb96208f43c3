import { describe, expect, it } from 'vitest';
import { contentFingerprint, judgeFeedback, resolveWorkspaceSettings, stableStringify, validateFeedbackEvent, voteSlot, type FeedbackEvent } from '../src/index.js';

const settings = resolveWorkspaceSettings({});
const event = (input: Record<string, unknown>): FeedbackEvent => {
  const v = validateFeedbackEvent({ responseId: 'r', ...input });
  if (!v.ok) throw new Error(v.error.message);
  return v.value;
};
const created = new Date('2026-01-01T00:00:00Z');
const hours = (h: number) => new Date(created.getTime() + h * 3_600_000);

describe('judgeFeedback', () => {
  it('closes the window for explicit feedback only', () => {
    expect(judgeFeedback(event({ type: 'thumbs_up' }), { createdAt: created }, settings, hours(23.9), false).ok).toBe(true);
    expect(judgeFeedback(event({ type: 'thumbs_up' }), { createdAt: created }, settings, hours(24.1), false)).toMatchObject({
      ok: false,
      error: { code: 'FEEDLOOP_ERR_FEEDBACK_WINDOW_CLOSED', field: 'responseId' },
    });
    expect(judgeFeedback(event({ type: 'edit', payload: { edited: 'x', phase: 'long_term' } }), { createdAt: created }, settings, hours(500), false).ok).toBe(true);
    expect(judgeFeedback(event({ type: 'outcome', payload: { metric: 'm', value: 1, source: 'integration' } }), { createdAt: created }, settings, hours(500), false).ok).toBe(true);
    expect(judgeFeedback(event({ type: 'thumbs_up' }), { createdAt: created }, { ...settings, feedbackWindowHours: 48 }, hours(47), false).ok).toBe(true);
  });

  it('believes occurredAt only from trusted clients', () => {
    const backdated = event({ type: 'thumbs_up', occurredAt: hours(1).toISOString() });
    expect(judgeFeedback(backdated, { createdAt: created }, settings, hours(30), true)).toMatchObject({ ok: true, occurredAt: hours(1) });
    expect(judgeFeedback(backdated, { createdAt: created }, settings, hours(30), false)).toMatchObject({ ok: false });
  });

  it('rejects times in the future or before the response', () => {
    expect(judgeFeedback(event({ type: 'skip', occurredAt: hours(2).toISOString() }), { createdAt: created }, settings, hours(1), true)).toMatchObject({
      ok: false,
      error: { field: 'occurredAt' },
    });
    expect(judgeFeedback(event({ type: 'skip', occurredAt: hours(-1).toISOString() }), { createdAt: created }, settings, hours(1), true)).toMatchObject({
      ok: false,
      error: { code: 'FEEDLOOP_ERR_FEEDBACK_BEFORE_RESPONSE' },
    });
    // Within the clock-skew allowance either way.
    expect(judgeFeedback(event({ type: 'skip', occurredAt: hours(-0.05).toISOString() }), { createdAt: created }, settings, hours(1), true).ok).toBe(true);
  });
});

describe('content identity and vote slots', () => {
  it('fingerprints equal payloads equally, whatever their key order', () => {
    const a = event({ type: 'quality_scores', userId: 'u', payload: { accuracy: 1, completeness: 2 } });
    const b = event({ type: 'quality_scores', userId: 'u', payload: { completeness: 2, accuracy: 1 } });
    const c = event({ type: 'quality_scores', userId: 'u', payload: { completeness: 3, accuracy: 1 } });
    expect(contentFingerprint(a)).toBe(contentFingerprint(b));
    expect(contentFingerprint(a)).not.toBe(contentFingerprint(c));
    expect(contentFingerprint(event({ type: 'skip' }))).toBeUndefined();
    expect(contentFingerprint(event({ type: 'skip', sessionId: 's' }))).not.toBe(contentFingerprint(event({ type: 'skip', userId: 's' })));
    expect(stableStringify({ b: [1, { d: 1, c: undefined }], a: null })).toBe('{"a":null,"b":[1,{"d":1}]}');
  });

  it('fingerprints an anonymous event by its hashed client when one is given (issue 24)', () => {
    const anon = event({ type: 'thumbs_up' });
    expect(contentFingerprint(anon, 'client-hash-1')).toBeDefined();
    expect(contentFingerprint(anon, 'client-hash-1')).toBe(contentFingerprint(event({ type: 'thumbs_up' }), 'client-hash-1'));
    expect(contentFingerprint(anon, 'client-hash-1')).not.toBe(contentFingerprint(anon, 'client-hash-2'));
    // A known user or session is the identity; the client is only the anonymous fallback.
    expect(contentFingerprint(event({ type: 'thumbs_up', userId: 'u' }), 'client-hash-1')).toBe(contentFingerprint(event({ type: 'thumbs_up', userId: 'u' })));
    expect(contentFingerprint(anon, 'u')).not.toBe(contentFingerprint(event({ type: 'thumbs_up', userId: 'u' })));
  });

  it('puts thumbs in one slot and ratings in one per aspect', () => {
    expect(voteSlot(event({ type: 'thumbs_up', userId: 'u' }))).toBe(voteSlot(event({ type: 'thumbs_down', userId: 'u' })));
    expect(voteSlot(event({ type: 'rating', userId: 'u', payload: { rating: 2, aspect: 'tone' } }))).not.toBe(
      voteSlot(event({ type: 'rating', userId: 'u', payload: { rating: 2 } })),
    );
    expect(voteSlot(event({ type: 'comment', userId: 'u', payload: { comment: 'c' } }))).toBeUndefined();
    expect(voteSlot(event({ type: 'thumbs_up' }))).toBeUndefined();
  });
});

describe('resolveWorkspaceSettings', () => {
  it('fills defaults and ignores bad stored values field by field', () => {
    // The signal pipeline's settings are checked in full in workspace-settings.test.ts.
    expect(resolveWorkspaceSettings(null)).toMatchObject({ feedbackWindowHours: 24, dedupWindowSeconds: 10, publicRateLimitPerMinute: 10 });
    expect(resolveWorkspaceSettings({ dedupWindowSeconds: 30, publicRateLimitPerMinute: -5 })).toMatchObject({
      feedbackWindowHours: 24,
      dedupWindowSeconds: 30,
      publicRateLimitPerMinute: 10,
    });
  });
});
