/**
 * Named scores at ingest (issue 26 §1): each `score` event meets the workspace's config of its
 * name (or its `configId`), is validated against it and mapped to the vote it names (`mapsTo`);
 * a score with no config is stored as given. Runs before consent and the writer, so a refused
 * score stores nothing.
 */
import { mapScore, validateScore, type ErrorBody, type FeedbackEvent, type ScoreConfig } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';
import { scoreConfigsFor } from '../store/score-configs.js';

/** One event after score resolution: the event to write, or why it is refused. */
export type ResolvedEvent = { ok: true; event: FeedbackEvent } | { ok: false; error: ErrorBody };

const scoreInvalid = (field: string, message: string): ResolvedEvent => ({ ok: false, error: { code: 'FEEDLOOP_ERR_SCORE_INVALID', field, message } });

/** The config a score is judged by: its `configId`'s (refused when unknown or archived), else its name's when not archived. */
function configOf(event: Extract<FeedbackEvent, { type: 'score' }>, byName: Map<string, ScoreConfig>, byId: Map<string, ScoreConfig>): ScoreConfig | ResolvedEvent | undefined {
  const { configId, name } = event.payload;
  if (configId !== undefined) {
    const config = byId.get(configId);
    if (!config) return scoreInvalid('payload.configId', `payload.configId: no score config ${JSON.stringify(configId)} in this workspace`);
    if (config.archived) return scoreInvalid('payload.configId', `payload.configId: the score config ${JSON.stringify(config.name)} is archived`);
    return config;
  }
  const config = byName.get(name);
  return config && !config.archived ? config : undefined;
}

/**
 * Validates and maps the batch's `score` events; other events pass as they are, except a vote
 * that carries `payload.score` itself (only feedloop's mapping sets it). One query for the whole
 * batch, and none when it holds no score.
 *
 * @example
 * const [r] = await resolveScores(db, 'ws_1', [{ responseId: 'r1', userId: 'u', type: 'score', payload: { name: 'thumbs', value: 1 } }]);
 * // { ok: true, event: { responseId: 'r1', userId: 'u', type: 'thumbs_up', payload: { score: { name: 'thumbs', value: 1, stringValue: 'true', configId: 'sc_…' } } } }
 */
export async function resolveScores(db: SqlExecutor, workspaceId: string, events: readonly FeedbackEvent[]): Promise<ResolvedEvent[]> {
  const scores = events.flatMap((e) => (e.type === 'score' ? [e] : []));
  const { byName, byId } =
    scores.length === 0
      ? { byName: new Map<string, ScoreConfig>(), byId: new Map<string, ScoreConfig>() }
      : await scoreConfigsFor(
          db,
          workspaceId,
          scores.map((s) => s.payload.name),
          scores.flatMap((s) => (s.payload.configId === undefined ? [] : [s.payload.configId])),
        );
  return events.map((event): ResolvedEvent => {
    if (event.type !== 'score') {
      const carries = (event.type === 'thumbs_up' || event.type === 'thumbs_down' || event.type === 'rating') && event.payload.score !== undefined;
      if (carries) {
        return {
          ok: false,
          error: { code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field: 'payload.score', message: 'payload.score: set by feedloop when it maps a score; send a `score` event instead' },
        };
      }
      return { ok: true, event };
    }
    const config = configOf(event, byName, byId);
    if (config === undefined) return { ok: true, event };
    if ('ok' in config) return config;
    const checked = validateScore(event.payload, config);
    if (!checked.ok) return scoreInvalid(`payload.${checked.error.field ?? 'value'}`, `payload.${checked.error.message}`);
    return { ok: true, event: mapScore({ ...event, payload: checked.payload }, config) };
  });
}
