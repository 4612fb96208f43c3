/**
 * Memory of the benchmarked processes, from `/proc/<pid>/status`: resident set size now (VmRSS)
 * and its peak (VmHWM), a sampler that follows a process during a run, and the soak report
 * (growth from the first to the last minute of a long run).
 */
import { readFileSync } from 'node:fs';
import { dec } from './bench-server.js';

/** RSS and peak RSS of a process in MB; `undefined` once it is gone (or without /proc). */
export function readRss(pid: number): { rssMb: number; peakMb: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

/** RSS samples of one process taken every `everyMs` until stopped. */
export interface RssSampler {
  /** Stops sampling; returns the samples (ms since start, MB). */
  stop(): Array<{ atMs: number; rssMb: number }>;
}

/** Samples a process's RSS every `everyMs` (first sample at once). */
export function sampleRss(pid: number, everyMs: number): RssSampler {
  const t0 = performance.now();
  const samples: Array<{ atMs: number; rssMb: number }> = [];
  const take = (): void => {
    const r = readRss(pid);
    if (r) samples.push({ atMs: performance.now() - t0, rssMb: r.rssMb });
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}

const mean = (xs: readonly number[]): number => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length);

/**
 * `max 412 MB; first minute 380 MB, last minute 395 MB: +15 MB (+3.9 %)` — the soak verdict:
 * mean RSS of the first and of the last minute (a third of the run each when it is shorter
 * than three minutes).
 */
export function describeRssGrowth(samples: ReadonlyArray<{ atMs: number; rssMb: number }>): { text: string; growthMb: number } {
  if (samples.length === 0) return { text: 'no RSS samples', growthMb: NaN };
  const end = samples[samples.length - 1]?.atMs ?? 0;
  const window = Math.min(60_000, end / 3);
  const first = mean(samples.filter((s) => s.atMs <= window).map((s) => s.rssMb));
  const last = mean(samples.filter((s) => s.atMs >= end - window).map((s) => s.rssMb));
  const max = Math.max(...samples.map((s) => s.rssMb));
  const growth = last - first;
  const span = window >= 60_000 ? 'minute' : `${dec(window / 1000, 0)} s`;
  return {
    text: `max ${dec(max, 0)} MB; first ${span} ${dec(first, 0)} MB, last ${span} ${dec(last, 0)} MB: ${growth >= 0 ? '+' : ''}${dec(growth, 0)} MB (${growth >= 0 ? '+' : ''}${dec((growth / first) * 100, 1)} %) over ${dec(end / 60_000, 1)} min, ${samples.length} samples`,
    growthMb: growth,
  };
}

/** `BENCH_SOAK_MS`: length of the soak run (0, the default: no soak). */
export function soakMs(): number {
  const v = Number(process.env.BENCH_SOAK_MS);
  return Number.isFinite(v) && v > 0 ? Math.floor(v) : 0;
}

/** RSS sampling interval of the soak run (the issue asks for 10 s). */
export const SOAK_SAMPLE_MS = 10_000;
