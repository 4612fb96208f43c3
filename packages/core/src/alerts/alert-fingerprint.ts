/**
 * The fingerprint that names one alert of a rule: a stable hash of the rule id and the alert's
 * own labels (a category spike has one alert per category). Pure and synchronous, so core stays
 * free of `node:crypto`; it identifies, it does not protect, so FNV-1a is enough.
 *
 * @module
 */

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK_64 = 0xffffffffffffffffn;
const HEX_DIGITS = 16;
const BYTE = 0xff;
const BYTE_BITS = 8;

/**
 * FNV-1a (64-bit, over UTF-16 code units) of the rule id and the labels sorted by name, as 16 hex digits. The same rule
 * and labels always give the same fingerprint, in any process and label order.
 *
 * @example
 * alertFingerprint('category-spike', { category: 'hallucination' }) === alertFingerprint('category-spike', { category: 'hallucination' }) // true
 */
export function alertFingerprint(ruleId: string, labels: Readonly<Record<string, string>>): string {
  // NUL separates the parts: it cannot occur in a rule id or a stored category.
  const text = [ruleId, ...Object.keys(labels).sort().map((k) => `${k}=${labels[k]}`)].join('\u0000');
  let hash = FNV_OFFSET;
  // Over UTF-16 code units, low byte then high byte: the same in every JavaScript runtime.
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    for (const byte of [unit & BYTE, unit >>> BYTE_BITS]) {
      hash ^= BigInt(byte);
      hash = (hash * FNV_PRIME) & MASK_64;
    }
  }
  return hash.toString(16).padStart(HEX_DIGITS, '0');
}
