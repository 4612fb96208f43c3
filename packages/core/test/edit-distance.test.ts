import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { editDistancePercent, lcsLength } from '../src/edit-distance.js';
import { seedEditDistance } from './seed-fixtures.js';


/** Expected value: the reference, except the documented both-empty case. */
const expected = (a: string, b: string) => (a === '' && b === '' ? 0 : seedEditDistance(a, b));

/** Textbook O(n·m) LCS over code points (Array.from tokens). */
function naiveLcs(a: string, b: string): number {
  const A = Array.from(a), B = Array.from(b);
  let prev = new Int32Array(B.length + 1), cur = new Int32Array(B.length + 1);
  for (let i = 1; i <= A.length; i++) {
    for (let j = 1; j <= B.length; j++) {
      cur[j] = A[i - 1] === B[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[B.length]!;
}

/** What one would get by assuming kept UTF-16 units = LCS (ignores jsdiff's tie-breaking). */
function lcsOnlyPercent(a: string, b: string): number {
  const kept = naiveLcs(a, b);
  return Math.round(((a.length + b.length - 2 * kept) / (a.length + b.length - kept)) * 100);
}

function mulberry32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Generators. Full code-point strings, raw UTF-16 code units (lone surrogates,
// accidental pairs), and tiny alphabets whose surrogate halves can pair up or
// split when strings are edited (the cases where jsdiff's tie-breaking decides).
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
const anyUnicode = fc.string({ unit: 'binary', maxLength: 40, size: 'medium' });
const anyUtf16 = fc.string({ unit: codeUnit, maxLength: 40, size: 'medium' });
// (fast-check's default size caps strings at ~10 units whatever maxLength says.)
const tinyAstral = (max: number) =>
  fc.string({ unit: fc.constantFrom('a', 'b', 'é', '😀', '🚀', '\uD83D', '\uDE00'), maxLength: max, size: 'max' });
const tinyAscii = (max: number) => fc.string({ unit: fc.constantFrom('a', 'b', 'c'), maxLength: max, size: 'max' });
// Many symbols seen only once or twice per string, next to frequent ones: with
// strings > 96 tokens this exercises both stored and on-the-fly match masks.
const cjkish = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('a', 'b', ' ') },
  { weight: 2, arbitrary: fc.integer({ min: 0x4e00, max: 0x4e00 + 150 }).map((c) => String.fromCharCode(c)) },
);
const mixedUnit = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('a', 'b', 'c', ' ') },
  { weight: 2, arbitrary: fc.constantFrom('😀', '\uD83D', '\uDE00', 'é') },
  { weight: 1, arbitrary: codeUnit },
);

/** Pairs (s, s with random substitutions/insertions/deletions), like real revisions. */
const editedPair = fc
  .tuple(
    fc.string({ unit: mixedUnit, maxLength: 150, size: 'max' }),
    fc.array(
      fc.record({
        at: fc.nat(),
        remove: fc.nat({ max: 6 }),
        insert: fc.string({ unit: mixedUnit, maxLength: 6 }),
      }),
      { maxLength: 12, size: 'max' },
    ),
  )
  .map(([base, edits]) => {
    let revised = base;
    for (const e of edits) {
      const at = revised.length === 0 ? 0 : e.at % (revised.length + 1);
      revised = revised.slice(0, at) + e.insert + revised.slice(at + e.remove);
    }
    return [base, revised] as const;
  });

describe('editDistancePercent matches the ADR-016 diffChars reference', () => {
  const agrees = (a: string, b: string) => {
    expect(editDistancePercent(a, b)).toBe(expected(a, b));
  };

  it('on arbitrary code-point strings', () => {
    fc.assert(fc.property(anyUnicode, anyUnicode, agrees), { numRuns: 800 });
  });

  it('on arbitrary UTF-16 (lone surrogates)', () => {
    fc.assert(fc.property(anyUtf16, anyUtf16, agrees), { numRuns: 800 });
  });

  it('on tiny alphabets with shared astral characters (many tied diffs)', () => {
    fc.assert(fc.property(tinyAstral(24), tinyAstral(24), agrees), { numRuns: 3000 });
  });

  it('on longer small-alphabet strings (multi-word bit vectors)', () => {
    fc.assert(fc.property(tinyAscii(250), tinyAscii(250), agrees), { numRuns: 300 });
    fc.assert(fc.property(tinyAstral(120), tinyAstral(120), agrees), { numRuns: 150 });
    const wide = fc.string({ unit: cjkish, minLength: 100, maxLength: 200, size: 'max' });
    fc.assert(fc.property(wide, wide, agrees), { numRuns: 100 });
  });

  it('on a string and a randomly edited copy', () => {
    fc.assert(fc.property(editedPair, ([a, b]) => agrees(a, b)), { numRuns: 1500 });
  });
});

