/**
 * ADR-0012's training samples from label corrections: `correct_label` events (the seed's
 * `correct_nli`) become NLI samples (premise, hypothesis, label, weight).
 */
import type { ExcludedCounts } from './export-formats.js';
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
 * hypothesis the claim, each taken from the first that has it:
 * 1. the event's `metadata.premise` / `metadata.hypothesis` (the client sent them);
 * 2. the registered targets (`PUT /v1/targets/:id`, MCP `register_target`): an edge's fragment
 *    text and claim text, or a registered fragment's or claim's own text (ADR-0012's
 *    `edge.fragment.text_content` and `edge.claim.text`);
 * 3. the response's answer and query, unless the response is an MCP task placeholder
 *    (`metadata.mcpTask`), whose "MCP task <id>" and empty answer are no texts.
 * A correction left without both texts is not emitted: it is counted in `excluded.missingText`,
 * which the validator reports.
 *
 * @example
 * nliSamples(group) // [{ premise: 'Sales rose 4 %.', hypothesis: 'Did sales rise?', label: 'SUPPORTS', weight: 0.9, … }]
 */
export function nliSamples(group: PromptGroup, excluded?: ExcludedCounts): NliSample[] {
  return group.responses.flatMap(({ response, events }) => {
    const placeholder = response.metadata?.mcpTask === true;
    return events
      .filter((e) => e.type === 'correct_label' && typeof e.payload.correct_relation === 'string')
      .flatMap((e) => {
        const premise = text(e.metadata?.premise) ?? text(e.targetTexts?.premise) ?? (placeholder ? undefined : text(response.answer));
        const hypothesis = text(e.metadata?.hypothesis) ?? text(e.targetTexts?.hypothesis) ?? (placeholder ? undefined : text(response.query));
        if (premise === undefined || hypothesis === undefined) {
          if (excluded) excluded.missingText = (excluded.missingText ?? 0) + 1;
          return [];
        }
        return [
          {
            premise,
            hypothesis,
            label: e.payload.correct_relation as string,
            weight: typeof e.payload.confidence === 'number' ? e.payload.confidence : DEFAULT_NLI_WEIGHT,
            original_label: text(e.payload.original_relation) ?? null,
            target_id: e.targetId,
          },
        ];
      });
  });
}
