/**
 * `/mcp`: the MCP server over Streamable HTTP (stateless: a server and transport per request),
 * authenticated like every route by the workspace's secret key; the tools act with that key.
 */
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyPluginAsync } from 'fastify';
import { injectApi } from '../../mcp/api-call.js';
import { createMcpServer } from '../../mcp/mcp-server.js';
import type { AppServices } from '../services.js';

/** The MCP route. */
export const mcpRoutes: FastifyPluginAsync<AppServices> = async (app) => {
  app.route({
    method: ['POST', 'GET', 'DELETE'],
    url: '/mcp',
    schema: { summary: 'MCP (Streamable HTTP): the feedback tool of ADR-0012 and friends; see docs/mcp.md', tags: ['mcp'], hide: true },
    handler: async (request, reply) => {
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
