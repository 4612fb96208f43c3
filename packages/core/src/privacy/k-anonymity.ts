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

/** One workspace's part of a cross-workspace group, with that workspace's own k. */
export interface BaselinePart {
  group: string | null;
  /** The contributing workspace's `kAnonymity`. */
  k: number;
  events: number;
  rated: number;
  positive: number;
  negative: number;
  implicit: number;
  /** Distinct users of this workspace in the group. */
  users: number;
}

/** A cross-workspace group: its parts' sums and how many workspaces it spans. */
export interface BaselineTotals {
  group: string | null;
  events: number;
  rated: number;
  positive: number;
  negative: number;
  implicit: number;
  users: number;
  workspaces: number;
}

/**
 * Cross-workspace groups that may leave their workspaces (issue 22): a group is kept only when
 * every contributing workspace's part has at least that workspace's own k distinct users, and the
 * whole group has at least the strictest k among its contributors and the reader's. Otherwise a
 * workspace with many users could lift another's single user over the reader's smaller k, and
 * the difference between the group and its own part would give that user's votes away.
 *
 * @example
 * suppressBaselineParts([{ group: 'sql', k: 10, users: 1, ... }, { group: 'sql', k: 2, users: 9, ... }], 2)
 * // { k: 2, groups: [], suppressed: 1 }
 */
export function suppressBaselineParts(parts: readonly BaselinePart[], k: number): Suppressed<BaselineTotals> {
  const byGroup = new Map<string | null, { totals: BaselineTotals; strictest: number; ownPartsMet: boolean }>();
  for (const p of parts) {
    let g = byGroup.get(p.group);
    if (!g) byGroup.set(p.group, (g = { totals: { group: p.group, events: 0, rated: 0, positive: 0, negative: 0, implicit: 0, users: 0, workspaces: 0 }, strictest: k, ownPartsMet: true }));
    const t = g.totals;
    t.events += p.events;
    t.rated += p.rated;
    t.positive += p.positive;
    t.negative += p.negative;
    t.implicit += p.implicit;
    t.users += p.users;
    t.workspaces += 1;
    g.strictest = Math.max(g.strictest, p.k);
    if (p.users < p.k) g.ownPartsMet = false;
  }
  const all = [...byGroup.values()];
  const kept = all.filter((g) => g.ownPartsMet && g.totals.users >= g.strictest).map((g) => g.totals);
  return { k, groups: kept, suppressed: all.length - kept.length };
}
