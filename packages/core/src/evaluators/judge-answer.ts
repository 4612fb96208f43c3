/**
 * What an evaluator's endpoint answers, read into the feedback event it becomes (issue 28):
 * `{ thumbs | rating | score | preferred, label?, rationale? }`. Pure; the dispatcher calls it on
 * the parsed body of a 2xx answer and writes the event through the ingest path.
 *
 * @module
 */
import { LIMITS } from '../limits.js';
import type { EvaluatorKind, EvaluatorOutput } from './evaluator-definition.js';

/** The tie a pairwise judge may answer, as reviewers do. */
const TIE = 'tie';

/** The event part of an answer: type and payload; `label` and `rationale` go to the event's metadata. */
export interface JudgeEventPart {
  type: 'thumbs_up' | 'thumbs_down' | 'rating' | 'score' | 'preference';
  payload: Record<string, unknown>;
  label?: string;
  rationale?: string;
}

/** An answer read, or why it is not one (the message names the field). */
export type ReadAnswer = { ok: true; part: JudgeEventPart } | { ok: false; message: string };

/** What the reader needs of the evaluator and the item. */
export interface AnswerContext {
  kind: EvaluatorKind;
  output: EvaluatorOutput;
  /** The score's name (the evaluator's name) and config, for `output: score`. */
  scoreName: string;
  scoreConfigId: string | null;
  /** Pairwise: the item's two response ids, in the order sent. */
  pair?: readonly [string, string];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The optional label and rationale, bounded as event labels and comments are. */
function extras(body: Record<string, unknown>): { ok: true; label?: string; rationale?: string } | { ok: false; message: string } {
  const { label, rationale } = body;
  if (label !== undefined && (typeof label !== 'string' || label.length === 0 || label.length > LIMITS.labelMaxLength)) {
    return { ok: false, message: `label: a string of 1-${LIMITS.labelMaxLength} characters` };
  }
  if (rationale !== undefined && (typeof rationale !== 'string' || rationale.length > LIMITS.commentMaxLength)) {
    return { ok: false, message: `rationale: a string of at most ${LIMITS.commentMaxLength} characters` };
  }
  return { ok: true, ...(label === undefined ? {} : { label }), ...(rationale === undefined ? {} : { rationale }) };
}

/** The answer's own field, read for the evaluator's output. */
function pointwisePart(body: Record<string, unknown>, ctx: AnswerContext): Omit<JudgeEventPart, 'label' | 'rationale'> | string {
  if (ctx.output === 'thumbs') {
    const t = body['thumbs'];
    if (t === 'up' || t === true) return { type: 'thumbs_up', payload: {} };
    if (t === 'down' || t === false) return { type: 'thumbs_down', payload: {} };
    return 'thumbs: "up" or "down" (or true/false)';
  }
  if (ctx.output === 'rating') {
    const r = body['rating'];
    if (typeof r === 'number' && Number.isInteger(r) && r >= 1 && r <= 5) return { type: 'rating', payload: { rating: r } };
    return 'rating: an integer 1-5';
  }
  const s = body['score'];
  if (typeof s !== 'number' || !Number.isFinite(s)) return 'score: a finite number';
  return { type: 'score', payload: { name: ctx.scoreName.slice(0, LIMITS.labelMaxLength), value: s, ...(ctx.scoreConfigId === null ? {} : { configId: ctx.scoreConfigId }) } };
}

/**
 * Reads a judge's answer into its event part. Pairwise answers name the preferred response by id,
 * or `"tie"`, never by position (as reviews do); the preference names the pair in the order sent.
 *
 * @example
 * readJudgeAnswer({ thumbs: 'down', rationale: 'cites nothing' }, { kind: 'pointwise', output: 'thumbs', scoreName: 'j', scoreConfigId: null })
 * // { ok: true, part: { type: 'thumbs_down', payload: {}, rationale: 'cites nothing' } }
 * readJudgeAnswer({ preferred: 'r2' }, { kind: 'pairwise', output: 'thumbs', scoreName: 'j', scoreConfigId: null, pair: ['r1', 'r2'] })
 * // { ok: true, part: { type: 'preference', payload: { pair: ['r1', 'r2'], preferred: 'r2', shown: ['r1', 'r2'] } } }
 */
export function readJudgeAnswer(body: unknown, ctx: AnswerContext): ReadAnswer {
  if (!isRecord(body)) return { ok: false, message: 'the answer is not a JSON object' };
  const more = extras(body);
  if (!more.ok) return more;
  const { ok: _ok, ...labels } = more;
  if (ctx.kind === 'pairwise') {
    const pair = ctx.pair;
    if (!pair) return { ok: false, message: 'a pairwise call without its pair' };
    const p = body['preferred'];
    if (p !== TIE && p !== pair[0] && p !== pair[1]) return { ok: false, message: `preferred: one of ${JSON.stringify(pair[0])}, ${JSON.stringify(pair[1])} or "tie"` };
    return { ok: true, part: { type: 'preference', payload: { pair: [pair[0], pair[1]], preferred: p, shown: [pair[0], pair[1]] }, ...labels } };
  }
  const part = pointwisePart(body, ctx);
  if (typeof part === 'string') return { ok: false, message: part };
  return { ok: true, part: { ...part, ...labels } };
}

/**
 * The id of the event a call's answer becomes: the same on every attempt of the call, so an
 * answer written twice (a crash between the write and its record) is a duplicate, not a second vote.
 *
 * @example
 * judgeEventId('ev_01', 42) // 'jd:ev_01:42'
 */
export function judgeEventId(evaluatorId: string, callId: number): string {
  return `jd:${evaluatorId}:${callId}`;
}
