/**
 * Issue 25, no internals on the wire: a failed event is stored and served with a registry code and
 * one short line (never a stack), older rows holding a stack are served without it, and MCP tool
 * errors carry a code and, for an unexpected failure, nothing of its own text.
 */
import { ERROR_CODES } from '@feedloop/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeedloopError, parseStoredFailure, storedFailure } from '../src/errors.js';
import type { ApiCall } from '../src/mcp/api-call.js';
import { createMcpServer } from '../src/mcp/mcp-server.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';
import { INTERNALS, insertPoisonEvent } from './poison-event.js';

describe('stored failures', () => {
  it('keep a FeedloopError as code and message, and anything else as FEEDLOOP_ERR_INTERNAL with one line and no path', () => {
    expect(storedFailure(new FeedloopError('FEEDLOOP_ERR_RESPONSE_NOT_FOUND', 'response "r1" not found'))).toBe('FEEDLOOP_ERR_RESPONSE_NOT_FOUND: response "r1" not found');
    const thrown = new TypeError("Cannot find module '/srv/feedloop/packages/server/src/pipeline/x.ts' imported\nfrom there");
    const text = storedFailure(thrown);
    expect(text).toBe("FEEDLOOP_ERR_INTERNAL: TypeError: Cannot find module '<path>' imported");
    expect(storedFailure('x'.repeat(5_000)).length).toBeLessThan(250);
  });

  it('are read back as code and message; a stack stored by an older version keeps its first line only', () => {
    expect(parseStoredFailure('FEEDLOOP_ERR_RESPONSE_NOT_FOUND: response "r1" not found')).toEqual({ code: 'FEEDLOOP_ERR_RESPONSE_NOT_FOUND', message: 'response "r1" not found' });
    const legacy = 'Error: response "r9" not found in workspace ws_1\n    at runStages (/srv/feedloop/packages/server/src/pipeline/run-stages.ts:103:30)';
    expect(parseStoredFailure(legacy)).toEqual({ code: 'FEEDLOOP_ERR_INTERNAL', message: 'Error: response "r9" not found in workspace ws_1' });
    // A code the registry does not know is not taken on trust.
    expect(parseStoredFailure('FEEDLOOP_ERR_MADE_UP: x').code).toBe('FEEDLOOP_ERR_INTERNAL');
  });
});

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`failed events on the wire on ${backend.name}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(await backend.open());
    });
    afterAll(() => t.close());

    it('a poison event is stored and listed with its registry code and one line, no stack', async () => {
      await insertPoisonEvent(t.db, t.workspaceId, 'we-poison');
      await t.services.pipeline.process([[t.workspaceId, 'we-poison']]);
      const [row] = await t.db.query<{ status: string; error: string }>('SELECT status, error FROM feedback_signals WHERE workspace_id = $1 AND event_id = $2', [
        t.workspaceId,
        'we-poison',
      ]);
      expect(row?.status).toBe('failed');
      expect(row?.error).toBe(`FEEDLOOP_ERR_RESPONSE_NOT_FOUND: response "no-such-response" not found in workspace ${t.workspaceId}`);

      // A row an older version stored, with the stack it kept then.
      await t.db.query(
        `INSERT INTO feedback_signals (workspace_id, event_id, response_id, type, status, error, occurred_at)
         VALUES ($1, 'we-legacy', 'r-gone', 'thumbs_up', 'failed', $2, now() - interval '1 day')`,
        [t.workspaceId, 'Error: response "r-gone" not found\n    at runStages (/srv/feedloop/packages/server/src/pipeline/run-stages.ts:103:30)\n    at process (node:internal/x:1:2)'],
      );
      const res = await t.app.inject({ method: 'GET', url: '/v1/pipeline', headers: t.auth });
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toMatch(INTERNALS);
      const failed = res.json().failedEvents as Array<{ eventId: string; code: string; error: string }>;
      expect(failed.find((f) => f.eventId === 'we-poison')).toMatchObject({ code: 'FEEDLOOP_ERR_RESPONSE_NOT_FOUND', error: row?.error });
      expect(failed.find((f) => f.eventId === 'we-legacy')).toMatchObject({ code: 'FEEDLOOP_ERR_INTERNAL', error: 'FEEDLOOP_ERR_INTERNAL: Error: response "r-gone" not found' });
    });
  });
}

describe('MCP tool errors', () => {
  const connect = async (api: ApiCall, onError?: (err: unknown) => void) => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(api, {}, onError ? { onError } : {}).connect(serverSide);
    const client = new Client({ name: 'wire-errors-test', version: '0' });
    await client.connect(clientSide);
    return client;
  };
  type ToolResult = { isError?: boolean; content: Array<{ text?: string }>; structuredContent?: { error?: { code: string; message: string; field?: string } } };

  it('an unexpected failure is FEEDLOOP_ERR_INTERNAL without its own text, which goes to onError', async () => {
    const logged: unknown[] = [];
    const client = await connect(async () => {
      throw new Error('connect ECONNREFUSED 10.0.3.7:5432 at /srv/feedloop/packages/server/src/db/postgres-client.ts:40:7');
    }, (err) => logged.push(err));
    const r = (await client.callTool({ name: 'get_stats', arguments: {} })) as ToolResult;
    expect(r.isError).toBe(true);
    expect(r.structuredContent?.error).toEqual({ code: 'FEEDLOOP_ERR_INTERNAL', message: ERROR_CODES.FEEDLOOP_ERR_INTERNAL.description });
    expect(r.content[0]?.text).toBe(`FEEDLOOP_ERR_INTERNAL: ${ERROR_CODES.FEEDLOOP_ERR_INTERNAL.description}`);
    expect(JSON.stringify(r)).not.toMatch(/ECONNREFUSED|10\.0\.3\.7/);
    expect(JSON.stringify(r)).not.toMatch(INTERNALS);
    expect(logged).toHaveLength(1);
    await client.close();
  });

  it('a bad argument, an API error and an unknown tool each carry a registry code', async () => {
    const client = await connect(async () => ({ status: 404, body: { error: { code: 'FEEDLOOP_ERR_RESPONSE_NOT_FOUND', message: 'no response r1' } } }));
    const bad = (await client.callTool({ name: 'rate_response', arguments: {} })) as ToolResult;
    expect(bad.structuredContent?.error).toEqual({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', message: 'response_id: required, a non-empty string', field: 'response_id' });
    const api = (await client.callTool({ name: 'rate_response', arguments: { response_id: 'r1', thumbs: 'up' } })) as ToolResult;
    expect(api.structuredContent?.error).toEqual({ code: 'FEEDLOOP_ERR_RESPONSE_NOT_FOUND', message: 'no response r1' });
    const unknown = (await client.callTool({ name: 'no_such_tool', arguments: {} })) as ToolResult;
    expect([unknown.isError, unknown.structuredContent?.error?.code]).toEqual([true, 'FEEDLOOP_ERR_NOT_FOUND']);
    await client.close();
  });
});
