/**
 * How the Judges page writes the API's figures (issue 28): instants, coefficients, shares and
 * intervals, each the same wherever it appears, so one figure never reads two ways.
 */
import type { Estimate } from './judges-types.js';

/** An instant in the reader's locale, or – for none. */
export const when = (iso: string | null): string => (iso === null ? '–' : new Date(iso).toLocaleString());
/** A coefficient to 2 decimals (kappa, rho). */
export const coef = (x: number | null): string => (x === null ? '–' : x.toFixed(2));
/** A share as a percentage to 1 decimal. */
export const share = (x: number | null): string => (x === null ? '–' : `${(100 * x).toFixed(1)} %`);
/** An estimate's 95 % interval in the estimate's own format. */
export const interval = (e: Estimate, f: (x: number | null) => string): string => (e.low === null || e.high === null ? 'no interval' : `${f(e.low)} to ${f(e.high)}`);
/** A period as the page names it wherever a figure is over it. */
export const period = (from: string, to: string): string => `${when(from)} to ${when(to)}`;
/** A day of a date field (YYYY-MM-DD) as the instant of its UTC midnight, as the responses' filters take it; none for an empty field. */
export const dayStart = (day: string): string | undefined => (day ? new Date(day).toISOString() : undefined);
