/**
 * Benchmark: editDistancePercent (packages/core) against the ADR-016 reference
 * built on jsdiff's diffChars, on a deterministic 10 KB text and a revision
 * with ~30 % of its characters edited.
 *
 * Run: node --import tsx bench/edit-distance.bench.ts
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { editDistancePercent } from '../packages/core/src/edit-distance.js';
import { seedEditDistance } from '../packages/core/test/seed-fixtures.js';
import type { BenchResult } from './bench-server.js';



/** mulberry32: small, fast, deterministic. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the of and to in is was for on that with as by at from this be are it an or which ' +
  'feedback loop review draft editor revision model prompt output text user accept reject ' +
  'quality metric latency change insert delete token character paragraph sentence résumé café'
).split(' ');

/** Prose-like text of exactly `length` UTF-16 units. */
function makeText(rnd: () => number, length: number, extra: readonly string[] = []): string {
  const vocab = [...WORDS, ...extra];
  let s = '';
  while (s.length < length) {
    s += vocab[Math.floor(rnd() * vocab.length)];
    const r = rnd();
    s += r < 0.08 ? '. ' : r < 0.14 ? ', ' : r < 0.16 ? '\n' : ' ';
  }
  return s.slice(0, length);
}

/**
 * Revision of `text` where runs of 1–8 characters are substituted, inserted or
 * deleted, separated by untouched gaps of 1–22 characters (≈ 30 % edited).
 */
function makeRevision(rnd: () => number, text: string, alphabet: string): { revised: string; editedFraction: number } {
  const chars = Array.from(alphabet);
  const randomRun = (len: number) => {
    let s = '';
    for (let i = 0; i < len; i++) s += chars[Math.floor(rnd() * chars.length)];
    return s;
  };
  let out = '';
  let edited = 0;
  let i = 0;
  while (i < text.length) {
    const gap = 1 + Math.floor(rnd() * 22);
    out += text.slice(i, i + gap);
    i += gap;
    if (i >= text.length) break;
    const len = 1 + Math.floor(rnd() * 8);
    const op = rnd();
    if (op < 0.5) {
      out += randomRun(len); // substitution
      i += len;
    } else if (op < 0.75) {
      out += randomRun(len); // insertion
    } else {
      i += len; // deletion
    }
    edited += len;
  }
  return { revised: out, editedFraction: edited / text.length };
}

function timeIt(fn: () => number, minReps: number, minMs: number): number {
  let reps = 0;
  const t0 = performance.now();
  let elapsed = 0;
  while (reps < minReps || elapsed < minMs) {
    fn();
    reps++;
    elapsed = performance.now() - t0;
  }
  return elapsed / reps;
}

interface Case {
  name: string;
  original: string;
  revised: string;
}

function buildCases(): Case[] {
  const rnd = prng(0x5eed_016);
  const original = makeText(rnd, 10_240);
  const { revised, editedFraction } = makeRevision(rnd, original, 'abcdefghijklmnopqrstuvwxyz ,.é');
  if (Math.abs(editedFraction - 0.3) > 0.03) throw new Error(`edit fraction drifted: ${editedFraction}`);
  // Shared emoji force the exact jsdiff replay instead of the bit-parallel LCS.
  const rnd2 = prng(0xa57a1);
  const emoji = ['😀', '🚀', '👍🏽', '𝔽'];
  const original2 = makeText(rnd2, 10_240, emoji);
  const { revised: revised2 } = makeRevision(rnd2, original2, 'abcdefghij 😀🚀');
  return [
    { name: 'edit distance (10 KB, 30 % edits)', original, revised },
    { name: 'edit distance (10 KB, 30 % edits, shared emoji)', original: original2, revised: revised2 },
  ];
}

/** Runs the benchmark; `value` is ms/op of editDistancePercent, `baseline` ms/op of the diffChars reference. */
export async function runEditDistanceBench(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  for (const c of buildCases()) {
    const expected = seedEditDistance(c.original, c.revised);
    const actual = editDistancePercent(c.original, c.revised);
    if (expected !== actual) throw new Error(`${c.name}: editDistancePercent ${actual} != diffChars ${expected}`);
    for (let i = 0; i < 20; i++) editDistancePercent(c.original, c.revised); // warm-up
    seedEditDistance(c.original, c.revised);
    const fast = timeIt(() => editDistancePercent(c.original, c.revised), 30, 500);
    const seed = timeIt(() => seedEditDistance(c.original, c.revised), 3, 1500);
    results.push({ name: c.name, value: fast, unit: 'ms/op', baseline: seed, ratio: seed / fast });
    await new Promise((r) => setTimeout(r, 0)); // let a combined runner breathe between cases
  }
  return results;
}

const fmt = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1));

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  for (const r of await runEditDistanceBench()) {
    console.log(
      `${r.name}: feedloop ${fmt(r.value)} ms/op, diffChars (seed) ${fmt(r.baseline)} ms/op, ratio ${Math.round(r.ratio)}x`,
    );
  }
}
