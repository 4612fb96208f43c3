/**
 * ADR-0012's "recalculate the claim's confidence" (`recalculate_claim_confidence`): a claim's
 * confidence from the edges that bear on it, each with its relation and confidence, a human
 * correction weighing more than the model.
 *
 * The rule (docs/targets.md, "Claim confidence"):
 * - an edge's relation and confidence are its corrected label's (the label most voters gave,
 *   with the confidence of its newest vote, {@link DEFAULT_CORRECTED_CONFIDENCE} when that vote
 *   gave none) when it was corrected, else the registered (model) ones, the model's confidence
 *   {@link DEFAULT_MODEL_CONFIDENCE} when it gave none;
 * - its polarity is +1 for a supporting relation (SUPPORTS, ENTAILS, ENTAILMENT), −1 for a
 *   contradicting one (CONTRADICTS, REFUTES, CONTRADICTION), 0 for any other (NEUTRAL, …);
 * - its weight is {@link HUMAN_EDGE_WEIGHT} when human-corrected, {@link MODEL_EDGE_WEIGHT} else;
 * - confidence = 0.5 + 0.5 · Σ weight · polarity · confidence / Σ weight, in [0, 1]: 0.5 is no
 *   evidence either way, neutral edges pull towards it; no edges, no confidence (null).
 *
 * @module
 */

/** A human-corrected edge counts this many times a model edge. */
export const HUMAN_EDGE_WEIGHT = 2;
/** A model edge's weight. */
export const MODEL_EDGE_WEIGHT = 1;
/** ADR-0012's sample weight, used as a correction's confidence when its vote gave none. */
export const DEFAULT_CORRECTED_CONFIDENCE = 0.9;
/** A registered edge's confidence when the model gave none: no opinion. */
export const DEFAULT_MODEL_CONFIDENCE = 0.5;

/** One edge of a claim as the rule reads it. */
export interface ClaimEdge {
  edgeId: string;
  relation: string | null;
  confidence: number | null;
  humanCorrected: boolean;
}

/** A claim's recomputed confidence and what it was computed from. */
export interface ClaimConfidence {
  /** In [0, 1]; null without edges. */
  value: number | null;
  edges: number;
  humanCorrectedEdges: number;
  /** Per edge: the relation and confidence used, and its weight. */
  evidence: Array<{ edgeId: string; relation: string | null; confidence: number; weight: number; polarity: -1 | 0 | 1 }>;
}

const SUPPORTING = new Set(['SUPPORTS', 'SUPPORT', 'ENTAILS', 'ENTAILMENT']);
const CONTRADICTING = new Set(['CONTRADICTS', 'CONTRADICTION', 'REFUTES', 'REFUTE']);

/**
 * +1, −1 or 0 for a relation (case-insensitive).
 *
 * @example
 * relationPolarity('supports') // 1
 */
export function relationPolarity(relation: string | null): -1 | 0 | 1 {
  const r = (relation ?? '').toUpperCase();
  if (SUPPORTING.has(r)) return 1;
  if (CONTRADICTING.has(r)) return -1;
  return 0;
}

/**
 * An edge's evidence: its corrected label when there is one, else what was registered.
 *
 * @example
 * claimEdge('e1', { relation: 'NEUTRAL', confidence: 0.7 }, { value: 'SUPPORTS', confidence: null }) // { relation: 'SUPPORTS', confidence: 0.9, humanCorrected: true }
 */
export function claimEdge(
  edgeId: string,
  registered: { relation: string | null; confidence: number | null },
  corrected: { value: string; confidence: number | null } | null,
): ClaimEdge {
  if (corrected) return { edgeId, relation: corrected.value, confidence: corrected.confidence ?? DEFAULT_CORRECTED_CONFIDENCE, humanCorrected: true };
  return { edgeId, relation: registered.relation, confidence: registered.confidence, humanCorrected: false };
}

/**
 * A claim's confidence from its edges, by the rule of this module.
 *
 * @example
 * claimConfidence([{ edgeId: 'e1', relation: 'SUPPORTS', confidence: 0.8, humanCorrected: false }]).value // 0.9
 */
export function claimConfidence(edges: readonly ClaimEdge[]): ClaimConfidence {
  const evidence = edges.map((e) => ({
    edgeId: e.edgeId,
    relation: e.relation,
    confidence: e.confidence ?? (e.humanCorrected ? DEFAULT_CORRECTED_CONFIDENCE : DEFAULT_MODEL_CONFIDENCE),
    weight: e.humanCorrected ? HUMAN_EDGE_WEIGHT : MODEL_EDGE_WEIGHT,
    polarity: relationPolarity(e.relation),
  }));
  const totalWeight = evidence.reduce((s, e) => s + e.weight, 0);
  const signed = evidence.reduce((s, e) => s + e.weight * e.polarity * e.confidence, 0);
  return {
    value: totalWeight > 0 ? 0.5 + (0.5 * signed) / totalWeight : null,
    edges: evidence.length,
    humanCorrectedEdges: edges.filter((e) => e.humanCorrected).length,
    evidence,
  };
}
