/**
 * The machine's NATS with JetStream for the stream suites (`TEST_NATS_URL`), probed once: a
 * failure in CI, a loud skip elsewhere. Apart from harness.ts so only the suites that use NATS
 * probe it.
 */
import { connect } from '@nats-io/transport-node';
import { serviceAvailable } from './harness.js';

export const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

/** Whether NATS answers. */
export const natsUp = await serviceAvailable('NATS', async () => {
  const nc = await connect({ servers: NATS_URL, timeout: 2_000 });
  await nc.close();
});
