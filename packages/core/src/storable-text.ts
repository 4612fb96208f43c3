/**
 * Text the database can store. Postgres refuses a NUL character (`\u0000`) in `text` and in
 * `jsonb` (strings and keys alike), and JSON with a lone UTF-16 surrogate (a `\ud800`-`\udfff`
 * half without its partner) is invalid to it. Such input passes a schema (it is a string), but
 * fails the INSERT, so it is refused here, at validation, with the field that holds it.
 */
/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** Every character {@link escapeUnstorable} rewrites. */
const UNSTORABLE_ALL = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Why a string cannot be stored, or undefined when it can.
 *
 * @example
 * unstorableReason('a\u0000b') // 'holds a NUL character (\\u0000)'
 * unstorableReason('\ud83d\ude00') // undefined: a valid pair (an emoji)
 */
export function unstorableReason(s: string): string | undefined {
  if (s.includes('\u0000')) return 'holds a NUL character (\\u0000), which cannot be stored';
  if (LONE_SURROGATE.test(s)) return 'holds a lone UTF-16 surrogate (half of a character), which cannot be stored';
  return undefined;
}

/**
 * A string with its unstorable characters written as `\uXXXX` text, so a bad key can be named
 * in an error (and logged) without carrying the bad character along.
 *
 * @example
 * escapeUnstorable('k\u0000') // 'k\\u0000'
 */
export function escapeUnstorable(s: string): string {
  return s.replace(UNSTORABLE_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Where an unstorable string or key sits in a value, and why it cannot be stored. */
export interface Unstorable {
  /** Path from the value's root; a bad key is the last part, its bad characters escaped. */
  path: Array<string | number>;
  reason: string;
}

/**
 * Finds the first string or object key in a JSON value that the database cannot store. Walks
 * without recursion, so deep nesting cannot overflow the stack. `validate.ts`'s `checkStorable`
 * turns the finding into an error naming the field.
 *
 * @example
 * findUnstorable({ payload: { comment: 'a\u0000' } }) // { path: ['payload', 'comment'], reason: 'holds a NUL character ...' }
 * findUnstorable({ metadata: { ['k\u0000']: 1 } }) // { path: ['metadata', 'k\\u0000'], reason: 'the key holds a NUL ...' }
 * findUnstorable({ payload: { comment: 'fine' } }) // undefined
 */
export function findUnstorable(value: unknown): Unstorable | undefined {
  // Each node links to its parent; the path is built only for a finding, so deep nesting
  // costs no path copies.
  interface Node {
    value: unknown;
    key: string | number | undefined;
    parent: Node | undefined;
  }
  const pathOf = (node: Node | undefined, last?: string): Array<string | number> => {
    const reversed: Array<string | number> = last === undefined ? [] : [last];
    for (let n = node; n !== undefined && n.key !== undefined; n = n.parent) reversed.push(n.key);
    return reversed.reverse();
  };
  const stack: Node[] = [{ value, key: undefined, parent: undefined }];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    const v = node.value;
    if (typeof v === 'string') {
      const reason = unstorableReason(v);
      if (reason) return { path: pathOf(node), reason };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: i, parent: node });
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v);
      for (const [k] of entries) {
        const reason = unstorableReason(k);
        if (reason) return { path: pathOf(node, escapeUnstorable(k)), reason: `the key ${reason}` };
      }
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, child] = entries[i] as [string, unknown];
        stack.push({ value: child, key: k, parent: node });
      }
    }
  }
  return undefined;
}
