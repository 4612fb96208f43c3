/**
 * Preference pairs from `preference` events: a user's "which answer do you prefer", a reviewer's
 * pairwise verdict (issue 27), an evaluator's (issue 28). Each pair of responses gets at most one
 * line: the majority of its voters' current verdicts, ties left out.
 */
import { PREFERENCE_TIE } from '../event-payloads.js';
import type { ExcludedCounts } from './export-formats.js';
import { sameText, type ExportEvent, type PromptGroup, type ResponseRecord } from './training-facts.js';

/** One pair's verdict from its voters. */
export interface PreferenceTally {
  /** The two response ids, in code-unit order. */
  pair: [string, string];
  /** Current votes for each of `pair`, and ties. */
  votes: [number, number];
  ties: number;
  /** The majority's response, or `null`: every vote a tie, or as many for each side. */
  winner: string | null;
  /** The sources that voted, in code-unit order (`explicit`, `review`, `judge`). */
  sources: string[];
}

/** Who a preference counts as: an evaluator, a reviewer, a user or session, else the event alone. */
function voterOf(event: ExportEvent): string {
  const source = event.source ?? 'explicit';
  const evaluator = event.metadata?.['evaluatorId'];
  if (source === 'judge' && typeof evaluator === 'string') return `judge:${evaluator}`;
  return event.userId !== null ? `${source}:user:${event.userId}` : `${source}:event:${event.id}`;
}

function pairOf(event: ExportEvent): [string, string] | undefined {
  const pair = event.payload['pair'];
  if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string' || pair[0] === pair[1]) return undefined;
  return pair[0] < pair[1] ? [pair[0], pair[1]] : [pair[1], pair[0]];
}

/**
 * Tallies preference events per pair: each voter's newest verdict on the pair counts once (a user
 * who changed their mind, a judge that re-judged), then the side with more votes wins; ties never
 * count for a side, and a pair with only ties or with as many votes for each side has no winner.
 *
 * @example
 * tallyPreferences([prefA('ann'), prefA('bob'), prefB('cy'), tie('dee')])
 * // [{ pair: ['a', 'b'], votes: [2, 1], ties: 1, winner: 'a', sources: ['explicit'] }]
 */
export function tallyPreferences(events: readonly ExportEvent[]): PreferenceTally[] {
  const latest = new Map<string, Map<string, ExportEvent>>();
  for (const event of events) {
    if (event.type !== 'preference') continue;
    const pair = pairOf(event);
    if (!pair) continue;
    const key = JSON.stringify(pair);
    const voters = latest.get(key) ?? new Map<string, ExportEvent>();
    latest.set(key, voters);
    const voter = voterOf(event);
    const seen = voters.get(voter);
    if (!seen || event.occurredAt.getTime() > seen.occurredAt.getTime() || (event.occurredAt.getTime() === seen.occurredAt.getTime() && event.id > seen.id)) voters.set(voter, event);
  }
  return [...latest.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, voters]) => {
      const pair = JSON.parse(key) as [string, string];
      const votes: [number, number] = [0, 0];
      let ties = 0;
      const sources = new Set<string>();
      for (const e of voters.values()) {
        sources.add(e.source ?? 'explicit');
        const preferred = e.payload['preferred'];
        if (preferred === PREFERENCE_TIE) ties++;
        else if (preferred === pair[0]) votes[0]++;
        else if (preferred === pair[1]) votes[1]++;
      }
      const winner = votes[0] > votes[1] ? pair[0] : votes[1] > votes[0] ? pair[1] : null;
      return { pair, votes, ties, winner, sources: [...sources].sort() };
    });
}

/** One preference pair from votes, before it is written in a format. */
export interface VotedPair {
  prompt: string;
  chosen: string;
  rejected: string;
  /** `review` when reviewers alone voted, else `preference`. */
  source: 'preference' | 'review';
  chosenScore: number | null;
  rejectedScore: number | null;
}

/**
 * The pairs a prompt group's `preference` events make: per pair of its responses, chosen = the
 * majority's answer, rejected = the other's, the prompt their shared query. A pair whose other
 * response is in another prompt group (they answer different queries) makes no line; neither does
 * one with no majority, nor one of two equal texts. Each is counted in `excluded`. Reviewed pairs
 * come first.
 *
 * @example
 * votedPairs(group, tally.excluded) // [{ prompt: 'reset password?', chosen: 'Click …', rejected: 'Ask an admin.', source: 'review', … }]
 */
export function votedPairs(group: PromptGroup, excluded: ExcludedCounts): VotedPair[] {
  const byId = new Map<string, ResponseRecord>(group.responses.map((r) => [r.response.id, r]));
  const pairs: VotedPair[] = [];
  for (const t of tallyPreferences(group.responses.flatMap((r) => r.events))) {
    const [a, b] = [byId.get(t.pair[0]), byId.get(t.pair[1])];
    if (!a || !b) {
      excluded.preferenceOtherPrompt = (excluded.preferenceOtherPrompt ?? 0) + 1;
      continue;
    }
    if (t.winner === null) {
      if (t.votes[0] + t.votes[1] === 0) excluded.preferenceTie = (excluded.preferenceTie ?? 0) + 1;
      else excluded.preferenceNoMajority = (excluded.preferenceNoMajority ?? 0) + 1;
      continue;
    }
    const [chosen, rejected] = t.winner === a.response.id ? [a, b] : [b, a];
    if (sameText(chosen.response.answer, rejected.response.answer)) {
      excluded.tie++;
      excluded.sameText = (excluded.sameText ?? 0) + 1;
      continue;
    }
    pairs.push({
      prompt: chosen.response.query,
      chosen: chosen.response.answer,
      rejected: rejected.response.answer,
      source: t.sources.length === 1 && t.sources[0] === 'review' ? 'review' : 'preference',
      chosenScore: chosen.response.score,
      rejectedScore: rejected.response.score,
    });
  }
  return pairs.sort((x, y) => Number(y.source === 'review') - Number(x.source === 'review'));
}
