/**
 * The one rule of what a correction or an edit revises: the text being corrected is the event's
 * own `original` when it names one, else its response's answer (issue 25: one owner for the rule
 * that edit distances, learning signals, training rows and insights all follow).
 */
import type { FeedbackEvent } from './event-schema.js';

/** What a correction or an edit revises (`original`) and what it becomes (`corrected`). */
export interface CorrectedPair {
  original: string;
  corrected: string;
}

/** The part of an event the rule reads (an event, or a stored row's type and payload), type by type. */
export type RevisingEvent = FeedbackEvent extends infer E ? (E extends FeedbackEvent ? Pick<E, 'type' | 'payload'> : never) : never;

/**
 * The texts a correction or an edit carries: its own `original` (undefined when it names none:
 * the response's answer then) and the revised text; undefined for every other event type.
 *
 * @example
 * revisionOf({ type: 'edit', payload: { edited: 'Hi' } }) // { original: undefined, revised: 'Hi' }
 */
export function revisionOf(event: RevisingEvent): { original: string | undefined; revised: string } | undefined {
  if (event.type === 'correction') return { original: event.payload.original, revised: event.payload.corrected };
  if (event.type === 'edit') return { original: event.payload.original, revised: event.payload.edited };
  return undefined;
}

/**
 * The corrected pair of a correction or an edit: the original is the event's own, else `answer`
 * (its response's); undefined for other event types, or when neither text is known.
 *
 * @example
 * correctedPair({ type: 'correction', payload: { corrected: 'SELECT 2' } }, 'SELECT 1')
 * // { original: 'SELECT 1', corrected: 'SELECT 2' }
 */
export function correctedPair(event: RevisingEvent, answer: string | null | undefined): CorrectedPair | undefined {
  const revision = revisionOf(event);
  const original = revision?.original ?? answer ?? undefined;
  return revision === undefined || original === undefined ? undefined : { original, corrected: revision.revised };
}

/**
 * {@link correctedPair} of a stored correction, its payload as read back from JSON: the rule
 * for rows of the database (training rows, insights), whose texts are checked to be strings.
 *
 * @example
 * storedCorrectionPair({ corrected: 'SELECT 2' }, 'SELECT 1') // { original: 'SELECT 1', corrected: 'SELECT 2' }
 */
export function storedCorrectionPair(payload: Readonly<Record<string, unknown>>, answer: string | null | undefined): CorrectedPair | undefined {
  const { corrected, original } = payload;
  if (typeof corrected !== 'string') return undefined;
  return correctedPair({ type: 'correction', payload: { corrected, ...(typeof original === 'string' ? { original } : {}) } }, answer);
}
