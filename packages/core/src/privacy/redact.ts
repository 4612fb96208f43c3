/**
 * The PII redactor: finds emails, phone numbers, card numbers (Luhn-checked), IP addresses, API
 * keys and tokens, IBANs (mod-97-checked) and a workspace's own patterns in free text, and
 * replaces each with `[REDACTED:<kind>]`. Pure and synchronous; applied at ingest when a
 * workspace asks (`redactPii`, `queryPrivacy: redacted`) and always in anonymized exports.
 *
 * Measured on a labelled corpus (packages/core/test/privacy/redaction-corpus.ts, figures in
 * docs/privacy.md). The false-positive traps it is built against: order and invoice numbers,
 * dates and times, version strings, prices, ISBNs, git hashes, UUIDs, coordinates.
 */

/** What a redaction replaced. */
export type PiiKind = 'email' | 'phone' | 'card' | 'ip' | 'secret' | 'iban' | string;

/** One redacted span of the input. */
export interface PiiMatch {
  kind: PiiKind;
  start: number;
  end: number;
}

/** A workspace's own pattern (setting `redactionPatterns`). */
export interface RedactionPattern {
  name: string;
  pattern: string;
}

/**
 * A workspace pattern compiled by the caller (issue 22): operator patterns run on a linear-time
 * engine (RE2, compiled by the server), never on JavaScript's backtracking RegExp, where `(a+)+$`
 * over 28 characters took 3.5 s of the event loop. Core only asks for the spans.
 */
export interface PatternMatcher {
  /** What a match is replaced with: `[REDACTED:<kind>]` (the pattern's name). */
  kind: string;
  /** The [start, end) spans of the pattern's non-empty matches in `text`, in order (UTF-16 offsets). */
  spans(text: string): Array<[number, number]>;
}

/** The text with its PII replaced, and what was found. */
export interface Redaction {
  text: string;
  matches: PiiMatch[];
}

/** Sum of digits with every second one from the right doubled: valid card numbers are ≡ 0 mod 10. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** ISO 13616: move the first four characters to the end, letters to 10..35, the number ≡ 1 mod 97. */
export function ibanValid(iban: string): boolean {
  const s = iban.replace(/[ -]/g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(s)) return false;
  const moved = s.slice(4) + s.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const code = ch.charCodeAt(0);
    const value = code >= 65 ? String(code - 55) : ch;
    for (const digit of value) rest = (rest * 10 + (digit.charCodeAt(0) - 48)) % 97;
  }
  return rest === 1;
}

interface Detector {
  kind: PiiKind;
  regex: RegExp;
  /** Refines a match: false drops it; a pair narrows it to [start, end) of the match. */
  accept?: (match: RegExpExecArray, text: string) => boolean | [number, number];
}

const EMAIL = /[A-Za-z0-9](?:[A-Za-z0-9._%+-]{0,63})@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}\b/g;

/** Known token shapes of common providers, a JWT, a bearer header, and `key=value` assignments of secrets. */
const SECRET_SHAPES = [
  String.raw`\b(?:sk|pk|rk)[-_](?:live|test|proj|ant)?[-_]?[A-Za-z0-9_-]{16,}`,
  String.raw`\bfl_(?:sk|pk)_[A-Za-z0-9_-]{16,}`,
  String.raw`\bgh[pousr]_[A-Za-z0-9]{30,}`,
  String.raw`\bgithub_pat_[A-Za-z0-9_]{30,}`,
  String.raw`\bxox[abposr]-[A-Za-z0-9-]{10,}`,
  String.raw`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`,
  String.raw`\bAIza[0-9A-Za-z_-]{35}`,
  String.raw`\bglpat-[A-Za-z0-9_-]{20,}`,
  String.raw`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`,
  String.raw`(?<=\bBearer\s+)[A-Za-z0-9._~+/-]{16,}=*`,
  String.raw`(?<=\b(?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|secret|password|passwd|pwd|token)["']?\s*[:=]\s*["']?)[^\s"',;]{8,}`,
];
const SECRET = new RegExp(SECRET_SHAPES.join('|'), 'gi');

/**
 * A long random-looking string (24+ characters mixing upper case, lower case and digits) is a
 * credential of some provider the list does not know. Hex-only strings (hashes, UUIDs, git
 * commits) have no upper case and are left alone.
 */
const OPAQUE_TOKEN = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{24,}(?![A-Za-z0-9_-])/g;
function randomLooking(token: string): boolean {
  if (!/[A-Z]/.test(token) || !/[a-z]/.test(token) || !/\d/.test(token)) return false;
  // Words joined by dashes or underscores (slugs, identifiers) are not random.
  if (/^[A-Za-z]+(?:[-_][A-Za-z0-9]+)+$/.test(token) && !/\d{3,}/.test(token)) return false;
  let changes = 0;
  const cls = (c: string): number => (/[A-Z]/.test(c) ? 0 : /[a-z]/.test(c) ? 1 : /\d/.test(c) ? 2 : 3);
  for (let i = 1; i < token.length; i++) if (cls(token[i] ?? '') !== cls(token[i - 1] ?? '')) changes++;
  return changes / token.length > 0.3;
}

