/**
 * What the ingest benchmarks read off a run: the server's `/metrics` (group-commit batch sizes,
 * event counters) and CPU use per party from `/proc`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dec, int } from './bench-server.js';

/** `GET <url>/metrics` as text. */
export async function fetchMetrics(url: string): Promise<string> {
  const res = await fetch(`${url}/metrics`);
  return res.text();
}

/** Group-commit batch sizes of one kind from a `/metrics` text: count, sum and the cumulative buckets. */
export interface BatchSizeStats {
  count: number;
  sum: number;
  buckets: Array<{ le: string; n: number }>;
}

/** Reads `feedloop_group_commit_batch_size{kind=…}` from a `/metrics` text. */
export function batchSizeStats(metrics: string, kind = 'feedback'): BatchSizeStats {
  const stats: BatchSizeStats = { count: 0, sum: 0, buckets: [] };
  for (const line of metrics.split('\n')) {
    if (!line.startsWith('feedloop_group_commit_batch_size') || !line.includes(`kind="${kind}"`)) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (line.startsWith('feedloop_group_commit_batch_size_bucket')) {
      const le = /le="([^"]+)"/.exec(line)?.[1] ?? '?';
      stats.buckets.push({ le, n: value });
    } else if (line.startsWith('feedloop_group_commit_batch_size_sum')) stats.sum = value;
    else if (line.startsWith('feedloop_group_commit_batch_size_count')) stats.count = value;
  }
  return stats;
}

/** The difference of two snapshots (after − before). */
export function diffBatchStats(after: BatchSizeStats, before: BatchSizeStats): BatchSizeStats {
  return {
    count: after.count - before.count,
    sum: after.sum - before.sum,
    buckets: after.buckets.map((b) => ({ le: b.le, n: b.n - (before.buckets.find((x) => x.le === b.le)?.n ?? 0) })),
  };
}

/** `mean 12.3 per commit over 456 commits; ≤5: 10 %, ≤50: 80 %, …` */
export function describeBatchStats(s: BatchSizeStats): string {
  if (s.count === 0) return 'no commits';
  let prev = 0;
  const parts: string[] = [];
  for (const b of s.buckets) {
    const n = b.n - prev;
    prev = b.n;
    if (n > 0) parts.push(`≤${b.le}: ${Math.round((n / s.count) * 100)} %`);
  }
  return `mean ${dec(s.sum / s.count, 1)} events per commit over ${int(s.count)} commits (${parts.join(', ')})`;
}

/** A counter's value from a `/metrics` text, summed over series whose labels contain `labels`. */
export function counterValue(metrics: string, name: string, labels = ''): number {
  let total = 0;
  for (const line of metrics.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (labels && !line.includes(labels)) continue;
    total += Number(line.slice(line.lastIndexOf(' ') + 1)) || 0;
  }
  return total;
}

// ---------------------------------------------------------------------------------------------
// CPU accounting (Linux /proc): who used the 2 cores during a measured window

/** Cumulative CPU ticks at one moment: the whole machine, one process, Postgres, this process. */
export interface CpuSample {
  at: number;
  busy: number;
  /** Time the hypervisor gave our virtual CPUs to someone else. */
  steal: number;
  server: number;
  postgres: Map<number, number>;
  self: number;
}

const TICKS_PER_S = 100;

/**
 * utime + stime of a process; with `withChildren` also its waited-for children's (cutime +
 * cstime), so a load generator run as a child (wrk) that exited before the second sample counts
 * as this process's load-generator time.
 */
function procTicks(pid: number | string, withChildren = false): { comm: string; ticks: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const rest = stat.slice(close + 2).split(' ');
    const children = withChildren ? Number(rest[13]) + Number(rest[14]) : 0;
    return { comm, ticks: Number(rest[11]) + Number(rest[12]) + children };
  } catch {
    return undefined;
  }
}

/** Samples CPU counters; `undefined` where /proc is missing. */
export function sampleCpu(serverPid: number): CpuSample | undefined {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
    // user nice system idle iowait irq softirq steal
    const busy = [0, 1, 2, 5, 6].reduce((a, i) => a + (cpu[i] ?? 0), 0);
    const steal = cpu[7] ?? 0;
    const postgres = new Map<number, number>();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const p = procTicks(entry);
      if (p && p.comm === 'postgres') postgres.set(Number(entry), p.ticks);
    }
    return { at: performance.now(), busy, steal, server: procTicks(serverPid)?.ticks ?? 0, postgres, self: procTicks(process.pid, true)?.ticks ?? 0 };
  } catch {
    return undefined;
  }
}

/** Cores used between two samples: `feedloop 0.95, postgres 0.70, load generator 0.20, other 0.10, stolen 0.00`. */
export function describeCpu(a: CpuSample | undefined, b: CpuSample | undefined, serverLabel = 'feedloop'): string {
  if (!a || !b) return 'CPU use unavailable';
  const s = (b.at - a.at) / 1000;
  const cores = (ticks: number): number => ticks / TICKS_PER_S / s;
  let pg = 0;
  for (const [pid, t] of b.postgres) pg += t - (a.postgres.get(pid) ?? 0);
  const server = b.server - a.server;
  const self = b.self - a.self;
  const busy = b.busy - a.busy;
  const other = Math.max(0, busy - server - pg - self);
  return (
    `CPU (cores of ${cpus().length}): ${serverLabel} ${dec(cores(server))}, postgres ${dec(cores(pg))}, load generator ${dec(cores(self))}, ` +
    `other processes ${dec(cores(other))}, stolen by the hypervisor ${dec(cores(b.steal - a.steal))}`
  );
}
