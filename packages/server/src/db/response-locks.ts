/**
 * Advisory locks on buckets of responses: how writers in several processes serialize on the
 * same responses without locking rows. One lock per response bucket; hashing into
 * {@link LOCK_BUCKETS} buckets bounds the locks a transaction holds (Postgres' shared lock table
 * is small: one lock per content key made 1,000-event flushes fail with "out of shared memory").
 * A collision only means waiting. Buckets are taken in ascending order, so writers never
 * deadlock. The numbers are computed here, so the statement needs no parameters and can travel
 * with `BEGIN`.
 */

const LOCK_BUCKETS = 1_024;

/** Lock classes (the first key of a two-key advisory lock): one per kind of writer. */
export const LOCK_CLASSES = {
  /** Ingest: the duplicate and vote checks of concurrent inserts. */
  ingest: 72_635,
} as const;

/**
 * The lock buckets of these responses, ascending (the order every writer takes them in).
 *
 * @example
 * responseLockBuckets([{ workspaceId: 'ws', responseId: 'r1' }]) // [417]
 */
export function responseLockBuckets(responses: Iterable<{ workspaceId: string; responseId: string }>): number[] {
  const buckets = new Set<number>();
  for (const r of responses) buckets.add(fnv1a(`${r.workspaceId}\u0000${r.responseId}`) % LOCK_BUCKETS);
  return [...buckets].sort((a, b) => a - b);
}

/**
 * The statement taking the locks of these responses, or `undefined` when there are none.
 *
 * @example
 * responseLockStatement(LOCK_CLASSES.ingest, [{ workspaceId: 'ws', responseId: 'r1' }])
 * // 'SELECT count(pg_advisory_xact_lock(72635, b)) FROM unnest(ARRAY[417]::int[]) AS b'
 */
export function responseLockStatement(
  lockClass: number,
  responses: Iterable<{ workspaceId: string; responseId: string }>,
): string | undefined {
  const sorted = responseLockBuckets(responses);
  if (sorted.length === 0) return undefined;
  return `SELECT count(pg_advisory_xact_lock(${lockClass}, b)) FROM unnest(ARRAY[${sorted.join(',')}]::int[]) AS b`;
}

/** 32-bit FNV-1a: a fast, stable string hash for lock buckets. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
