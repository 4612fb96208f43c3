/**
 * The ingest benchmarks' workload: registered responses and a deterministic mix of feedback
 * events (thumbs, ratings, comments, corrections, implicit accepts) with unique ids.
 */
import { keepAliveAgent, post } from './bench-server.js';

/** A registered response: its id and answer (corrections are measured against the answer). */
export interface ResponseRef {
  id: string;
  answer: string;
}

const WORDS =
  'the answer cites a source about refunds shipping policy account billing invoice order delivery warranty plan upgrade support ticket agent model context window latency'.split(
    ' ',
  );

/** A deterministic answer of about 300-500 characters. */
export function answerText(i: number): string {
  const words: string[] = [];
  let x = (i * 2_654_435_761) >>> 0;
  for (let w = 0; w < 60 + (i % 30); w++) {
    x = (Math.imul(x, 1_103_515_245) + 12_345) >>> 0;
    words.push(WORDS[x % WORDS.length] as string);
  }
  return `${words.join(' ')}.`;
}

/** `count` responses for a batch registration, ids `resp-<runId>-<i>`. */
export function makeResponses(runId: string, count: number): Array<ResponseRef & { query: string; model: string; sessionId: string }> {
  return Array.from({ length: count }, (_, i) => ({
    id: `resp-${runId}-${i}`,
    query: `How do I ${WORDS[i % WORDS.length]} my ${WORDS[(i * 7) % WORDS.length]}? (#${i})`,
    answer: answerText(i),
    model: i % 3 === 0 ? 'gpt-large' : 'gpt-small',
    sessionId: `sess-${i % 97}`,
  }));
}

/** Registers responses through `POST /v1/responses/batch` (1,000 a request); throws unless all are created. */
export async function registerResponses(url: string, key: string, runId: string, count: number): Promise<ResponseRef[]> {
  const all = makeResponses(runId, count);
  const agent = keepAliveAgent(1);
  try {
    for (let at = 0; at < all.length; at += 1_000) {
      const chunk = all.slice(at, at + 1_000);
      const res = await post(agent, url, '/v1/responses/batch', key, JSON.stringify({ responses: chunk }));
      if (res.status !== 207) throw new Error(`registering responses: HTTP ${res.status} ${res.text.slice(0, 500)}`);
      const { results } = JSON.parse(res.text) as { results: Array<{ status: string }> };
      const created = results.filter((r) => r.status === 'created').length;
      if (created !== chunk.length) throw new Error(`registering responses: ${created} of ${chunk.length} created: ${res.text.slice(0, 500)}`);
    }
  } finally {
    agent.destroy();
  }
  return all.map(({ id, answer }) => ({ id, answer }));
}

/** Users the events are spread over. */
export const USERS = 100_000;

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * The response of event number `g`: every (user, response) pair occurs at most once among the
 * first USERS × responses events, so no event is a content duplicate of another (all accepted).
 */
export function pairOf(g: number, responseCount: number): { user: number; response: number } {
  if (gcd(USERS + 1, responseCount) !== 1) throw new Error(`response count ${responseCount} must be coprime with ${USERS + 1}`);
  const user = g % USERS;
  const response = (Math.floor(g / USERS) + g) % responseCount;
  return { user, response };
}

const mix = (g: number): number => (Math.imul(g ^ (g >>> 16), 0x45d9f3b) >>> 0) % 100;

/** One event as a client sends it. */
export type WireEvent = Record<string, unknown> & { id: string; responseId: string; type: string; payload: Record<string, unknown> };

/**
 * Event number `g` of a run: 30 % thumbs up, 15 % thumbs down, 25 % ratings (half with an
 * aspect), 20 % comments, 5 % corrections (against the response's answer), 5 % implicit accepts;
 * unique id, users spread over {@link USERS}, session ids, some metadata and client timestamps.
 */
export function makeEvent(g: number, runId: string, responses: readonly ResponseRef[], occurredAt: string): WireEvent {
  const { user, response } = pairOf(g, responses.length);
  const r = responses[response] as ResponseRef;
  const m = mix(g);
  const base = {
    id: `ev-${runId}-${g}`,
    responseId: r.id,
    userId: `user-${user}`,
    ...(g % 4 === 0 ? { sessionId: `sess-${user % 5_000}` } : {}),
    ...(g % 2 === 0 ? { occurredAt } : {}),
    ...(g % 5 === 0 ? { metadata: { page: '/chat', client: g % 10 === 0 ? 'web' : 'ios' } } : {}),
  };
  if (m < 30) return { ...base, type: 'thumbs_up', payload: g % 7 === 0 ? { category: 'accuracy' } : {} };
  if (m < 45) return { ...base, type: 'thumbs_down', payload: { comment: `not helpful (${g % 13})`, category: 'relevance' } };
  if (m < 70) return { ...base, type: 'rating', payload: { rating: 1 + (g % 5), ...(g % 2 ? { aspect: 'clarity' } : {}) } };
  if (m < 90) {
    return { ...base, type: 'comment', payload: { comment: `The answer about ${WORDS[g % WORDS.length]} missed the part on ${WORDS[(g >> 3) % WORDS.length]}.` } };
  }
  if (m < 95) {
    const words = r.answer.split(' ');
    const at = g % Math.max(1, words.length - 8);
    words.splice(at, 4, 'actually', 'the', 'refund', 'window', 'is', '30', 'days');
    return { ...base, type: 'correction', payload: { corrected: words.join(' '), format: 'text' } };
  }
  return { ...base, type: 'implicit_accept', payload: { action: g % 2 ? 'copied' : 'shared' } };
}
