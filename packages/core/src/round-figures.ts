/**
 * Rounding at the edge: figures computed in floating point (decayed weights, means, p-values,
 * slopes) carry noise such as 2.999999395903041 that no reader should see. The API rounds every
 * number it answers to {@link FIGURE_SIGNIFICANT_DIGITS} significant digits, the precision of the
 * least precise input most figures come from (a float4 sample weight, a 2-decimal percentage);
 * figures with a unit of their own (percentages, ms) are rounded where they are computed.
 *
 * @module
 */

/** Significant digits a number keeps in an API answer. */
export const FIGURE_SIGNIFICANT_DIGITS = 6;

/**
 * A number as the API answers it: integers and non-finite values unchanged, anything else to
 * {@link FIGURE_SIGNIFICANT_DIGITS} significant digits (and -0 to 0).
 *
 * @example
 * roundFigure(2.999999395903041) // 3
 * roundFigure(-0.8162499929241227) // -0.81625
 * roundFigure(0.000012345678) // 0.0000123457
 */
export function roundFigure(x: number): number {
  if (x === 0) return 0;
  if (!Number.isFinite(x) || Number.isInteger(x)) return x;
  const rounded = Number(x.toPrecision(FIGURE_SIGNIFICANT_DIGITS));
  return rounded === 0 ? 0 : rounded;
}

/**
 * A `JSON.stringify` replacer that rounds every number with {@link roundFigure}: the one place an
 * answer's numbers pass before they leave.
 *
 * @example
 * JSON.stringify({ w: 0.999999709049374 }, roundingReplacer) // '{"w":1}'
 */
export function roundingReplacer(_key: string, value: unknown): unknown {
  return typeof value === 'number' ? roundFigure(value) : value;
}
