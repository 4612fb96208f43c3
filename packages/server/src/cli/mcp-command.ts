/**
 * `feedloop mcp`: the MCP server on stdio. With `FEEDLOOP_URL` its tools talk to a running
 * feedloop over HTTP (the way to go when a server holds the embedded data folder); otherwise it
 * opens the same database as `start` (DATABASE_URL or FEEDLOOP_DATA_DIR) and serves the API
 * in-process, with the pipeline's worker, without listening on a port. Either way the tools act
 * with `FEEDLOOP_API_KEY`, a secret key, for the user `FEEDLOOP_MCP_USER_ID` when a call names
 * no `user_id`. Stdout carries the protocol only: logs stay silent.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Config } from '../config.js';
import { FeedloopError } from '../errors.js';
import { httpApi } from '../mcp/api-call.js';
import { createMcpServer } from '../mcp/mcp-server.js';
import { openInProcessApi, type InProcessApi } from '../server.js';

/**
 * Runs the stdio MCP server until stdin closes; resolves once everything is closed.
 *
 * @example
 * await runMcp(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
 */
export async function runMcp(config: Config): Promise<void> {
  const { apiKey: key, url, mcpUserId } = config.client;
  if (!key) throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'FEEDLOOP_API_KEY is required: a secret key of the workspace', { field: 'FEEDLOOP_API_KEY' });
  const { api, close }: InProcessApi = url ? { api: httpApi(url, key), close: async () => undefined } : await openInProcessApi(config, key);
  // The session's identity: the user this process acts for when a call names none.
  const server = createMcpServer(api, mcpUserId ? { userId: mcpUserId } : {});
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => undefined);
  await close();
}
