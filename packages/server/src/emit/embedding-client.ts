/**
 * The operator's embedding endpoint (`FEEDLOOP_EMBEDDING_URL`, off by default), the hook for
 * clustering rising themes semantically: one POST per report with the distinct phrases,
 * `{ "input": ["too slow", ...] }`, answered `{ "embeddings": [[...], ...] }` or, as OpenAI's API
 * answers, `{ "data": [{ "embedding": [...] }, ...] }`, in the same order. Operator-configured, so
 * no address check as for webhooks; bounded in time and size.
 */

/** The longest the report waits for the endpoint. */
export const EMBEDDING_TIMEOUT_MS = 5_000;
/** Phrases sent at most (the most said first). */
export const EMBEDDING_MAX_PHRASES = 2_000;

/**
 * Embeds phrases through the endpoint.
 *
 * @throws Error when the endpoint fails, times out or answers another shape (the caller falls back
 * to lexical themes and says so).
 * @example
 * const vectors = await embedPhrases('http://127.0.0.1:9000/embed', ['too slow', 'sluggish response']);
 */
export async function embedPhrases(url: string, phrases: readonly string[], timeoutMs = EMBEDDING_TIMEOUT_MS): Promise<Map<string, number[]>> {
  const input = phrases.slice(0, EMBEDDING_MAX_PHRASES);
  if (input.length === 0) return new Map();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!res.ok) throw new Error(`the embedding endpoint answered ${res.status}`);
  const body = (await res.json()) as { embeddings?: unknown; data?: Array<{ embedding?: unknown }> };
  const vectors = Array.isArray(body.embeddings) ? body.embeddings : Array.isArray(body.data) ? body.data.map((d) => d.embedding) : undefined;
  if (!vectors || vectors.length !== input.length || !vectors.every((v) => Array.isArray(v) && v.every((x) => typeof x === 'number' && Number.isFinite(x)))) {
    throw new Error('the embedding endpoint answered no list of numeric vectors, one per phrase');
  }
  return new Map(input.map((p, i) => [p, vectors[i] as number[]]));
}
