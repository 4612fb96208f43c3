/**
 * ADR-0012's training samples from label corrections: `correct_label` events (the seed's
 * `correct_nli`) become NLI samples (premise, hypothesis, label, weight).
 */
import type { PromptGroup } from './training-facts.js';

/** ADR-0012's sample weight when the correction gives no confidence. */
export const DEFAULT_NLI_WEIGHT = 0.9;

/** An `nli` row. */
export interface NliSample {
  premise: string;
  hypothesis: string;
  /** The corrected relation (`correct_relation`). */
  label: string;
  /** The corrector's confidence, {@link DEFAULT_NLI_WEIGHT} when not given. */
  weight: number;
  /** The relation the correction replaced, when the event named it. */
  original_label: string | null;
  /** The labelled part of the response (fragment, edge, page). */
  target_id: string | null;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * The NLI samples of a group. The premise is the text the relation was drawn from and the
 * hypothesis the claim: the event's `metadata.premise` and `metadata.hypothesis` when the client
 * sent them (ADR-0012's fragment text and claim), else the response's answer and query.
 *
 * @example
 * nliSamples(group) // [{ premise: 'Sales rose 4 %.', hypothesis: 'Did sales rise?', label: 'SUPPORTS', weight: 0.9, … }]
 */
export function nliSamples(group: PromptGroup): NliSample[] {
  return group.responses.flatMap(({ response, events }) =>
    events
      .filter((e) => e.type === 'correct_label' && typeof e.payload.correct_relation === 'string')
      .map((e) => ({
        premise: text(e.metadata?.premise) ?? response.answer,
        hypothesis: text(e.metadata?.hypothesis) ?? response.query,
        label: e.payload.correct_relation as string,
        weight: typeof e.payload.confidence === 'number' ? e.payload.confidence : DEFAULT_NLI_WEIGHT,
        original_label: text(e.payload.original_relation) ?? null,
        target_id: e.targetId,
      })),
  );
}
