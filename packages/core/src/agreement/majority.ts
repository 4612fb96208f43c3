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
  let best: T | null = null;
  let bestCount = 0;
  let tied = false;
  for (const [label, count] of counts) {
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