const IBAN = /\b[A-Z]{2}\d{2}(?:[ -]?[A-Z0-9]{4}){2,7}(?:[ -]?[A-Z0-9]{1,3})?\b/g;

/** 13 to 19 digits, in groups separated by single spaces or dashes. */
const CARD = /(?<![\d.,])\d(?:[ -]?\d){12,18}(?![\d.,]\d)/g;

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`(?<![\\w.])${OCTET}(?:\\.${OCTET}){3}(?![\\w]|\\.\\d)`, 'g');
const H = '[0-9A-Fa-f]{1,4}';
const IPV6 = new RegExp(
  `(?<![\\w:])(?:(?:${H}:){7}${H}|(?:${H}:){1,7}:(?:${H}(?::${H}){0,5})?|::(?:${H}(?::${H}){0,6})|(?:${H}:){1,6}:${H}(?::${H}){0,5})(?![\\w:])`,
  'g',
);

/**
 * Phone numbers: an international `+` number, a bracketed area code, or digit groups separated
 * by spaces, dots or dashes (7 to 15 digits in all), or a run of 10-11 digits starting with 0.
 */
const PHONE = /(?<![\w+.\/-])(?:\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,5}(?:[ .-]?\d{1,5}){1,5}|\(\d{2,5}\)[ .-]?\d{2,5}(?:[ .-]?\d{2,5}){1,3}|\d{2,5}(?:[ .-]\d{2,6}){1,4}|0\d{9,10})(?![\w\/-]|[.,]\d)/g;

