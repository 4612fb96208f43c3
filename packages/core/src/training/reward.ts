/**
 * The `learning-signals` rows: the pipeline's learning signal of each event (Feedback-and-RLHF's
 * `signal_type`, `input`, `expected_output`, `actual_output`, `reward`, `context`), the same shape
 * per response with its composite score as the reward, and reward-model pairs. Named scores
 * (issue 26) ride in the context: an event's `score`, a response's `scores`.
 */
import { storedScoreOf } from '../scores/score-check.js';
import type { LearningSignal } from '../signals/signal-types.js';
import type { PreferencePair } from './preference.js';
import { corrections, type PromptGroup, type ResponseRecord } from './training-facts.js';

/**
 * The learning signals of a group's events, as the pipeline computed them; an event the pipeline
 * has not processed yet has none.
 *
 * @example
 * eventSignals(group) // [{ signal_type: 'sql_correction', input: 'sales?', …, reward: -0.5, context: {…} }]
 */
export function eventSignals(group: PromptGroup): LearningSignal[] {
  return group.responses.flatMap((facts) =>
    facts.events.flatMap((e) => {
      if (!e.learningSignal) return [];
      // A named score (issue 26) rides in the context: its name, value and label.
      const score = storedScoreOf(e);
      return [score === undefined ? e.learningSignal : { ...e.learningSignal, context: { ...e.learningSignal.context, score } }];
    }),
  );
}

/**
 * One response as a learning signal: `signal_type: 'response'`, its latest correction as
 * `expected_output`, its composite score as `reward`; null when nothing has scored it.
 *
 * @example
 * responseSignal(facts) // { signal_type: 'response', input: 'sales?', expected_output: null, actual_output: '…', reward: 0.8, context: {…} }
 */
export function responseSignal(facts: ResponseRecord): LearningSignal | null {
  const { response, events } = facts;
  if (response.score === null) return null;
  const scores = events.flatMap((e) => storedScoreOf(e) ?? []);
  return {
    signal_type: 'response',
    input: response.query,
    expected_output: corrections(facts)[0]?.corrected ?? null,
    actual_output: response.answer,
    reward: response.score,
    context: {
      response_id: response.id,
      model: response.model,
      agent: response.agent,
      query_type: response.queryType,
      experiment_id: response.experimentId,
      variant: response.variant,
      context_document_ids: response.contextDocumentIds,
      event_count: events.length,
      event_types: [...new Set(events.map((e) => e.type))].sort(),
      // The response's current named scores (issue 26), when it has any.
      ...(scores.length > 0 ? { scores } : {}),
    },
  };
}

/** A reward-model pair: TRL's standard preference row with an optional `margin`. */
export interface RewardPairRow {
  prompt: string;
  chosen: string;
  rejected: string;
  /** The chosen answer's composite score minus the rejected one's, when both are scored. */
  margin?: number;
}

/**
 * A preference pair as a reward-model row; `margin` (TRL's RewardTrainer column) when both
 * answers carry a composite score.
 *
 * @example
 * rewardPairRow({ …, chosenScore: 0.8, rejectedScore: -0.6 }) // { prompt, chosen, rejected, margin: 1.4 }
 */
export function rewardPairRow(pair: PreferencePair): RewardPairRow {
  const row: RewardPairRow = { prompt: pair.prompt, chosen: pair.chosen, rejected: pair.rejected };
  if (pair.chosenScore !== null && pair.rejectedScore !== null) row.margin = Math.round((pair.chosenScore - pair.rejectedScore) * 1e4) / 1e4;
  return row;
}
