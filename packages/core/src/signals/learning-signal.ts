/**
 * The learning signal stage: one event as a training example in the Feedback-and-RLHF seed's
 * shape (`signal_type`, `input`, `expected_output`, `actual_output`, `reward`, `context`), ready for
 * a fine-tuning or evaluation pipeline.
 */
import { correctedPair } from '../corrected-pair.js';
import type { Classification, EnrichedEvent, LearningSignal } from './signal-types.js';

/** Decimal places kept in a reward: more is noise from the arithmetic, not signal. */
const REWARD_DECIMALS = 4;
const REWARD_SCALE = 10 ** REWARD_DECIMALS;

/** The seed's `context`, snake_case like the seed; absent values stay as null so every key is always there. */
export interface LearningSignalContext {
  workspace_id: string;
  response_id: string;
  event_id: string;
  event_type: string;
  session_id: string | null;
  user_id: string | null;
  model: string | null;
  agent: string | null;
  query_type: string | null;
  experiment_id: string | null;
  variant: string | null;
  context_document_ids: string[];
  polarity: string;
  severity: string;
  categories: string[];
  /**
   * The RLHF seed's `schema_tables`: the tables the SQL answer or correction touches, lower case.
   * Empty here; the pipeline fills it in after the stages (it parses SQL with the grammars it
   * loads for correction insights, pipeline/signal-schema-tables.ts).
   */
  schema_tables: string[];
  /**
   * The RLHF seed's `tenant_id`: the event's `metadata.tenant_id` (where the seed's endpoints keep
   * the body's `tenant_id`; any client may send it there); null without one. The API key, not
   * this field, decides the workspace.
   */
  tenant_id: string | null;
}

const tenantOf = (metadata: Record<string, unknown> | null | undefined): string | null =>
  typeof metadata?.tenant_id === 'string' && metadata.tenant_id !== '' ? metadata.tenant_id : null;

/** The reward, rounded to {@link REWARD_DECIMALS} places, never -0. */
function roundReward(value: number): number {
  const rounded = Math.round(value * REWARD_SCALE) / REWARD_SCALE;
  return Object.is(rounded, -0) ? 0 : rounded;
}

/** The parts that depend on the event type: what was wanted and what was given. */
function outputs(enriched: EnrichedEvent): Pick<LearningSignal, 'signal_type' | 'expected_output' | 'actual_output'> {
  const { event, response } = enriched;
  const pair = correctedPair(event, response.answer);
  // The seed's 'sql_correction' generalises to '<format>_correction'; a correction without a format is text.
  if (pair) return { signal_type: event.type === 'correction' ? `${event.payload.format ?? 'text'}_correction` : 'edit', expected_output: pair.corrected, actual_output: pair.original };
  // A retry's rephrased question is a new input, not a better output for this one: no expected output.
  return { signal_type: event.type, expected_output: null, actual_output: response.answer };
}

/**
 * One event as a learning signal: the response's question as `input`, the answer as
 * `actual_output` (the original text when a correction or edit names one), the user's fixed text
 * as `expected_output` for corrections and edits, and the classification's value as `reward`.
 * `context` carries the ids and response metadata a training job slices by.
 *
 * @example
 * learningSignal(enrich(sqlCorrection, response), classify(...))
 * // { signal_type: 'sql_correction', input: 'What were sales last month?',
 * //   expected_output: "SELECT * FROM sales WHERE region = 'US'", actual_output: 'SELECT * FROM sales',
 * //   reward: -0.5, context: { workspace_id: 'ws-1', response_id: 'resp-001', ... } }
 */
export function learningSignal(enriched: EnrichedEvent, classification: Classification): LearningSignal {
  const { event, response } = enriched;
  const context: LearningSignalContext = {
    workspace_id: event.workspaceId,
    response_id: response.id,
    event_id: event.id,
    event_type: event.type,
    session_id: enriched.sessionId,
    user_id: enriched.userId,
    model: response.model,
    agent: response.agent,
    query_type: response.queryType,
    experiment_id: response.experimentId,
    variant: response.variant,
    context_document_ids: [...response.contextDocumentIds],
    polarity: classification.polarity,
    severity: classification.severity,
    categories: [...classification.categories],
    schema_tables: [],
    tenant_id: tenantOf(event.metadata),
  };
  const { signal_type, expected_output, actual_output } = outputs(enriched);
  // Keys in the seed's order, so serialised signals read like its example.
  return { signal_type, input: response.query, expected_output, actual_output, reward: roundReward(classification.value), context: { ...context } };
}
