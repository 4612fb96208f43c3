/**
 * A private server process for tests that stop and restart a service (Redis, NATS): the machine's
 * shared services serve other suites running at the same time, so they are never stopped. Each
 * server gets a free port and a data folder of its own, kept across a restart.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serviceAvailable } from './harness.js';
import { freePort, within } from './process-helpers.js';

/** A server this test owns. */
export interface ServiceProcess {
  readonly url: string;
  /** Kills it (SIGKILL) and waits until it is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port and data folder, and waits until it answers. */
  restart(): Promise<void>;
  /** Kills it and removes its data. */
  dispose(): Promise<void>;
}

/** How to run one kind of server. */
export interface ServiceSpec {
  name: string;
  command: string;
  args(port: number, dir: string): string[];
  url(port: number): string;
  /** Resolves once the server at `url` answers; rejects while it does not. */
  probe(url: string): Promise<void>;
}

/**
 * Whether a server's program is installed (`<command> --version` runs): a failure in CI, a loud
 * skip elsewhere, as for a service that does not answer.
 *
 * @example
 * export const natsServerInstalled = await serverInstalled('nats-server');
 */
export function serverInstalled(command: string): Promise<boolean> {
  return serviceAvailable(`${command} (a private server for the outage tests)`, () => promisify(execFile)(command, ['--version'], { timeout: 5_000 }));
}

/**
 * Starts a private server on a free port and waits until it answers.
 *
 * @example
 * const redis = await startServiceProcess(REDIS_SPEC); await redis.kill(); await redis.restart();
 */
export async function startServiceProcess(spec: ServiceSpec): Promise<ServiceProcess> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), `feedloop-${spec.name}-`));
  const url = spec.url(port);
  let child: ChildProcess | undefined;

  const start = async (): Promise<void> => {
    child = spawn(spec.command, spec.args(port, dir), { stdio: 'ignore' });
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        await spec.probe(url);
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`${spec.command} on ${port} did not start`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };
  const kill = async (): Promise<void> => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((resolve) => c.once('exit', resolve));
    c.kill('SIGKILL');
    await within(exited, 10_000, `${spec.command} exit`);
  };
  await start();
  return {
    url,
    kill,
    restart: start,
    async dispose() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
