/**
 * ADR-0012 target corrections: a target's (fragment, edge, page, node) current state, folded from
 * every label action on it, oldest first, with the full history and what was decided about each
 * action. Gaming resistance: each voter (user, else session) has one say per target and question
 * (their newest replaces their older), at most {@link TARGET_CAP_PER_VOTER} actions per target
 * count at all, and a label is decided by distinct voters, so one user cannot swing it.
 *
 * @module
 */

/** One label action on the target. */
export interface TargetEvent {
  id: string;
  type: string;
  payload: Record<string, unknown>;
  userId: string | null;
  sessionId: string | null;
  responseId: string;
  occurredAt: Date;
}

/** What was decided about one action. */
export type TargetDecision = 'applied' | 'outvoted' | 'superseded' | 'capped';

/** One entry of a target's history. */
export interface TargetHistoryEntry {
  eventId: string;
  action: string;
  voter: string;
  responseId: string;
  payload: Record<string, unknown>;
  occurredAt: string;
  decision: TargetDecision;
  /** Why, in words (for the record). */
  reason: string;
}

/** A target's current state. */
export interface TargetState {
  targetId: string;
  /** Set by `correct_label` (the seed's `correct_nli`): the label most voters gave. */
  label: { value: string; original: string | null; confidence: number | null; voters: number; humanCorrected: true } | null;
  /** Relations from `correct_citation`: present after the voters' adds and removes. */
  relations: Array<{ citedFragmentId: string; relation: string; voters: number }>;
  /** `flag_irrelevant`: distinct voters. */
  flaggedIrrelevant: number;
  /** `flag_missing`: the texts reported missing. */
  missing: Array<{ text: string; locationHint: string | null; eventId: string }>;
  /** `rate_usefulness`: mean of each voter's newest rating. */
  usefulness: { mean: number; count: number } | null;
  notes: Array<{ note: string; eventId: string }>;
  history: TargetHistoryEntry[];
  updatedAt: string | null;
}

/** Label actions one voter may take on one target before the rest are capped (an outlier's flood). */
export const TARGET_CAP_PER_VOTER = 5;

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const voterOf = (e: TargetEvent): string => (e.userId !== null ? `user:${e.userId}` : e.sessionId !== null ? `session:${e.sessionId}` : `event:${e.id}`);

/** The question an action answers: a voter's newer action on the same question replaces the older. */
function questionOf(e: TargetEvent): string | null {
  switch (e.type) {
    case 'correct_label':
      return 'label';
    case 'correct_citation':
      return `citation:${str(e.payload.cited_fragment_id) ?? ''}:${str(e.payload.relation) ?? 'CITES'}`;
    case 'flag_irrelevant':
      return 'irrelevant';
    case 'rate_usefulness':
      return 'usefulness';
    default:
      return null; // flag_missing and add_note accumulate
  }
}

/**
 * Folds a target's label actions into its current state and history.
 *
 * @example
 * targetState('edge_1', [
 *   { id: 'a', type: 'correct_label', payload: { correct_relation: 'SUPPORTS', original_relation: 'NEUTRAL' }, userId: 'u1', ... },
 * ]).label // { value: 'SUPPORTS', original: 'NEUTRAL', voters: 1, humanCorrected: true, confidence: null }
 */
