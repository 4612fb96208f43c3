/**
 * A statement-level profile of the embedded database's own code (`FEEDLOOP_STATEMENT_PROFILE=<file>`,
 * a diagnostic knob, off by default; config.ts hands it to the thread): every statement the pipeline runs inside the database's thread
 * is timed there, summed by its first words, and the sums written to the file every second as JSON.
 * How docs/benchmarks.md's per-statement tables of the embedded pipeline are measured.
 */
import { writeFileSync } from 'node:fs';

/** Where the sums go; unset: nothing is timed. */
let target: string | undefined;
const sums = new Map<string, { n: number; ms: number }>();
let timer: NodeJS.Timeout | undefined;

/**
 * Turns the profile on in this thread: the embedded database's thread calls it with its
 * `statementProfile` (`FEEDLOOP_STATEMENT_PROFILE`, config.ts).
 *
 * @example
 * profileStatementsTo('/tmp/statements.json');
 */
export function profileStatementsTo(file: string | undefined): void {
  target = file;
}

/** A statement's name in the profile: its text's first 90 characters, whitespace folded. */
const nameOf = (text: string): string => text.replace(/\s+/g, ' ').trim().slice(0, 90);

/**
 * Runs `fn` (one statement), timing it under `text` when the profile is on.
 *
 * @example
 * const result = await timedStatement(sql, () => tx.query(sql, params));
 */
export async function timedStatement<T>(text: string, fn: () => Promise<T>): Promise<T> {
  if (!target) return fn();
  const started = performance.now();
  try {
    return await fn();
  } finally {
    const name = nameOf(text);
    const sum = sums.get(name) ?? { n: 0, ms: 0 };
    sum.n++;
    sum.ms += performance.now() - started;
    sums.set(name, sum);
    timer ??= setTimeout(flush, 1_000);
  }
}

function flush(): void {
  timer = undefined;
  if (!target) return;
  const rows = [...sums].map(([statement, s]) => ({ statement, n: s.n, ms: Math.round(s.ms) })).sort((a, b) => b.ms - a.ms);
  writeFileSync(target, JSON.stringify(rows, null, 1));
}