describe('lcsLength', () => {
  it('equals the textbook DP, including > 32 / > 128-token inputs and rare symbols', () => {
    const long = fc.oneof(
      fc.string({ unit: mixedUnit, maxLength: 400, size: 'max' }),
      fc.string({ unit: cjkish, minLength: 100, maxLength: 400, size: 'max' }),
      anyUtf16,
    );
    fc.assert(
      fc.property(long, long, (a, b) => {
        expect(lcsLength(a, b)).toBe(naiveLcs(a, b));
      }),
      { numRuns: 300 },
    );
  });

  it('counts code points', () => {
    expect(lcsLength('kitten', 'sitting')).toBe(4);
    expect(lcsLength('a😀b', '😀ab')).toBe(2);
    expect(lcsLength('\uD83D', '😀')).toBe(0); // a lone high surrogate is not half a match
    expect(lcsLength('', 'abc')).toBe(0);
  });
});

describe('editDistancePercent concrete cases', () => {
  it('identical strings -> 0', () => {
    expect(editDistancePercent('hello world', 'hello world')).toBe(0);
    expect(editDistancePercent('😀\uD83D', '😀\uD83D')).toBe(0);
  });

  it('completely different -> 100', () => {
    expect(editDistancePercent('abc', 'xyz')).toBe(100);
    expect(seedEditDistance('abc', 'xyz')).toBe(100);
  });

  it('both empty -> 0 (documented divergence: the reference gives NaN)', () => {
    expect(editDistancePercent('', '')).toBe(0);
    expect(seedEditDistance('', '')).toBeNaN();
  });

  it('one side empty -> 100', () => {
    expect(editDistancePercent('', 'abc')).toBe(100);
    expect(editDistancePercent('a😀', '')).toBe(100);
  });

  it('kitten -> sitting: keeps "ittn", 5 of 9 units changed -> 56', () => {
    expect(editDistancePercent('kitten', 'sitting')).toBe(56);
    expect(seedEditDistance('kitten', 'sitting')).toBe(56);
  });

  it("astral ties follow jsdiff's choice, which is not symmetric", () => {
    // x😀 -> 😀x: jsdiff keeps 😀 (2 units): 2 changed of 4 -> 50.
    expect(editDistancePercent('x😀', '😀x')).toBe(50);
    // 😀x -> x😀: jsdiff keeps x (1 unit): 4 changed of 5 -> 80.
    expect(editDistancePercent('😀x', 'x😀')).toBe(80);
    for (const [a, b] of [['x😀', '😀x'], ['😀x', 'x😀']] as const) {
      expect(editDistancePercent(a, b)).toBe(seedEditDistance(a, b));
    }
  });

  it('astral ties: jsdiff keeps neither the most nor the fewest units', () => {
    // Minimal diffs keep 2..4 units; jsdiff keeps 3: 6 changed of 9 -> 67.
    expect(seedEditDistance('x😀😀y', '😀xy😀')).toBe(67);
    expect(editDistancePercent('x😀😀y', '😀xy😀')).toBe(67);
  });

  it('LCS alone would be wrong when astral characters are shared', () => {
    // Guards the test suite itself: these inputs separate a plain-LCS
    // implementation from the reference.
    expect(lcsOnlyPercent('x😀', '😀x')).not.toBe(seedEditDistance('x😀', '😀x'));
    expect(lcsOnlyPercent('abc', 'axc')).toBe(seedEditDistance('abc', 'axc'));
  });

  it('10 KB text with ~30 % of characters edited agrees with diffChars', () => {
    const rnd = mulberry32(16);
    const words = 'the of and to in is for on that with edit model draft text user review café'.split(' ');
    let original = '';
    while (original.length < 10_240) original += words[Math.floor(rnd() * words.length)] + (rnd() < 0.1 ? '. ' : ' ');
    original = original.slice(0, 10_240);
    let revised = '';
    let edited = 0;
    for (let i = 0; i < original.length; ) {
      const gap = 1 + Math.floor(rnd() * 22);
      revised += original.slice(i, i + gap);
      i += gap;
      const len = 1 + Math.floor(rnd() * 8);
      const op = rnd();
      const run = Array.from({ length: len }, () => 'abcdefghijklmnopqrstuvwxyz '[Math.floor(rnd() * 27)]).join('');
      if (op < 0.5) (revised += run), (i += len);
      else if (op < 0.75) revised += run;
      else i += len;
      edited += len;
    }
    expect(edited / original.length).toBeGreaterThan(0.25);
    expect(edited / original.length).toBeLessThan(0.35);
    const value = editDistancePercent(original, revised);
    expect(value).toBe(seedEditDistance(original, revised));
    expect(value).toBeGreaterThan(10);
    expect(value).toBeLessThan(90);
  });
});
