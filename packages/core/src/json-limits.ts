/**
 * Limits on the shape of one JSON value (an event, a response, a request body) that a schema does
 * not see: how deep it nests, how long its strings are, and whether its numbers are what the
 * client wrote. Checked at the edge, per item, before anything is written (issue 22): a
 * 5,000-deep metadata object once made the database fail a whole batch after another item of it
 * was committed, and `1e309` was silently stored as `null`.
 */
import type { ErrorBody } from './error-codes.js';
import { LIMITS } from './limits.js';

/** What {@link checkJsonShape} allows. */
export interface JsonShapeLimits {
  /** Levels of objects and arrays, the value itself being level 1. */
  maxDepth: number;
  /** Characters a string (and a key) may have. */
  maxStringLength: number;
}

/** An event's or a response's limits: {@link LIMITS}' nesting depth and text length. */
export const ITEM_SHAPE_LIMITS: JsonShapeLimits = { maxDepth: LIMITS.jsonMaxDepth, maxStringLength: LIMITS.textMaxLength };

/**
 * The first place a value breaks `limits`, as an API error naming the field, or undefined. Walks
 * without recursion (a deep value cannot overflow the stack) and stops at the first finding.
 * Numbers that are not finite (what `1e309` parses to) are refused here too: JSON cannot carry
 * them back.
 *
 * @example
 * checkJsonShape({ metadata: { a: { b: {} } } }, { maxDepth: 3, maxStringLength: 10 })
 * // { code: 'FEEDLOOP_ERR_VALIDATION_TOO_DEEP', message: 'metadata.a.b: nested deeper than 3 levels', field: 'metadata.a.b' }
 */
export function checkJsonShape(value: unknown, limits: JsonShapeLimits, prefix = ''): ErrorBody | undefined {
  interface Node {
    value: unknown;
    key: string | number | undefined;
    parent: Node | undefined;
    depth: number;
  }
  const fieldOf = (node: Node, last?: string): string => {
    const parts: Array<string | number> = last === undefined ? [] : [last];
    for (let n: Node | undefined = node; n !== undefined && n.key !== undefined; n = n.parent) parts.push(n.key);
    const path = parts.reverse().join('.');
    return prefix === '' ? path : path === '' ? prefix : `${prefix}.${path}`;
  };
  const stack: Node[] = [{ value, key: undefined, parent: undefined, depth: 1 }];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    const v = node.value;
    if (typeof v === 'string') {
      if (v.startsWith(UNFAITHFUL_NUMBER_MARK)) {
        const field = fieldOf(node);
        const token = v.slice(UNFAITHFUL_NUMBER_MARK.length);
        return { code: 'FEEDLOOP_ERR_VALIDATION_UNFAITHFUL_NUMBER', message: `${field || 'value'}: the number ${token} ${numberProblem(token) ?? 'cannot be stored as written'}`, field };
      }
      if (v.length > limits.maxStringLength) {
        const field = fieldOf(node);
        return { code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', message: `${field || 'value'}: longer than ${limits.maxStringLength} characters`, field };
      }
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) {
        const field = fieldOf(node);
        return { code: 'FEEDLOOP_ERR_VALIDATION_UNFAITHFUL_NUMBER', message: `${field || 'value'}: not a finite number`, field };
      }
    } else if (v !== null && typeof v === 'object') {
      if (node.depth > limits.maxDepth) {
        const field = fieldOf(node);
        return { code: 'FEEDLOOP_ERR_VALIDATION_TOO_DEEP', message: `${field || 'value'}: nested deeper than ${limits.maxDepth} levels`, field };
      }
      if (Array.isArray(v)) {
        for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: i, parent: node, depth: node.depth + 1 });
      } else {
        const keys = Object.keys(v);
        for (const k of keys) {
          if (k.length > limits.maxStringLength) {
            return { code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', message: `${fieldOf(node) || 'value'}: a key is longer than ${limits.maxStringLength} characters`, field: fieldOf(node) };
          }
        }
        for (let i = keys.length - 1; i >= 0; i--) {
          const k = keys[i] as string;
          stack.push({ value: (v as Record<string, unknown>)[k], key: k, parent: node, depth: node.depth + 1 });
        }
      }
    }
  }
  return undefined;
}

/** Why a JSON number token cannot be kept as written, or undefined when it can. */
function numberProblem(token: string): string | undefined {
  const n = Number(token);
  if (!Number.isFinite(n)) return 'is too large for a double-precision number';
  // A mantissa with a non-zero digit that parsed to 0 underflowed (1e-400).
  if (n === 0 && /[1-9]/.test(token.replace(/[eE].*$/, ''))) return 'is too small for a double-precision number (it would become 0)';
  // An integer written without fraction or exponent beyond 2^53 loses digits.
  if (/^-?\d+$/.test(token) && !Number.isSafeInteger(n)) return `is an integer beyond ±${Number.MAX_SAFE_INTEGER}, which would lose precision (send it as a string)`;
  return undefined;
}

/**
 * What an unfaithful number is replaced with before parsing (see {@link markUnfaithfulNumbers}):
 * a string no client can get stored (it starts with a NUL, which is refused everywhere), so
 * {@link checkJsonShape} can name the field that held it, per item of a batch.
 */
export const UNFAITHFUL_NUMBER_MARK = '\u0000unfaithful-number:';

/**
 * A JSON text with every number that would not survive parsing as written replaced by a marked
 * string (`"\u0000unfaithful-number:1e309"`): numbers beyond the double range (`1e309`, parsed to
 * Infinity and stored as null), below it (`1e-400`, parsed to 0), and integers beyond 2^53 (their
 * last digits silently change). The parsed value then carries the finding to the field that held
 * it, and {@link checkJsonShape} refuses that item alone. One linear pass that skips strings; the
 * text itself when nothing is replaced.
 *
 * @example
 * markUnfaithfulNumbers('{"a":1e309,"b":"1e309","c":1.5}') // '{"a":"\u0000unfaithful-number:1e309","b":"1e309","c":1.5}'
 */
export function markUnfaithfulNumbers(text: string): string {
  const n = text.length;
  let out: string[] | undefined;
  let copied = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // Skip the string, escapes included.
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i += 2;
        else if (d === 34) break;
        else i++;
      }
      i++;
    } else if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      const start = i;
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if ((d >= 48 && d <= 57) || d === 46 || d === 101 || d === 69 || d === 43 || d === 45) i++;
        else break;
      }
      const token = text.slice(start, i);
      // Up to 15 characters without an exponent is at most 15 digits: always faithful.
      if ((token.length > 15 || /[eE]/.test(token)) && numberProblem(token) !== undefined) {
        (out ??= []).push(text.slice(copied, start), JSON.stringify(`${UNFAITHFUL_NUMBER_MARK}${token.slice(0, 64)}`));
        copied = i;
      }
    } else i++;
  }
  if (out === undefined) return text;
  out.push(text.slice(copied));
  return out.join('');
}
