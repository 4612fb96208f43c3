/**
 * A `score` event against its config: validated (`FEEDLOOP_ERR_SCORE_INVALID`, naming `value` or
 * `stringValue`), completed (a categorical score gets both its value and its label, a boolean
 * one both 1/0 and `true`/`false`) and mapped to the vote its config names (`mapsTo`). Pure.
 */
import type { ErrorBody } from '../error-codes.js';
import type { FeedbackPayload } from '../event-payloads.js';
import type { FeedbackEvent } from '../event-schema.js';
import type { ScoreConfig } from './score-config.js';

/** A score's payload, as the `score` event carries it. */
export type ScorePayload = FeedbackPayload<'score'>;

/** A `score` event. */
export type ScoreEvent = Extract<FeedbackEvent, { type: 'score' }>;

/** A score judged against its config: the completed payload, or why it is refused. */
export type ScoreCheck = { ok: true; payload: ScorePayload } | { ok: false; error: ErrorBody };

const invalid = (field: 'value' | 'stringValue' | 'configId', message: string): ScoreCheck => ({
  ok: false,
  error: { code: 'FEEDLOOP_ERR_SCORE_INVALID', field, message: `${field}: ${message}` },
});

const BOOLEAN_STRINGS: Readonly<Record<string, 0 | 1>> = { true: 1, false: 0 };

/**
 * Validates a score against its config and completes it. The error's `field` is the score's own
 * field (`value`, `stringValue`); callers that hold the payload deeper prefix it.
 *
 * @example
 * validateScore({ name: 'thumbs', value: 1 }, thumbsConfig) // { ok: true, payload: { name: 'thumbs', value: 1, stringValue: 'true', configId: 'sc_…' } }
 * validateScore({ name: 'tone', value: 7 }, { dataType: 'numeric', max: 5, … }) // { ok: false, error: { code: 'FEEDLOOP_ERR_SCORE_INVALID', field: 'value', … } }
 */
export function validateScore(score: ScorePayload, config: ScoreConfig): ScoreCheck {
  if (score.configId !== undefined && score.configId !== config.id) return invalid('configId', `not the config of score ${JSON.stringify(score.name)}`);
  const done = (payload: Omit<ScorePayload, 'configId' | 'name' | 'comment'>): ScoreCheck => ({
    ok: true,
    payload: { name: score.name, ...payload, configId: config.id, ...(score.comment !== undefined ? { comment: score.comment } : {}) },
  });
  switch (config.dataType) {
    case 'numeric': {
      if (score.value === undefined) return invalid('value', `required: ${JSON.stringify(config.name)} is a numeric score`);
      if (score.stringValue !== undefined) return invalid('stringValue', `not allowed: ${JSON.stringify(config.name)} is a numeric score`);
      if (config.min !== undefined && score.value < config.min) return invalid('value', `${score.value} is below the minimum ${config.min} of ${JSON.stringify(config.name)}`);
      if (config.max !== undefined && score.value > config.max) return invalid('value', `${score.value} is above the maximum ${config.max} of ${JSON.stringify(config.name)}`);
      if (config.mapsTo === 'rating' && !Number.isInteger(score.value)) return invalid('value', `${JSON.stringify(config.name)} is a 1-5 rating: a whole number`);
      return done({ value: score.value });
    }
    case 'boolean': {
      const fromString = score.stringValue === undefined ? undefined : BOOLEAN_STRINGS[score.stringValue.toLowerCase()];
      if (score.stringValue !== undefined && fromString === undefined) return invalid('stringValue', `${JSON.stringify(config.name)} is a boolean score: "true" or "false"`);
      if (score.value !== undefined && score.value !== 0 && score.value !== 1) return invalid('value', `${JSON.stringify(config.name)} is a boolean score: 1 or 0`);
      if (score.value !== undefined && fromString !== undefined && score.value !== fromString) return invalid('stringValue', 'disagrees with value');
      const value = score.value ?? (fromString as 0 | 1);
      return done({ value, stringValue: value === 1 ? 'true' : 'false' });
    }
    case 'categorical': {
      const categories = config.categories ?? [];
      const byLabel = score.stringValue === undefined ? undefined : categories.find((c) => c.label === score.stringValue);
      if (score.stringValue !== undefined && byLabel === undefined) return invalid('stringValue', `not a category of ${JSON.stringify(config.name)} (${categories.map((c) => JSON.stringify(c.label)).join(', ')})`);
      const byValue = score.value === undefined ? undefined : categories.find((c) => c.value === score.value);
      if (score.value !== undefined && byValue === undefined) return invalid('value', `not a category value of ${JSON.stringify(config.name)}`);
      if (byLabel !== undefined && byValue !== undefined && byLabel !== byValue) return invalid('stringValue', 'disagrees with value');
      const found = (byLabel ?? byValue) as { value: number; label: string };
      return done({ value: found.value, stringValue: found.label });
    }
  }
}

