/**
 * How the app answers while it shuts down: requests that still arrive on open connections get a
 * coded `503 FEEDLOOP_ERR_UNAVAILABLE` (Fastify's own `return503OnClosing` answer has another shape),
 * and every answer tells the client to reconnect elsewhere.
 */
import type { FastifyInstance } from 'fastify';
import { FeedloopError } from '../errors.js';

/**
 * Installs the shutdown hooks; call it before any other `onRequest` hook, so a request refused
 * while closing costs no key lookup. Build the app with `return503OnClosing: false`.
 */
export function installShutdown(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async () => {
    if (closing) throw new FeedloopError('FEEDLOOP_ERR_UNAVAILABLE', 'the server is shutting down; retry on another connection');
  });
  // Answered keep-alive connections would hold `close()` open until the client hangs up (browsers
  // and proxy pools keep them for a long time): tell clients to reconnect elsewhere.
  app.addHook('onSend', async (_request, reply) => {
    if (closing) void reply.header('connection', 'close');
  });
}
