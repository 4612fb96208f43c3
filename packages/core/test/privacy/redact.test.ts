import { describe, expect, it } from 'vitest';
import { findPii, ibanValid, luhnValid, redactPii, redactValue } from '../../src/index.js';
import { heldOutCorpus, tuningCorpus, type LabelledText } from './redaction-corpus.js';

/** Recall over labelled values (fully covered by a redaction) and precision over redactions (each overlapping a labelled value). */
function measure(items: LabelledText[]): { recall: number; precision: number; values: number; redactions: number; missed: string[]; wrong: string[] } {
  let values = 0;
  let covered = 0;
  let redactions = 0;
  let correct = 0;
  const missed: string[] = [];
  const wrong: string[] = [];
  for (const item of items) {
    const matches = findPii(item.text);
    const spans = item.pii.map((p) => {
      const start = item.text.indexOf(p.value);
      if (start < 0) throw new Error(`label ${p.value} not in ${item.text}`);
      return { ...p, start, end: start + p.value.length };
    });
    for (const s of spans) {
      values++;
      if (matches.some((m) => m.start <= s.start && m.end >= s.end)) covered++;
      else missed.push(`${s.kind}: ${s.value} | ${item.text}`);
    }
    for (const m of matches) {
      redactions++;
      if (spans.some((s) => m.start < s.end && s.start < m.end)) correct++;
      else wrong.push(`${m.kind}: ${item.text.slice(m.start, m.end)} | ${item.text}`);
    }
  }
  return { recall: covered / values, precision: redactions === 0 ? 1 : correct / redactions, values, redactions, missed, wrong };
}

describe('PII redactor', () => {
  it('checks card numbers with Luhn and IBANs with mod 97', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(ibanValid('GB82 WEST 1234 5698 7654 32')).toBe(true);
    expect(ibanValid('GB83 WEST 1234 5698 7654 32')).toBe(false);
  });

  it('replaces each kind with a marker and leaves the rest of the text alone', () => {
    expect(redactPii('write to ana@example.com, call +44 20 7946 0958').text).toBe('write to [REDACTED:email], call [REDACTED:phone]');
    expect(redactPii('order 123456789 shipped 2026-11-23 for $1,299.00').text).toBe('order 123456789 shipped 2026-11-23 for $1,299.00');
    expect(redactPii('emp E-12345 left', [{ kind: 'employee', spans: (t) => [...t.matchAll(/E-\d{5}/g)].map((m) => [m.index, m.index + m[0].length] as [number, number]) }]).text).toBe('emp [REDACTED:employee] left');
    expect(redactValue({ comment: 'mail me: bo@x.io', n: 3, tags: ['10.1.2.3'] })).toEqual({ comment: 'mail me: [REDACTED:email]', n: 3, tags: ['[REDACTED:ip]'] });
  });

  it('reaches recall >= 0.99 and precision >= 0.95 on the labelled tuning corpus', () => {
    const corpus = tuningCorpus();
    const m = measure(corpus);
    console.info(`redaction tuning corpus: ${corpus.length} texts, ${m.values} PII values, ${m.redactions} redactions; recall ${m.recall.toFixed(4)}, precision ${m.precision.toFixed(4)}`);
    if (m.missed.length) console.info(`missed:\n${m.missed.slice(0, 20).join('\n')}`);
    if (m.wrong.length) console.info(`false positives:\n${m.wrong.slice(0, 20).join('\n')}`);
    expect(corpus.length).toBeGreaterThan(600);
    expect(m.recall).toBeGreaterThanOrEqual(0.99);
    expect(m.precision).toBeGreaterThanOrEqual(0.95);
  });

  it('reports its figures on the held-out corpus it was not tuned on', () => {
    const corpus = heldOutCorpus();
    const m = measure(corpus);
    console.info(`redaction held-out corpus: ${corpus.length} texts, ${m.values} PII values, ${m.redactions} redactions; recall ${m.recall.toFixed(4)}, precision ${m.precision.toFixed(4)}`);
    if (m.missed.length) console.info(`held-out missed:\n${m.missed.join('\n')}`);
    if (m.wrong.length) console.info(`held-out false positives:\n${m.wrong.join('\n')}`);
    // The held-out figures are reported in docs/privacy.md as measured; the bar here is lower
    // than the tuning target on purpose (a floor that catches a regression, not the goal).
    expect(m.recall).toBeGreaterThanOrEqual(0.85);
    expect(m.precision).toBeGreaterThanOrEqual(0.85);
  });
});
