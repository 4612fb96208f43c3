/**
 * `feedloop submit`: feedback from a terminal tool (an SQL shell, a code assistant) through the
 * public API: a thumbs vote, a star rating, or a correction read from a file.
 */
import { readFile } from 'node:fs/promises';
import { FeedloopError } from '../errors.js';
import { requestWithRetry, type ApiTarget } from './api-client.js';

/** What to submit, from the command line. */
export interface SubmitOptions {
  responseId: string;
  thumbs?: string;
  rating?: string;
  correctionFile?: string;
  format?: string;
  comment?: string;
  userId?: string;
}

const invalid = (field: string, message: string): FeedloopError => new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', message, { field });

/**
 * Builds the event of a `submit` command: exactly one of `--thumbs up|down`, `--rating 1-5`,
 * `--correction <file>`.
 *
 * @example
 * await submitEvent({ responseId: 'resp-1', thumbs: 'down', comment: 'wrong table' })
 * // { type: 'thumbs_down', responseId: 'resp-1', payload: { comment: 'wrong table' } }
 */
export async function submitEvent(o: SubmitOptions): Promise<Record<string, unknown>> {
  const chosen = [o.thumbs, o.rating, o.correctionFile].filter((v) => v !== undefined).length;
  if (chosen !== 1) throw invalid('type', 'submit needs exactly one of --thumbs up|down, --rating 1-5, --correction <file>');
  const base = { responseId: o.responseId, ...(o.userId ? { userId: o.userId } : {}) };
  const comment = o.comment ? { comment: o.comment } : {};
  if (o.thumbs !== undefined) {
    if (o.thumbs !== 'up' && o.thumbs !== 'down') throw invalid('thumbs', '--thumbs must be up or down');
    return { ...base, type: o.thumbs === 'up' ? 'thumbs_up' : 'thumbs_down', payload: comment };
  }
  if (o.rating !== undefined) {
    const stars = Number(o.rating);
    if (!Number.isInteger(stars) || stars < 1 || stars > 5) throw invalid('rating', '--rating must be a whole number from 1 to 5');
    return { ...base, type: 'rating', payload: { rating: stars, ...comment } };
  }
  let corrected: string;
  try {
    corrected = await readFile(o.correctionFile as string, 'utf8');
  } catch (err) {
    throw invalid('correction', `--correction: cannot read ${o.correctionFile}: ${(err as Error).message}`);
  }
  return { ...base, type: 'correction', payload: { corrected, ...(o.format ? { format: o.format } : {}), ...comment } };
}

/**
 * Submits one event (retrying connection errors, 429 and 5xx) and returns the server's answer.
 *
 * @throws FeedloopError with the server's code when it refuses the event.
 */
export async function submitFeedback(target: ApiTarget, event: Record<string, unknown>): Promise<{ id: string; status: string }> {
  const res = await requestWithRetry(target, 'POST', '/v1/feedback', event);
  const body = (await res.json()) as { id: string; status: string; error?: { code: string; message: string; field?: string } };
  if (res.status !== 202) {
    const e = body.error;
    throw new FeedloopError((e?.code ?? 'FEEDLOOP_ERR_INTERNAL') as never, e?.message ?? `HTTP ${res.status}`, e?.field ? { field: e.field } : {});
  }
  return body;
}