/**
 * The event a score becomes under its config: with `mapsTo: "thumbs"`, a `thumbs_up` (1) or
 * `thumbs_down` (0); with `mapsTo: "rating"`, a `rating` (its stars the value; its aspect the
 * score's name, unless the name is `rating`, so each rated dimension is a vote slot of its own);
 * else the score itself. A mapped vote keeps the score in `payload.score`, and the comment.
 * The score must have passed {@link validateScore} against the same config.
 *
 * @example
 * mapScore({ responseId: 'r', userId: 'u', type: 'score', payload: { name: 'thumbs', value: 0, stringValue: 'false', configId: 'sc_1' } }, thumbsConfig)
 * // { responseId: 'r', userId: 'u', type: 'thumbs_down', payload: { score: { name: 'thumbs', value: 0, stringValue: 'false', configId: 'sc_1' } } }
 */
export function mapScore(event: ScoreEvent, config: ScoreConfig): FeedbackEvent {
  const { payload, type: _type, source, ...rest } = event;
  // A reviewer's or a judge's score stays theirs once mapped: only a user source is re-derived.
  const envelope = source === 'review' || source === 'judge' ? { ...rest, source } : rest;
  const { comment, ...score } = payload;
  const withComment = comment === undefined ? {} : { comment };
  if (config.mapsTo === 'thumbs') {
    return { ...envelope, type: score.value === 1 ? 'thumbs_up' : 'thumbs_down', payload: { ...withComment, score } };
  }
  if (config.mapsTo === 'rating' && score.value !== undefined) {
    const aspect = score.name === 'rating' ? {} : { aspect: score.name };
    return { ...envelope, type: 'rating', payload: { rating: score.value, ...aspect, ...withComment, score } };
  }
  return { ...event, payload };
}

/**
 * The named score an event carries: a `score` event's own, or the one a mapped vote was made
 * from; `undefined` for other events.
 *
 * @example
 * scoreOf({ type: 'thumbs_up', payload: { score: { name: 'user_score', value: 1 } }, … }) // { name: 'user_score', value: 1 }
 * scoreOf({ type: 'thumbs_up', payload: {}, … }) // undefined
 */
export function scoreOf(event: { [T in FeedbackEvent['type']]: Pick<Extract<FeedbackEvent, { type: T }>, 'type' | 'payload'> }[FeedbackEvent['type']]): { name: string; value?: number; stringValue?: string; configId?: string } | undefined {
  if (event.type === 'score') {
    const { comment: _comment, ...score } = event.payload;
    return score;
  }
  if (event.type === 'thumbs_up' || event.type === 'thumbs_down' || event.type === 'rating') return event.payload.score;
  return undefined;
}

/**
 * {@link scoreOf} for an event read back from storage, whose type and payload are not narrowed
 * (exports, reads): the score it carries, or `undefined`.
 *
 * @example
 * storedScoreOf({ type: 'score', payload: { name: 'tone', value: 1, stringValue: 'polite' } }) // { name: 'tone', value: 1, stringValue: 'polite' }
 */
export function storedScoreOf(event: { type: string; payload: unknown }): { name: string; value?: number; stringValue?: string } | undefined {
  const payload = event.payload as Record<string, unknown> | null;
  if (payload === null || typeof payload !== 'object') return undefined;
  const raw = (event.type === 'score' ? payload : payload.score) as Record<string, unknown> | undefined;
  if (raw === undefined || raw === null || typeof raw !== 'object' || typeof raw.name !== 'string') return undefined;
  return {
    name: raw.name,
    ...(typeof raw.value === 'number' ? { value: raw.value } : {}),
    ...(typeof raw.stringValue === 'string' ? { stringValue: raw.stringValue } : {}),
  };
}
