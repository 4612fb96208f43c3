/**
 * Labels as the agreement statistics see them: a verdict, a preferred response id, `tie`, a
 * rating. Statistics work on category indices; this module gives every label a stable index.
 *
 * @module
 */

/** A rating or label: a verdict, a response id, `tie`, a 1–5 rating. */
export type Category = string | number;

/** A rating that may be missing (the rater did not rate this unit). */
export type MaybeCategory = Category | null | undefined;

/**
 * The distinct categories in a stable order: numbers ascending, then strings in code-point order,
 * so that the same labels always get the same indices (and ordinal statistics see numbers in
 * their natural order).
 *
 * @example
 * categoriesOf(['reject', 'approve', 'reject']) // ['approve', 'reject']
 */
export function categoriesOf(values: Iterable<MaybeCategory>): Category[] {
  const seen = new Set<Category>();
  for (const value of values) if (value !== null && value !== undefined) seen.add(value);
  return [...seen].sort(compareCategories);
}

/** Numbers before strings; numbers ascending; strings in code-point order. */
export function compareCategories(a: Category, b: Category): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A map from category to its index in `categories`. */
export function indexOfCategories(categories: readonly Category[]): Map<Category, number> {
  return new Map(categories.map((category, index) => [category, index]));
}

/** The index of `value`, or a RangeError naming it when it is not one of the categories. */
export function categoryIndex(index: ReadonlyMap<Category, number>, value: Category): number {
  const at = index.get(value);
  if (at === undefined) throw new RangeError(`${JSON.stringify(value)} is not one of the categories`);
  return at;
}

/**
 * One unit's ratings counted per category index, missing ratings left out: `counts` (category
 * index → ratings) and `m`, the ratings given. The first step of every coincidence statistic.
 *
 * @example
 * unitCounts(['a', null, 'a', 'b'], new Map([['a', 0], ['b', 1]])) // { counts: Map { 0 => 2, 1 => 1 }, m: 3 }
 */
export function unitCounts(ratings: readonly MaybeCategory[], index: ReadonlyMap<Category, number>): { counts: Map<number, number>; m: number } {
  const counts = new Map<number, number>();
  let m = 0;
  for (const rating of ratings) {
    if (rating === null || rating === undefined) continue;
    const at = categoryIndex(index, rating);
    counts.set(at, (counts.get(at) ?? 0) + 1);
    m += 1;
  }
  return { counts, m };
}
