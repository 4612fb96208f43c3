/**
 * The embedded profile's memory: `feedloop start` on PGlite (in-process worker and queue) once
 * idle. It held 846 MB: PGlite's initdb left its heaps in the server, Postgres's 128 MB of
 * shared buffers were touched at start, V8 kept one malloc arena per WebAssembly compile thread,
 * and the Redis, NATS, Postgres and HTTP-client libraries were loaded without being used
 * (docs/benchmarks.md, "Embedded memory"). Measured now ~222-289 MB idle on the 2-core machine.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killAllServers, startServerProcess, within, type ServerProcess } from './process-helpers.js';

/**
 * Bound on idle RSS. Issue 8's target is 250 MB: met at 185-225 MB before the analytics and
 * export modules; with them, and core's own distributions instead of @stdlib's (20-35 MB less),
 * a first start idles at 224-236 MB with NODE_ENV=production and 250-261 MB without it (as
 * `npm start` and this test run it): docs/benchmarks.md, "Issue 8, third session". PGlite in a
 * thread of its own (issue 21) costs a second V8 isolate and malloc arena, ~20-25 MB: 222-289 MB
 * idle over runs on the shared 2-core machine (docs/benchmarks.md, "Embedded memory"; the 250 MB
 * target is open). The bound keeps it from growing further; it is no target.
 */
const IDLE_RSS_BOUND_MB = 300;
/**
 * Peak RSS of the first start on an empty folder. With initdb in the server it was ~850 MB;
 * with initdb in a child, the server's own peak is that of a restart.
 */
const FIRST_START_PEAK_BOUND_MB = 400;
/**
 * Idle long enough for start-up garbage to be collected as an idle server would: the
 * scheduled jobs' first runs are done by then.
 */
const IDLE_MS = 10_000;

const dir = mkdtempSync(join(tmpdir(), 'feedloop-memory-'));

afterAll(async () => {
  await killAllServers();
  rmSync(dir, { recursive: true, force: true });
});

/** VmRSS and VmHWM of a process, in MB. */
function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
  return { rssMb: mb('VmRSS'), peakMb: mb('VmHWM') };
}

async function stop(server: ServerProcess): Promise<void> {
  server.signal('SIGTERM');
  await within(server.exited, 30_000, 'server exit');
}

describe('embedded profile memory', () => {
  it(`stays under ${IDLE_RSS_BOUND_MB} MB idle, on a new data folder and after a restart`, async () => {
    const env = { FEEDLOOP_DATA_DIR: join(dir, 'data') };

    const first = await startServerProcess(env, 120_000);
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const fresh = memoryOf(first.pid);
    await stop(first);

    const second = await startServerProcess(env, 120_000);
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const restarted = memoryOf(second.pid);
    await stop(second);

    expect(fresh.peakMb, `first start peak ${JSON.stringify(fresh)}`).toBeLessThan(FIRST_START_PEAK_BOUND_MB);
    expect(fresh.rssMb, `first start idle ${JSON.stringify(fresh)}`).toBeLessThan(IDLE_RSS_BOUND_MB);
    expect(restarted.rssMb, `restart idle ${JSON.stringify(restarted)}`).toBeLessThan(IDLE_RSS_BOUND_MB);
  }, 300_000);
});
