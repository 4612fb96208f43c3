/**
 * The operator's embedding hook for rising themes (FEEDLOOP_EMBEDDING_URL, off by default), against
 * a real HTTP endpoint on this machine: phrases it embeds together are one theme; when it fails,
 * the report falls back to lexical themes and says why.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

/** A tiny embedding model: slowness on one axis; any other phrase on an axis of its own. */
function embed(phrase: string): number[] {
  const v = new Array<number>(64).fill(0);
  if (/slow|sluggish|lag/.test(phrase)) v[0] = 1;
  else v[1 + ([...phrase].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) % 63, 7))] = 1;
  return v;
}

const backend = BACKENDS[0];

describe.skipIf(!backend?.available)('rising themes with an embedding endpoint', () => {
  let endpoint: Server;
  let url = '';
  let failing = false;
  const seen: string[][] = [];
  const apps: TestApp[] = [];

  beforeAll(async () => {
    endpoint = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (failing) {
          res.writeHead(503).end();
          return;
        }
        const { input } = JSON.parse(body) as { input: string[] };
        seen.push(input);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: input.map((p) => ({ embedding: embed(p) })) }));
      });
    });
    await new Promise<void>((r) => endpoint.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/embed`;
  });
  afterAll(async () => {
    for (const a of apps) await a.close();
    await new Promise((r) => endpoint.close(r));
  });

  async function seeded(env: Record<string, string>): Promise<TestApp> {
    const t = await startTestApp(await (backend as NonNullable<typeof backend>).open(), env);
    apps.push(t);
    const post = (u: string, payload: object) => t.app.inject({ method: 'POST', url: u, headers: t.auth, payload });
    await post('/v1/responses', { id: 'em-r', query: 'q', answer: 'a' });
    const comments = ['too slow', 'way too slow today', 'sluggish response', 'such a sluggish response', 'wrong total'];
    for (const [i, comment] of comments.entries()) await post('/v1/feedback', { id: `em-${i}`, responseId: 'em-r', type: 'thumbs_down', userId: `em-u${i}`, payload: { comment } });
    return t;
  }
  const themes = async (t: TestApp) => (await t.app.inject({ method: 'GET', url: '/v1/insights', headers: t.auth })).json().risingThemes;

  it('is off by default: "too slow" and "sluggish response" are two themes of 2, under the minimum of 3', async () => {
    const r = await themes(await seeded({}));
    expect(r.clustering).toEqual({ method: 'lexical' });
    expect(r.themes).toEqual([]);
  });

  it('merges the phrases the endpoint embeds together into one theme', async () => {
    const r = await themes(await seeded({ FEEDLOOP_EMBEDDING_URL: url }));
    expect(r.clustering).toEqual({ method: 'embeddings' });
    expect(r.themes).toHaveLength(1);
    expect(r.themes[0]).toMatchObject({ current: 4, users: 4 });
    // "way too slow today" joins with its phrase "slow today"; "such" and "way" are no phrases.
    expect([...r.themes[0].variants].sort()).toEqual(['slow today', 'sluggish response', 'too slow']);
    expect(seen.at(-1)).toEqual(expect.arrayContaining(['too slow', 'sluggish response']));
  });

  it('falls back to lexical themes, and says why, when the endpoint fails', async () => {
    failing = true;
    const r = await themes(await seeded({ FEEDLOOP_EMBEDDING_URL: url }));
    failing = false;
    expect(r.clustering).toEqual({ method: 'lexical', error: 'the embedding endpoint answered 503' });
    expect(r.themes).toEqual([]);
  });
});