/** Words that, right before a number, say it is no phone number. */
const NOT_PHONE_CONTEXT = /(?:order|invoice|ticket|ref|reference|case|id|no|number|isbn|version|v|sku|item|po|tracking|account|acct|build|release|issue|pr|#|€|\$|£|usd|eur|gbp|chf|price|total|amount|qty|quantity|page|pages|room|flight|zip|postcode|postal)\s*[#:.]?\s*$/i;

function digitsOf(s: string): string {
  return s.replace(/\D/g, '');
}

/** Dates (2026-11-23, 23.11.2026, 11/23/2026, 2026 11 23), times and ranges of years are no phones. */
function looksLikeDate(s: string): boolean {
  return (
    /^(?:19|20)\d\d[ .\/-](?:0?[1-9]|1[0-2])[ .\/-](?:0?[1-9]|[12]\d|3[01])$/.test(s) ||
    /^(?:0?[1-9]|[12]\d|3[01])[ .\/-](?:0?[1-9]|1[0-2])[ .\/-](?:19|20)?\d\d$/.test(s) ||
    /^(?:0?[1-9]|1[0-2])[ .\/-](?:0?[1-9]|[12]\d|3[01])[ .\/-](?:19|20)?\d\d$/.test(s) ||
    /^(?:19|20)\d\d[ -](?:19|20)\d\d$/.test(s)
  );
}

const DETECTORS: Detector[] = [
  { kind: 'email', regex: EMAIL },
  { kind: 'secret', regex: SECRET },
  { kind: 'secret', regex: OPAQUE_TOKEN, accept: (m) => randomLooking(m[0]) },
  { kind: 'iban', regex: IBAN, accept: (m) => ibanValid(m[0]) },
  {
    kind: 'card',
    regex: CARD,
    accept: (m) => {
      const digits = digitsOf(m[0]);
      if (digits.length < 13 || digits.length > 19 || !luhnValid(digits)) return false;
      // Issuer prefixes start with 2 to 6 (Mastercard 2-series, Amex/Diners/JCB 3, Visa 4,
      // Mastercard/Maestro 5, Discover/UnionPay 6): epoch milliseconds and most ids start with 1.
      if (!/^[2-6]/.test(digits)) return false;
      // Separators, if any, must be regular: 4-4-4-4, 4-6-5 (Amex), or none.
      return /^\d+$/.test(m[0]) || /^\d{4}(?:[ -]\d{4}){2,3}(?:[ -]\d{1,3})?$/.test(m[0]) || /^\d{4}[ -]\d{6}[ -]\d{4,5}$/.test(m[0]);
    },
  },
  {
    kind: 'ip',
    regex: IPV4,
    // 0.0.0.0 (any address), loopback and broadcast name no one; `v1.2.3.4` is a version.
    accept: (m, text) =>
      !/^(?:0\.0\.0\.0|127\.\d+\.\d+\.\d+|255\.255\.255\.255)$/.test(m[0]) &&
      !/(?:\bv|version\s*|release\s*|build\s*)$/i.test(text.slice(Math.max(0, m.index - 10), m.index)),
  },
  { kind: 'ip', regex: IPV6, accept: (m) => m[0].includes('::') ? m[0].replace(/[^:]/g, '').length >= 2 && /[0-9a-f]{3,}/i.test(m[0]) : true },
  {
    kind: 'phone',
    regex: PHONE,
    accept: (m, text) => {
      const s = m[0];
      const digits = digitsOf(s);
      if (digits.length < 7 || digits.length > 15) return false;
      // Placeholders (0000 0000, 1111 1111) are no one's number.
      if (/^(\d)\1+$/.test(digits)) return false;
      if (looksLikeDate(s)) return false;
      const before = text.slice(Math.max(0, m.index - 24), m.index);
      if (NOT_PHONE_CONTEXT.test(before)) return false;
      if (s.startsWith('+') || s.startsWith('(')) return true;
      // Bare digit groups: a plausible grouping of a national number, not a thousands-separated amount.
      if (/^\d{1,3}(?:[ ,.]\d{3})+$/.test(s) && !/^0/.test(s)) return false;
      if (/^0\d{9,10}$/.test(s)) return true;
      const groups = s.split(/[ .-]/);
      if (groups.length < 2) return false;
      if (digits.length < 9 && !/(?:phone|tel|call|mobile|cell|fax|ring|text me|whatsapp|number is)\W*$/i.test(before)) return false;
      return true;
    },
  },
];

/**
 * Finds the PII spans of a text, longest first where two overlap (an email inside a URL, a card
 * number that also fits the phone shape: the earlier detector in the list wins a tie).
 *
 * @example
 * findPii('mail ana@example.com or call +1 415 555 0132') // [{ kind: 'email', … }, { kind: 'phone', … }]
 */
export function findPii(text: string, custom: readonly PatternMatcher[] = []): PiiMatch[] {
  const found: Array<PiiMatch & { rank: number }> = [];
  custom.forEach((c, rank) => {
    for (const [start, end] of c.spans(text)) if (end > start) found.push({ kind: c.kind, start, end, rank });
  });
  DETECTORS.forEach((d, at) => {
    const rank = custom.length + at;
    d.regex.lastIndex = 0;
    for (let m = d.regex.exec(text); m !== null; m = d.regex.exec(text)) {
      if (m[0].length === 0) {
        d.regex.lastIndex++;
        continue;
      }
      const verdict = d.accept ? d.accept(m, text) : true;
      if (verdict === false) continue;
      const [start, end] = verdict === true ? [m.index, m.index + m[0].length] : verdict;
      found.push({ kind: d.kind, start, end, rank });
    }
  });
  found.sort((a, b) => a.rank - b.rank || b.end - b.start - (a.end - a.start) || a.start - b.start);
  // Which characters a kept span covers: a candidate overlapping one is dropped. Checking each
  // candidate against every kept span (as before) cost matches² (a 160,000-character text with
  // 4,000 matches: 250 ms); the map costs each candidate its own length.
  const covered = new Uint8Array(text.length);
  const taken: PiiMatch[] = [];
  for (const f of found) {
    let free = true;
    for (let i = f.start; i < f.end; i++) {
      if (covered[i] === 1) {
        free = false;
        break;
      }
    }
    if (!free) continue;
    covered.fill(1, f.start, f.end);
    taken.push({ kind: f.kind, start: f.start, end: f.end });
  }
  return taken.sort((a, b) => a.start - b.start);
}

/**
 * Replaces every PII span of `text` with `[REDACTED:<kind>]`.
 *
 * @example
 * redactPii('write to ana@example.com').text // 'write to [REDACTED:email]'
 * redactPii('order 4012-8888 shipped 2026-11-23').text // unchanged
 */
export function redactPii(text: string, custom: readonly PatternMatcher[] = []): Redaction {
  const matches = findPii(text, custom);
  if (matches.length === 0) return { text, matches };
  let out = '';
  let at = 0;
  for (const m of matches) {
    out += `${text.slice(at, m.start)}[REDACTED:${m.kind}]`;
    at = m.end;
  }
  return { text: out + text.slice(at), matches };
}

/**
 * Redacts every string inside a JSON value (object keys are kept: they are field names).
 *
 * @example
 * redactValue({ comment: 'call 020 7946 0958' }) // { comment: 'call [REDACTED:phone]' }
 */
export function redactValue<T>(value: T, custom: readonly PatternMatcher[] = []): T {
  if (typeof value === 'string') return redactPii(value, custom).text as T;
  if (Array.isArray(value)) return value.map((v: unknown) => redactValue(v, custom)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactValue(v, custom)])) as T;
  }
  return value;
}
