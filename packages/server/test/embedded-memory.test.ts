/**
 * The embedded profile's memory: `feedloop start` on PGlite (in-process worker and queue) once
 * idle. It held 846 MB: PGlite's initdb left its heaps in the server, Postgres's 128 MB of
 * shared buffers were touched at start, V8 kept one malloc arena per WebAssembly compile thread,
 * and the Redis, NATS, Postgres and HTTP-client libraries were loaded without being used
 * (docs/benchmarks.md, "Embedded memory").
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killAllServers, startServerProcess, within, type ServerProcess } from './process-helpers.js';

/**
 * Bound on idle RSS: issue 8's and issue 21's target, 250 MB. PGlite in a thread of its own
 * (issue 21) cost a second V8 isolate and malloc arena: 222-289 MB idle. `npm start` now runs
 * Node with one V8 platform thread and an 8 MB young generation (`--v8-pool-size=1
 * --max-semi-space-size=8`, the root package.json; this test starts the server with the same
 * flags): 201-228 MB over runs on the shared 2-core machine (docs/benchmarks.md, "Embedded
 * memory").
 */
const IDLE_RSS_BOUND_MB = 250;
/**
 * Peak RSS of the first start on an empty folder. With initdb in the server it was ~850 MB;
 * with initdb in a child, the server's own peak is that of a restart.
 */
const FIRST_START_PEAK_BOUND_MB = 400;
/**
 * Idle long enough for start-up garbage to be collected as an idle server's is: V8's memory
 * reducer shrinks each heap (the main thread's and the database thread's young generations,
 * grown during start-up, ~35 MB together) once it sees the process idle, 20–35 s after start on
 * this machine. At 10 s the same server measured 230–256 MB, at 40 s 197–220 MB.
 */
const IDLE_MS = 40_000;

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

    // The figures in the log: the margin under the bound is what CI's loaded runs eat into.
    console.info(`embedded idle memory: first start ${JSON.stringify(fresh)}, restart ${JSON.stringify(restarted)}`);
    expect(fresh.peakMb, `first start peak ${JSON.stringify(fresh)}`).toBeLessThan(FIRST_START_PEAK_BOUND_MB);
    expect(fresh.rssMb, `first start idle ${JSON.stringify(fresh)}`).toBeLessThan(IDLE_RSS_BOUND_MB);
    expect(restarted.rssMb, `restart idle ${JSON.stringify(restarted)}`).toBeLessThan(IDLE_RSS_BOUND_MB);
  }, 300_000);
});
