import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { requestWithRetry } from '../src/cli/api-client.js';

/** A port nothing listens on: taken, then let go. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

describe('the CLI API client without a server', () => {
  it('names the URL it tried and how to point it elsewhere', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const failed = requestWithRetry({ url, key: 'fl_sk_x' }, 'POST', '/v1/responses/batch', { responses: [] }, { attempts: 2, baseDelayMs: 1, maxDelayMs: 2 });
    await expect(failed).rejects.toThrow(`POST ${url}/v1/responses/batch: no answer after 2 attempts (ECONNREFUSED). Is a feedloop server running at ${url}? Point the command at it with --url or FEEDLOOP_URL.`);
  });
});