export function targetState(targetId: string, events: readonly TargetEvent[]): TargetState {
  const sorted = [...events].sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime() || (a.id < b.id ? -1 : 1));
  const perVoter = new Map<string, number>();
  const newest = new Map<string, TargetEvent>(); // voter + question -> newest counted event
  const history: TargetHistoryEntry[] = [];
  const decisions = new Map<string, { decision: TargetDecision; reason: string }>();
  const missing: TargetState['missing'] = [];
  const notes: TargetState['notes'] = [];

  for (const e of sorted) {
    const voter = voterOf(e);
    const taken = (perVoter.get(voter) ?? 0) + 1;
    perVoter.set(voter, taken);
    if (taken > TARGET_CAP_PER_VOTER) {
      decisions.set(e.id, { decision: 'capped', reason: `${voter} has taken more than ${TARGET_CAP_PER_VOTER} actions on this target; this one is recorded, not counted` });
      continue;
    }
    const question = questionOf(e);
    if (question !== null) {
      const prior = newest.get(`${voter}\u0000${question}`);
      if (prior) decisions.set(prior.id, { decision: 'superseded', reason: `replaced by the same voter's newer action ${e.id}` });
      newest.set(`${voter}\u0000${question}`, e);
    }
    decisions.set(e.id, { decision: 'applied', reason: 'counted' });
    if (e.type === 'flag_missing') missing.push({ text: str(e.payload.missing_text) ?? '', locationHint: str(e.payload.location_hint), eventId: e.id });
    if (e.type === 'add_note') notes.push({ note: str(e.payload.note) ?? '', eventId: e.id });
  }

  const current = [...newest.values()];
  // Label: most distinct voters wins; a tie goes to the newest vote.
  const labels = current.filter((e) => e.type === 'correct_label');
  const tally = new Map<string, { voters: number; last: TargetEvent }>();
  for (const e of labels) {
    const value = str(e.payload.correct_relation) ?? '';
    const t = tally.get(value);
    tally.set(value, { voters: (t?.voters ?? 0) + 1, last: t && t.last.occurredAt > e.occurredAt ? t.last : e });
  }
  const winner = [...tally].sort(([, a], [, b]) => b.voters - a.voters || b.last.occurredAt.getTime() - a.last.occurredAt.getTime())[0];
  for (const e of labels) {
    if (winner && (str(e.payload.correct_relation) ?? '') !== winner[0]) {
      decisions.set(e.id, { decision: 'outvoted', reason: `${winner[1].voters} voter(s) gave ${winner[0]}` });
    }
  }
  const label = winner
    ? {
        value: winner[0],
        original: str(winner[1].last.payload.original_relation),
        confidence: typeof winner[1].last.payload.confidence === 'number' ? winner[1].last.payload.confidence : null,
        voters: winner[1].voters,
        humanCorrected: true as const,
      }
    : null;

  // Relations: per (fragment, relation), adds against removes among voters' newest; a tie goes to the newest.
  const rel = new Map<string, { citedFragmentId: string; relation: string; adds: number; removes: number; last: TargetEvent }>();
  for (const e of current.filter((x) => x.type === 'correct_citation')) {
    const citedFragmentId = str(e.payload.cited_fragment_id) ?? '';
    const relation = str(e.payload.relation) ?? 'CITES';
    const k = `${citedFragmentId}\u0000${relation}`;
    const r = rel.get(k) ?? { citedFragmentId, relation, adds: 0, removes: 0, last: e };
    if (e.payload.correction_type === 'remove') r.removes += 1;
    else r.adds += 1;
    if (e.occurredAt >= r.last.occurredAt) r.last = e;
    rel.set(k, r);
  }
  const relations = [...rel.values()]
    .filter((r) => r.adds > r.removes || (r.adds === r.removes && r.last.payload.correction_type !== 'remove'))
    .map((r) => ({ citedFragmentId: r.citedFragmentId, relation: r.relation, voters: r.adds }));

  const ratings = current.filter((e) => e.type === 'rate_usefulness').map((e) => Number(e.payload.rating));
  for (const e of sorted) {
    const d = decisions.get(e.id) ?? { decision: 'applied' as const, reason: 'counted' };
    history.push({
      eventId: e.id,
      action: e.type,
      voter: voterOf(e),
      responseId: e.responseId,
      payload: e.payload,
      occurredAt: e.occurredAt.toISOString(),
      decision: d.decision,
      reason: d.reason,
    });
  }
  const last = sorted[sorted.length - 1];
  return {
    targetId,
    label,
    relations,
    flaggedIrrelevant: current.filter((e) => e.type === 'flag_irrelevant').length,
    missing,
    usefulness: ratings.length === 0 ? null : { mean: Math.round((ratings.reduce((s, x) => s + x, 0) / ratings.length) * 100) / 100, count: ratings.length },
    notes,
    history,
    updatedAt: last ? last.occurredAt.toISOString() : null,
  };
}
