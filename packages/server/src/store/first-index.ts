/**
 * For each key, the index of its first occurrence: a batch may carry the same id twice (a client
 * retrying while its first request is still being written); the first is written, the rest
 * follow its fate.
 *
 * @example
 * firstIndexOf(['a', 'b', 'a']) // [0, 1, 0]
 */
export function firstIndexOf(keys: readonly string[]): number[] {
  const seen = new Map<string, number>();
  return keys.map((k, i) => {
    const prev = seen.get(k);
    if (prev !== undefined) return prev;
    seen.set(k, i);
    return i;
  });
}
