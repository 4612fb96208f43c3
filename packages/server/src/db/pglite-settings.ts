/**
 * The embedded Postgres's memory settings. PGlite keeps Postgres's server defaults, sized for a
 * dedicated database machine, inside this process's WebAssembly heap, and a WebAssembly heap
 * never shrinks: whatever Postgres touches once stays resident for the life of the process.
 *
 * `shared_buffers` (default 16 MiB, `DEFAULT_PGLITE_SHARED_BUFFERS_MB` in config.ts): Postgres's
 * 128 MiB is allocated and touched at start, so it was 128 MiB of the idle process's RSS
 * whatever the data. 16 MiB (2,048 pages) holds the hot pages of ingest (the tails of the events
 * table and its indexes, the outbox, the responses being voted on); a page past it is read back
 * from the operating system's page cache by one file read. Figures and the cost in
 * docs/benchmarks.md, "Embedded memory"; `FEEDLOOP_PGLITE_SHARED_BUFFERS_MB` raises it.
 */
import { setFlagsFromString } from 'node:v8';
import { PGlite } from '@electric-sql/pglite';

/** The memory settings PGlite starts with. */
export interface PgliteMemoryOptions {
  /** Postgres `shared_buffers`, in MiB (at least 1). */
  sharedBuffersMb: number;
  /** Diagnostics: where the thread writes its statement timings (db/statement-profile.ts); unset: nowhere. */
  statementProfile?: string;
}

/**
 * PGlite's start parameters: its own defaults (single-user mode, no parallel workers) plus the
 * memory settings. Passing `startParams` replaces PGlite's list, hence the spread.
 *
 * @example
 * await PGlite.create({ startParams: pgliteStartParams({ sharedBuffersMb: 16 }) });
 */
export function pgliteStartParams(options: PgliteMemoryOptions): string[] {
  const sharedBuffersMb = Math.max(1, Math.floor(options.sharedBuffersMb));
  return [
    ...PGlite.defaultStartParams,
    '-c',
    `shared_buffers=${sharedBuffersMb}MB`,
  ];
}

/**
 * Limits V8 to one background task for compiling WebAssembly; call before PGlite compiles its
 * module (the first `PGlite.create` of the process). PGlite's 9 MB module is compiled, and its
 * hot functions recompiled by the optimizing tier, on V8's worker threads, each of which keeps
 * its own malloc arena: with Node's four workers that left ~25 MB resident per arena, ~75 MB in
 * all, after compilation was over. One task leaves one arena (~35 MB). The cost: compiling and
 * tiering up on one thread instead of four (on the 2-core machine, where only two run at once,
 * no clear change in ingest CPU; see docs/benchmarks.md). A WebAssembly-only flag.
 *
 * @example
 * limitWasmCompilationThreads(); const db = await PGlite.create();
 */
export function limitWasmCompilationThreads(): void {
  setFlagsFromString('--wasm-num-compilation-tasks=1');
}
