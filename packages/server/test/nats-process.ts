/**
 * A private NATS server with JetStream (file storage in its own folder, so streams and their
 * messages survive a SIGKILL and restart) for tests that stop and restart NATS.
 */
import { connect } from '@nats-io/transport-node';
import { serverInstalled, startServiceProcess, type ServiceProcess } from './service-process.js';

const NATS_SERVER = process.env.NATS_SERVER_BIN ?? 'nats-server';

/** Whether `nats-server` is installed (a failure in CI, a loud skip elsewhere). */
export const natsServerInstalled = await serverInstalled(NATS_SERVER);

/**
 * Starts a private NATS with JetStream on a free port.
 *
 * @example
 * const nats = await startNatsProcess(); await nats.kill(); await nats.restart();
 */
export function startNatsProcess(): Promise<ServiceProcess> {
  return startServiceProcess({
    name: 'nats',
    command: NATS_SERVER,
    args: (port, dir) => ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir],
    url: (port) => `nats://127.0.0.1:${port}`,
    async probe(url) {
      const nc = await connect({ servers: url, timeout: 1_000, reconnect: false });
      await nc.close();
    },
  });
}
