/**
 * Anthropic HH-RLHF preference pairs as feedloop records. Each line is `{ chosen, rejected }`,
 * two whole conversations (`\n\nHuman: …\n\nAssistant: …`) that differ in the last assistant
 * turn. Mapping (README, "Importing data"):
 * - the shared conversation before the last `\n\nAssistant: ` (without its leading `\n\n`) is the
 *   query of two responses, `hh-rlhf:<hash>:chosen` and `hh-rlhf:<hash>:rejected`, whose answers
 *   are the two last turns; `<hash>` is of the line's content (the dataset has no ids);
 * - a `correction` of the rejected response with the chosen answer as the corrected text: the
 *   correction rule of the exports (prompt = query, chosen = corrected, rejected = answer)
 *   gives back the original pair, `"\n\n" + prompt + "\n\nAssistant: " + chosen`;
 * - where that cannot be (the two conversations differ earlier, or the chosen answer is empty, which
 *   a correction may not be), a `thumbs_up` on the chosen and a `thumbs_down` on the rejected.
 */
import { createHash } from 'node:crypto';
import type { ImportRecord } from './import-replay.js';
import { readJsonLines } from './read-lines.js';

const LAST_TURN = '\n\nAssistant: ';
const LABELER = 'hh-rlhf:labeler';

/** A conversation split before its last assistant turn. */
export interface SplitConversation {
  /** The conversation before the last assistant turn, without the leading `\n\n`. */
  prompt: string;
  /** The last assistant turn's text. */
  answer: string;
}

/**
 * Splits an HH-RLHF conversation into prompt and last answer; the inverse is
 * {@link joinConversation}.
 *
 * @example
 * splitConversation('\n\nHuman: hi\n\nAssistant: hello') // { prompt: 'Human: hi', answer: 'hello' }
 */
export function splitConversation(text: string): SplitConversation {
  const at = text.lastIndexOf(LAST_TURN);
  if (at < 0) return { prompt: text.replace(/^\n\n/, ''), answer: '' };
  return { prompt: text.slice(0, at).replace(/^\n\n/, ''), answer: text.slice(at + LAST_TURN.length) };
}

/** The HH-RLHF conversation of a prompt and its answer, as the dataset writes it. */
export function joinConversation(prompt: string, answer: string): string {
  return `\n\n${prompt}${LAST_TURN}${answer}`;
}

/** The records of one pair. */
export function hhPairRecords(chosen: string, rejected: string): ImportRecord[] {
  const hash = createHash('sha256').update(chosen).update('\u0000').update(rejected).digest('hex').slice(0, 32);
  const c = splitConversation(chosen);
  const r = splitConversation(rejected);
  const base = `hh-rlhf:${hash}`;
  const response = (role: 'chosen' | 'rejected', s: SplitConversation) => ({
    id: `${base}:${role}`,
    sessionId: base,
    query: s.prompt,
    answer: s.answer,
    agent: 'hh-rlhf',
    metadata: { source: 'hh-rlhf', role },
  });
  if (c.prompt === r.prompt && c.answer !== '') {
    return [
      { response: response('chosen', c), events: [] },
      {
        response: response('rejected', r),
        events: [{ id: `${base}:correction`, responseId: `${base}:rejected`, type: 'correction', userId: LABELER, sessionId: base, payload: { corrected: c.answer, format: 'text' } }],
      },
    ];
  }
  return [
    { response: response('chosen', c), events: [{ id: `${base}:up`, responseId: `${base}:chosen`, type: 'thumbs_up', userId: LABELER, sessionId: base, payload: {} }] },
    { response: response('rejected', r), events: [{ id: `${base}:down`, responseId: `${base}:rejected`, type: 'thumbs_down', userId: LABELER, sessionId: base, payload: {} }] },
  ];
}

/**
 * Reads an HH-RLHF file (`.jsonl` or `.jsonl.gz`) and yields its records.
 *
 * @example
 * for await (const r of readHhRlhf('harmless-base-test.jsonl.gz')) console.log(r.response.id);
 */
export async function* readHhRlhf(path: string): AsyncGenerator<ImportRecord> {
  for await (const { value, line } of readJsonLines(path)) {
    const row = value as { chosen?: unknown; rejected?: unknown };
    if (typeof row.chosen !== 'string' || typeof row.rejected !== 'string') throw new Error(`${path}:${line}: needs "chosen" and "rejected" strings`);
    yield* hhPairRecords(row.chosen, row.rejected);
  }
}
