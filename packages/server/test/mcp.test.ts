/**
 * The MCP server tested with the official SDK's own Client: over Streamable HTTP at `/mcp` (both
 * stores, workspace key auth), and over stdio with `feedloop mcp`, both in-process on an embedded
 * folder and proxying to a running server (FEEDLOOP_URL). Lists the tools, calls every action of
 * the ADR-0012 `feedback` tool, checks what was stored and the error for a bad payload.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { migrateOpened } from '../src/db/migrate.js';
import { openDatabase } from '../src/db/open-database.js';
import { createApiKey } from '../src/store/api-keys.js';
import { createWorkspace } from '../src/store/workspaces.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';
import { CLI_PATH } from './process-helpers.js';

type Result = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown> };
const text = (r: Result) => r.content.map((c) => c.text ?? '').join('');

const ACTIONS: Array<[string, string, Record<string, unknown>]> = [
  ['correct_nli', 'edge_abc123', { correct_relation: 'SUPPORTS', original_relation: 'NEUTRAL', confidence: 0.95, reason: 'conclusion supports it' }],
  ['flag_irrelevant', 'frag_xyz789', { reason: 'advert text' }],
  ['flag_missing', 'page_def456', { missing_text: 'Figure 3 shows a 40% improvement...', location_hint: 'Results section, paragraph 2' }],
  ['correct_citation', 'frag_source', { cited_fragment_id: 'frag_target', relation: 'CITES', correction_type: 'add' }],
  ['rate_usefulness', 'frag_abc123', { rating: 5, aspect: 'relevance' }],
  ['add_note', 'claim_main', { note: 'may be overturned by post-2023 studies' }],
];

/** Exercises a connected client: tools, every action, the stored state, a bad payload, the other tools. */
async function exercise(client: Client, taskId: string): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(['feedback', 'get_feedback', 'get_stats', 'get_user_context', 'rate_response', 'register_target']);
  const fb = tools.find((t) => t.name === 'feedback');
  expect(fb?.inputSchema).toEqual({
    type: 'object',
    properties: {
      task_id: { type: 'string' },
      action: { type: 'string', enum: ['correct_nli', 'flag_irrelevant', 'flag_missing', 'correct_citation', 'rate_usefulness', 'add_note'] },
      target_id: { type: 'string' },
      payload: { type: 'object' },
      // Issue 24: the calling user, so per-voter rules apply to MCP calls (optional; the seed's four stay required).
      user_id: { type: 'string', description: expect.any(String) },
    },
    required: ['task_id', 'action', 'target_id', 'payload'],
  });
  for (const [action, target_id, payload] of ACTIONS) {
    const r = (await client.callTool({ name: 'feedback', arguments: { task_id: taskId, action, target_id, payload } })) as Result;
    expect(r.isError, text(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ status: 'accepted', action, taskRegistered: action === 'correct_nli' });
  }
  const first = (await client.callTool({ name: 'feedback', arguments: { task_id: taskId, action: 'correct_nli', target_id: 'edge_abc123', payload: { correct_relation: 'SUPPORTS', reason: 'again' } } })) as Result;
  expect((first.structuredContent?.target as { label: { value: string; humanCorrected: boolean } }).label).toMatchObject({ value: 'SUPPORTS', humanCorrected: true });

  const bad = (await client.callTool({ name: 'feedback', arguments: { task_id: taskId, action: 'correct_citation', target_id: 'frag_source', payload: { cited_fragment_id: 'x', correction_type: 'swap' } } })) as Result;
  expect(bad.isError).toBe(true);
  expect(text(bad)).toContain('payload.correction_type');
  const missing = (await client.callTool({ name: 'feedback', arguments: { task_id: taskId, action: 'rate_usefulness', target_id: 'f', payload: {} } })) as Result;
  expect(missing.isError).toBe(true);
  expect(text(missing)).toContain('payload.rating');

  const listed = (await client.callTool({ name: 'get_feedback', arguments: { response_id: taskId } })) as Result;
  const types = ((listed.structuredContent as { data: Array<{ type: string }> }).data ?? []).map((e) => e.type).sort();
  expect(types).toEqual(['add_note', 'correct_citation', 'correct_label', 'correct_label', 'flag_irrelevant', 'flag_missing', 'rate_usefulness']);
  const rated = (await client.callTool({ name: 'rate_response', arguments: { response_id: taskId, thumbs: 'up', user_id: 'u-mcp' } })) as Result;
  expect(rated.structuredContent).toMatchObject({ status: 'accepted' });
  const stats = (await client.callTool({ name: 'get_stats', arguments: {} })) as Result;
  expect(stats.isError, text(stats)).toBeFalsy();
  const ctx = (await client.callTool({ name: 'get_user_context', arguments: { user_id: 'u-mcp', explain: true } })) as Result;
  expect(ctx.structuredContent).toMatchObject({ userId: 'u-mcp', items: [] });
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`MCP over Streamable HTTP on ${backend.name}`, () => {
    let t: TestApp;
    let url: string;
    beforeAll(async () => {
      t = await startTestApp(await backend.open());
      url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    });
    afterAll(async () => {
      await t?.close();
    });

    it('lists the tools and runs every action with the SDK client', async () => {
      const client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${t.secretKey}` } } }));
      await exercise(client, 'task-http');
      await client.close();
    });

    it('registers targets and carries the calling user: NLI samples get the texts, one say per voter applies (issue 24)', async () => {
      const client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${t.secretKey}` } } }));
      const register = async (args: Record<string, unknown>) => (await client.callTool({ name: 'register_target', arguments: args })) as Result;
      expect((await register({ target_id: 'mf_1', kind: 'fragment', text: 'The trial cut relapse by 30 %.' })).isError).toBeFalsy();
      expect((await register({ target_id: 'mc_1', kind: 'claim', text: 'The drug prevents relapse.' })).isError).toBeFalsy();
      const edge = await register({ target_id: 'me_1', kind: 'edge', fragment_id: 'mf_1', claim_id: 'mc_1', relation: 'NEUTRAL', confidence: 0.5 });
      expect(edge.structuredContent).toMatchObject({ targetId: 'me_1', kind: 'edge', fragmentId: 'mf_1', claimId: 'mc_1' });
      const bad = await register({ target_id: 'me_2', kind: 'edge', claim_id: 'mc_1' });
      expect(bad.isError).toBe(true);
      expect(text(bad)).toContain('fragmentId');

      const correct = (user: string | undefined, relation: string) =>
        client.callTool({ name: 'feedback', arguments: { task_id: 'task-nli', action: 'correct_nli', target_id: 'me_1', payload: { correct_relation: relation }, ...(user ? { user_id: user } : {}) } }) as Promise<Result>;
      expect((await correct('reviewer-a', 'CONTRADICTS')).isError).toBeFalsy();
      const last = await correct('reviewer-a', 'SUPPORTS');
      const target = last.structuredContent?.target as { label: { value: string; voters: number }; history: Array<{ voter: string; decision: string }> };
      // The same user twice: one say, the newer; the older superseded.
      expect(target.label).toMatchObject({ value: 'SUPPORTS', voters: 1 });
      expect(target.history.map((h) => [h.voter, h.decision])).toEqual([
        ['user:reviewer-a', 'superseded'],
        ['user:reviewer-a', 'applied'],
      ]);
      const claim = (await t.app.inject({ method: 'GET', url: '/v1/targets/mc_1', headers: t.auth })).json();
      expect(claim.claimConfidence.value).toBeCloseTo(0.5 + 0.5 * 0.9, 10);

      const rows = (await t.app.inject({ method: 'GET', url: '/v1/exports/nli', headers: t.auth })).body.trim().split('\n').map((l) => JSON.parse(l));
      const ours = rows.filter((r: { target_id: string }) => r.target_id === 'me_1');
      expect(ours).toContainEqual({ premise: 'The trial cut relapse by 30 %.', hypothesis: 'The drug prevents relapse.', label: 'SUPPORTS', weight: 0.9, original_label: null, target_id: 'me_1', provenance: { trust: 'verified', verifiedEvents: 2, unverifiedEvents: 0 } });
      for (const r of ours) expect([r.premise, r.hypothesis]).toEqual(['The trial cut relapse by 30 %.', 'The drug prevents relapse.']);
      // No sample is ever blank or made of the task placeholder.
      for (const r of rows) expect(r.premise !== '' && !String(r.hypothesis).startsWith('MCP task')).toBe(true);
      await client.close();
    });

    it('refuses a call without a workspace key', async () => {
      const client = new Client({ name: 'test', version: '1.0.0' });
      await expect(client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)))).rejects.toThrow(/401|FEEDLOOP_ERR_AUTH_MISSING_KEY/);
    });

    if (backend.name === 'postgres') {
      it('feedloop mcp over stdio proxies to a running server with FEEDLOOP_URL', async () => {
        const client = new Client({ name: 'test', version: '1.0.0' });
        await client.connect(
          new StdioClientTransport({ command: process.execPath, args: [CLI_PATH, 'mcp'], env: { ...process.env, FEEDLOOP_URL: url, FEEDLOOP_API_KEY: t.secretKey } as Record<string, string>, stderr: 'pipe' }),
        );
        await exercise(client, 'task-proxy');
        await client.close();
      }, 60_000);
    }
  });
}

describe('feedloop mcp over stdio on an embedded folder', () => {
  it('serves the tools from the database of start', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'feedloop-mcp-'));
    try {
      const config = loadConfig({ FEEDLOOP_DATA_DIR: dir, LOG_LEVEL: 'silent' });
      const db = await openDatabase(config);
      await migrateOpened(db);
      const { workspace } = await createWorkspace(db, { name: 'mcp' });
      const { key } = await createApiKey(db, workspace.id, 'secret');
      await db.close();
      const env = { ...process.env, FEEDLOOP_DATA_DIR: dir, FEEDLOOP_API_KEY: key } as Record<string, string>;
      delete env.DATABASE_URL;
      delete env.FEEDLOOP_URL;
      const client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI_PATH, 'mcp'], env, stderr: 'pipe' }));
      await exercise(client, 'task-stdio');
      await client.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
