import { describe, expect, it } from 'vitest';
import { claimConfidence, claimEdge, registeredTargetSchema, relationPolarity } from '../src/index.js';

describe('claim confidence from its edges (ADR-0012 recalculate_claim_confidence)', () => {
  it('is 0.5 + 0.5 · Σ w·polarity·confidence / Σ w, human corrections weighing twice', () => {
    expect(claimConfidence([]).value).toBeNull();
    expect(claimConfidence([{ edgeId: 'e1', relation: 'SUPPORTS', confidence: 0.8, humanCorrected: false }]).value).toBeCloseTo(0.9, 12);
    const model = [
      { edgeId: 'e1', relation: 'SUPPORTS', confidence: 0.8, humanCorrected: false },
      { edgeId: 'e2', relation: 'CONTRADICTS', confidence: 0.6, humanCorrected: false },
    ];
    // (0.8 − 0.6) / 2 = 0.1 → 0.55
    expect(claimConfidence(model).value).toBeCloseTo(0.55, 12);
    // A human corrects e2 to SUPPORTS at 0.9: (0.8 + 2·0.9) / 3 → 0.5 + 0.5 · 0.8667
    const corrected = [model[0]!, claimEdge('e2', { relation: 'CONTRADICTS', confidence: 0.6 }, { value: 'SUPPORTS', confidence: 0.9 })];
    const c = claimConfidence(corrected);
    expect(c.value).toBeCloseTo(0.5 + 0.5 * (2.6 / 3), 12);
    expect(c.humanCorrectedEdges).toBe(1);
    // A neutral edge pulls towards 0.5; an uncorrected edge without confidence counts 0.5.
    expect(claimConfidence([{ edgeId: 'e', relation: 'NEUTRAL', confidence: 1, humanCorrected: false }]).value).toBe(0.5);
    expect(claimEdge('e', { relation: 'X', confidence: null }, { value: 'REFUTES', confidence: null })).toEqual({ edgeId: 'e', relation: 'REFUTES', confidence: 0.9, humanCorrected: true });
    expect(relationPolarity('entailment')).toBe(1);
  });
});

describe('registeredTargetSchema', () => {
  it('requires an edge to name its fragment and claim, and refuses edge fields on the other kinds', () => {
    expect(registeredTargetSchema.safeParse({ kind: 'edge', fragmentId: 'f', claimId: 'c', relation: 'SUPPORTS', confidence: 0.7 }).success).toBe(true);
    const noFragment = registeredTargetSchema.safeParse({ kind: 'edge', claimId: 'c' });
    expect(noFragment.success ? [] : noFragment.error.issues.map((i) => i.path.join('.'))).toEqual(['fragmentId']);
    const claimOnFragment = registeredTargetSchema.safeParse({ kind: 'fragment', text: 't', claimId: 'c' });
    expect(claimOnFragment.success ? [] : claimOnFragment.error.issues.map((i) => i.path.join('.'))).toEqual(['claimId']);
    expect(registeredTargetSchema.safeParse({ kind: 'edge', fragmentId: 'f', claimId: 'c', confidence: 2 }).success).toBe(false);
    expect(registeredTargetSchema.safeParse({ kind: 'node' }).success).toBe(false);
  });
});
