/**
 * k-anonymity for aggregates that leave a workspace (exports, cross-workspace baselines): a
 * group with fewer than k distinct users could point at one of them, so it is left out and only
 * counted.
 */

/** The groups kept and how many were left out. */
export interface Suppressed<T> {
  k: number;
  groups: T[];
  suppressed: number;
}

/**
 * Keeps the groups with at least `k` distinct users.
 *
 * @example
 * suppressSmallGroups([{ users: 12 }, { users: 3 }], 10) // { k: 10, groups: [{ users: 12 }], suppressed: 1 }
 */
export function suppressSmallGroups<T extends { users: number }>(groups: readonly T[], k: number): Suppressed<T> {
  const kept = groups.filter((g) => g.users >= k);
  return { k, groups: kept, suppressed: groups.length - kept.length };
}
