/**
 * The majority label of a set of labels: the unique most frequent one. Agreement with "the other
 * reviewers' majority" and a judge's human label both need it, and both leave a split (no unique
 * mode) out rather than guess.
 *
 * @module
 */

/**
 * The unique most frequent label, or null when there is none (no labels, or a tie for first).
 *
 * @example
 * majorityLabel(['approve', 'approve', 'reject']) // 'approve'
 * majorityLabel(['approve', 'reject']) // null
 */
export function majorityLabel<T>(labels: Iterable<T>): T | null {
  const counts = new Map<T, number>();
  for (const label of labels) counts.set(label, (counts.get(label) ?? 0) + 1);
  return majorityOfCounts(counts);
}

/**
 * The unique most frequent label of counted labels (label → count), or null on a tie for first or
 * when every count is 0. `without` takes one of that label away first: "the others' majority".
 *
 * @example
 * majorityOfCounts(new Map([['a', 2], ['b', 1]]), 'a') // null (a 1, b 1)
 */
export function majorityOfCounts<T>(counts: ReadonlyMap<T, number>, without?: T): T | null {
  let best: T | null = null;
  let bestCount = 0;
  let tied = false;
  for (const [label, total] of counts) {
    const count = without !== undefined && label === without ? total - 1 : total;
    if (count === 0) continue;
    if (count > bestCount) {
      best = label;
      bestCount = count;
      tied = false;
    } else if (count === bestCount) {
      tied = true;
    }
  }
  return tied ? null : best;
}

/**
 * The median of finite numbers, or null without any.
 *
 * @example
 * median([30, 10, 20, 40]) // 25
 */
export function median(values: readonly number[]): number | null {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
