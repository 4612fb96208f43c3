/**
 * A workspace's `redactionPatterns` compiled for a linear-time engine (issue 22): RE2, compiled to
 * WebAssembly (`re2-wasm`, no native build). JavaScript's RegExp backtracks, so an operator's
 * `(a+)+$` once took 3.5 s of the event loop on a 28-character comment and stalled every other
 * request; RE2 answers in time linear in the text whatever the pattern. Patterns RE2 cannot run
 * (backreferences, lookaround) are refused when settings are saved ({@link redactionPatternProblem})
 * and skipped if one is still stored. The time is bounded too: texts are at most 200,000
 * characters (the ingest limit), patterns 500, and a text yields at most
 * {@link MAX_SPANS_PER_TEXT} spans a pattern.
 *
 * RE2 is loaded at the first pattern: its WebAssembly heap is ~17 MB resident, which a server whose
 * workspaces set no pattern never needs (the embedded profile's idle memory, issue 21).
 */
import { createRequire } from 'node:module';
import type { PatternMatcher, RedactionPattern } from '@feedloop/core';
import type { RE2 } from 're2-wasm';

let re2: typeof RE2 | undefined;
/** The RE2 class, loaded once on first use. */
function engine(): typeof RE2 {
  re2 ??= (createRequire(import.meta.url)('re2-wasm') as typeof import('re2-wasm')).RE2;
  return re2;
}

/** Matches kept per text and pattern: the replacements of one text stay bounded. */
export const MAX_SPANS_PER_TEXT = 10_000;

/** Compiled patterns kept by source, so a request does not compile its workspace's patterns again. */
const CACHE_LIMIT = 512;
const cache = new Map<string, RE2 | null>();

/** RE2 for a pattern (`null` when RE2 cannot run it), from the cache. */
function compiled(pattern: string): RE2 | null {
  const hit = cache.get(pattern);
  if (hit !== undefined) return hit;
  let re: RE2 | null;
  try {
    // RE2 runs in Unicode mode only ('u'); 'g' for successive matches.
    re = new (engine())(pattern, 'gu');
  } catch {
    re = null;
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(pattern, re);
  return re;
}

/**
 * Why RE2 cannot run a pattern, or undefined when it can. Settings refuse such a pattern.
 *
 * @example
 * redactionPatternProblem('(a)\\1') // 'uses what the linear-time engine (RE2) does not support: …'
 * redactionPatternProblem('ACC-\\d{6}') // undefined
 */
export function redactionPatternProblem(pattern: string): string | undefined {
  try {
    new (engine())(pattern, 'gu');
    return undefined;
  } catch (err) {
    return `is not supported by the linear-time engine (RE2: no backreferences or lookaround): ${(err as Error).message.replace(/^Invalid regular expression: /, '')}`;
  }
}

/**
 * The workspace's patterns as core's matchers, each run on RE2.
 *
 * @example
 * redactPii(text, patternMatchers([{ name: 'account', pattern: 'ACC-\\d{6}' }]))
 */
export function patternMatchers(patterns: readonly RedactionPattern[]): PatternMatcher[] {
  const out: PatternMatcher[] = [];
  for (const p of patterns) {
    const re = compiled(p.pattern);
    if (re === null) continue;
    out.push({
      kind: p.name,
      spans(text: string): Array<[number, number]> {
        const spans: Array<[number, number]> = [];
        re.lastIndex = 0;
        for (let m = re.exec(text); m !== null && spans.length < MAX_SPANS_PER_TEXT; m = re.exec(text)) {
          const length = m[0]?.length ?? 0;
          if (length === 0) {
            re.lastIndex++;
            continue;
          }
          spans.push([m.index, m.index + length]);
        }
        return spans;
      },
    });
  }
  return out;
}
