/**
 * `/mcp`: the MCP server over Streamable HTTP (stateless: a server and transport per request),
 * authenticated like every route by the workspace's secret key; the tools act with that key.
 *
 * The MCP SDK is loaded at the first request: ~25 MB resident that a server no agent talks MCP to
 * never needs (the embedded profile's idle memory, issue 21).
 */
import type { FastifyPluginAsync } from 'fastify';
import { injectApi } from '../../mcp/api-call.js';
import type { AppServices } from '../services.js';

let mcp: Promise<[typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js'), typeof import('../../mcp/mcp-server.js')]> | undefined;
/** The SDK's transport and feedloop's MCP server, loaded once on first use. */
const loadMcp = () => (mcp ??= Promise.all([import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('../../mcp/mcp-server.js')]));

/** The MCP route. */
export const mcpRoutes: FastifyPluginAsync<AppServices> = async (app) => {
  app.route({
    method: ['POST', 'GET', 'DELETE'],
    url: '/mcp',
    schema: { summary: 'MCP (Streamable HTTP): the feedback tool of ADR-0012 and friends; see docs/mcp.md', tags: ['mcp'], hide: true },
    handler: async (request, reply) => {
      const [{ StreamableHTTPServerTransport }, { createMcpServer }] = await loadMcp();
      const api = injectApi(app, request.headers.authorization ?? '');
      const server = createMcpServer(api, {}, { onError: (err) => request.log.error({ err }, 'MCP tool call failed') });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      reply.hijack();
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    },
  });
};
