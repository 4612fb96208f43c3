/**
 * Tenancy, deny by default: every route of the API (as `/docs/json` lists it) called with the keys
 * of another workspace, with A's ids, never answers with or changes A's data; every route wants a
 * key unless it is marked public; `/v1/pipeline` shows the caller's backlog only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/http/app.js';
import { createApiKey } from '../src/store/api-keys.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';
import { errorCodeOf } from './error-code-of.js';

/** Every string B must never see: A's content, its workspace id and name. */
const MARK = 'MARK-A-7f3e';
const A_RESPONSE = 'iso-resp-a';
const A_SESSION = 'iso-session-a';
const A_USER = 'iso-user-a';

interface Route {
  method: string;
  path: string;
  /** The path with A's ids in its parameters. */
  url: string;
}

/** The routes of the API, from its OpenAPI document, with A's ids in their path parameters. */
async function documentedRoutes(t: TestApp, webhookId: string, keyId: string): Promise<Route[]> {
  const doc = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json() as { paths: Record<string, Record<string, unknown>> };
  const routes: Route[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const method of Object.keys(methods)) {
      const id = path.startsWith('/v1/webhooks') ? webhookId : path.startsWith('/v1/keys') ? keyId : A_RESPONSE;
      routes.push({ method: method.toUpperCase(), path, url: path.replace(/\{[^}]+\}/g, encodeURIComponent(id)) });
    }
  }
  // Reads by A's ids first: later, B's own writes may make a thing of B's with the same id.
  const rank = (r: Route) => (BY_ID.has(`${r.method} ${r.path}`) ? 0 : 1);
  return routes.sort((x, y) => rank(x) - rank(y));
}

/** A body that names A's ids, plausible for the route (others get `{}`). */
function bodyFor(route: Route): unknown {
  const event = { responseId: A_RESPONSE, type: 'thumbs_down', userId: A_USER, sessionId: A_SESSION };
  const bodies: Record<string, unknown> = {
    'POST /v1/feedback': event,
    'POST /v1/feedback/batch': { events: [event] },
    'POST /v1/responses': { id: A_RESPONSE, query: 'q of B', answer: 'a of B', sessionId: A_SESSION },
    'POST /v1/responses/batch': { responses: [{ id: A_RESPONSE, query: 'q of B', answer: 'a of B' }] },
    'POST /v1/webhooks': { url: 'https://93.184.215.14/b-hook', events: ['feedback.submitted'] },
    'POST /v1/keys': { kind: 'public', name: 'of B' },
    'PATCH /v1/workspace/settings': {},
    'POST /api/v1/feedback/submit': { response_id: A_RESPONSE, feedback_type: 'thumbs_down', session_id: A_SESSION, user_id: A_USER },
    'POST /api/v1/feedback/rating': { response_id: A_RESPONSE, session_id: A_SESSION, data: { rating: 1 } },
    'POST /api/v1/feedback/correction': { response_id: A_RESPONSE, session_id: A_SESSION, data: { corrected_text: 'x' } },
    'POST /api/rag/feedback': { response_id: A_RESPONSE, session_id: A_SESSION, feedback_type: 'thumbs_down' },
  };
  return bodies[`${route.method} ${route.path}`] ?? {};
}

/** A query string naming A's ids where the route reads one. */
function queryFor(route: Route): string {
  if (route.method !== 'GET') return '';
  if (route.path === '/v1/feedback') return `?responseId=${A_RESPONSE}&sessionId=${A_SESSION}&userId=${A_USER}`;
  if (route.path === '/api/v1/feedback/summary') return `?session_id=${A_SESSION}`;
  return '';
}

/** Routes that read one of A's things by id: another workspace must get a 404. */
const BY_ID = new Set(['GET /v1/responses/{id}', 'DELETE /v1/webhooks/{id}', 'GET /v1/webhooks/{id}/deliveries', 'DELETE /v1/keys/{id}']);

/** The routes a public key may call (feedback submission); every other one answers it 403. */
const PUBLIC_KEY_ROUTES = new Set([
  'POST /v1/feedback',
  'POST /v1/feedback/batch',
  'POST /api/rag/feedback',
  'POST /api/v1/feedback/submit',
  'POST /api/v1/feedback/correction',
  'POST /api/v1/feedback/rating',
  // Langfuse's browser client (LangfuseWeb) sends scores with the public key alone (issue 26 §2).
  'POST /api/public/ingestion',
  'POST /api/public/scores',
]);

/** Routes that answer without a key (as their protocol's own server does): health checks. */
const OPEN_ROUTES = new Set(['GET /api/public/health']);

/**
 * Routes authenticated by a signed feedback token in the path instead of a key (issue 13, and
 * LangSmith's presigned tokens of issue 26): any
 * key is ignored, and a token that is not one of the workspace's is 401 TOKEN_INVALID, whoever
 * calls (feedback-tokens.test.ts covers scope and another workspace's tokens).
 */
const TOKEN_ROUTES = new Set([
  'POST /v1/feedback/token/{token}',
  'GET /v1/feedback/token/{token}',
  // LangSmith's presigned feedback tokens (issue 26 §3; langsmith-compat.test.ts covers them).
  'POST /langsmith/feedback/tokens/{token}',
  'GET /langsmith/feedback/tokens/{token}',
]);

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`isolation matrix on ${backend.name}`, () => {
    let t: TestApp;
    let webhookId: string;
    let routes: Route[];
    let b: { workspaceId: string; secretKey: string; publicKey: string };

    const countsOfA = async () =>
      (
        await t.db.query<{ r: number; f: number; w: number; p: number; k: number }>(
          `SELECT (SELECT count(*)::int FROM responses WHERE workspace_id = $1) AS r,
                  (SELECT count(*)::int FROM feedback_events WHERE workspace_id = $1) AS f,
                  (SELECT count(*)::int FROM webhooks WHERE workspace_id = $1) AS w,
                  (SELECT count(*)::int FROM pipeline_pending WHERE workspace_id = $1) AS p,
                  (SELECT count(*)::int FROM api_keys WHERE workspace_id = $1 AND revoked_at IS NULL) AS k`,
          [t.workspaceId],
        )
      )[0];

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), { FEEDLOOP_WEBHOOK_ALLOW_PRIVATE: 'true' });
      const post = async (url: string, payload: unknown) => {
        const res = await t.app.inject({ method: 'POST', url, headers: t.auth, payload: payload as object });
        expect(res.statusCode, `${url}: ${res.body}`).toBeLessThan(300);
        return res.json();
      };
      await post('/v1/responses', { id: A_RESPONSE, query: `${MARK} query`, answer: `${MARK} answer`, sessionId: A_SESSION });
      await post('/v1/feedback', { responseId: A_RESPONSE, type: 'comment', userId: A_USER, sessionId: A_SESSION, payload: { comment: `${MARK} comment` } });
      webhookId = (await post('/v1/webhooks', { url: `https://93.184.215.14/${MARK}-hook`, events: ['feedback.submitted'] })).id;
      const other = await t.otherWorkspace();
      b = { ...other, publicKey: (await createApiKey(t.db, other.workspaceId, 'public')).key };
      // A key of A's with the mark in its name: B must neither list nor revoke it.
      const keyOfA = (await createApiKey(t.db, t.workspaceId, 'public', { name: `${MARK} key` })).info.id;
      routes = await documentedRoutes(t, webhookId, keyOfA);
    });
    afterAll(() => t.close());

    it('lists the API routes in /docs/json', () => {
      expect(routes.length).toBeGreaterThanOrEqual(17);
      expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(expect.arrayContaining([...BY_ID, 'GET /v1/pipeline']));
    });

    for (const keyKind of ['secret', 'public'] as const) {
      it(`gives another workspace's ${keyKind} key no data of A and changes nothing of A, on every route`, async () => {
        const before = await countsOfA();
        const problems: string[] = [];
        for (const route of routes) {
          if (OPEN_ROUTES.has(`${route.method} ${route.path}`)) continue;
          const res = await t.app.inject({
            method: route.method as 'GET',
            url: route.url + queryFor(route),
            headers: { authorization: `Bearer ${keyKind === 'secret' ? b.secretKey : b.publicKey}` },
            ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { payload: bodyFor(route) as object }),
          });
          const name = `${route.method} ${route.path} → ${res.statusCode} ${res.body.slice(0, 200)}`;
          if (res.statusCode >= 500) problems.push(`5xx: ${name}`);
          if (res.body.includes(MARK) || res.body.includes(t.workspaceId)) problems.push(`A's data: ${name}`);
          if (res.statusCode >= 400 && !/^FEEDLOOP_ERR_/.test(errorCodeOf(route.url, res.body) ?? '')) problems.push(`uncoded: ${name}`);
          if (TOKEN_ROUTES.has(`${route.method} ${route.path}`)) {
            if (res.statusCode !== 401 || res.json().error?.code !== 'FEEDLOOP_ERR_TOKEN_INVALID') problems.push(`not 401 TOKEN_INVALID for a bogus token: ${name}`);
            continue;
          }
          const secretRoute = !PUBLIC_KEY_ROUTES.has(`${route.method} ${route.path}`);
          if (keyKind === 'public' && secretRoute && res.statusCode !== 403) problems.push(`not 403 for a public key: ${name}`);
          if (keyKind === 'secret' && BY_ID.has(`${route.method} ${route.path}`) && res.statusCode !== 404) problems.push(`not 404: ${name}`);
        }
        expect(problems).toEqual([]);
        expect(await countsOfA()).toEqual(before);
        // A still sees its own things.
        const mine = await t.app.inject({ method: 'GET', url: `/v1/responses/${A_RESPONSE}`, headers: t.auth });
        expect(mine.body).toContain(`${MARK} answer`);
        const hooks = await t.app.inject({ method: 'GET', url: '/v1/webhooks', headers: t.auth });
        expect(hooks.json().webhooks.map((w: { id: string }) => w.id)).toEqual([webhookId]);
      });
    }

    it('answers every route without a key with 401, and a wrong key with 401', async () => {
      for (const headers of [{}, { authorization: 'Bearer fl_sk_not_a_key_at_all_0000000000' }]) {
        for (const route of routes.filter((r) => !OPEN_ROUTES.has(`${r.method} ${r.path}`))) {
          const res = await t.app.inject({ method: route.method as 'GET', url: route.url, headers, ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { payload: bodyFor(route) as object }) });
          expect(res.statusCode, `${route.method} ${route.path}: ${res.body}`).toBe(401);
          const expected = TOKEN_ROUTES.has(`${route.method} ${route.path}`) ? /^FEEDLOOP_ERR_TOKEN_INVALID$/ : /^FEEDLOOP_ERR_AUTH_(MISSING|INVALID)_KEY$/;
          expect(errorCodeOf(route.url, res.body)).toMatch(expected);
        }
      }
    });

    it('serves only the routes marked public without a key', async () => {
      for (const url of ['/healthz', '/readyz', '/metrics', '/docs', '/docs/json', '/docs/static/index.html', '/api/public/health']) {
        const res = await t.app.inject({ method: 'GET', url });
        expect(res.statusCode, `${url}: ${res.body.slice(0, 200)}`).toBeLessThan(400);
      }
    });

    it("shows in /v1/pipeline only the caller's own backlog", async () => {
      // B has pending events of its own (the matrix above sent some; this makes sure).
      await t.app.inject({ method: 'POST', url: '/v1/feedback', headers: { authorization: `Bearer ${b.secretKey}` }, payload: { responseId: 'b-resp', type: 'skip' } });
      const [own] = await t.db.query<{ a: number; all: number }>(
        `SELECT count(*) FILTER (WHERE workspace_id = $1)::int AS a, count(*)::int AS "all" FROM pipeline_pending`,
        [t.workspaceId],
      );
      expect(own!.all).toBeGreaterThan(own!.a);
      const body = (await t.app.inject({ method: 'GET', url: '/v1/pipeline', headers: t.auth })).json();
      expect(body.backlog.pending).toBe(own!.a);
      expect(body).not.toHaveProperty('queue');
    });
  });
}

describe('deny by default', () => {
  it('wants a secret key on a route that does not say who may call it, wherever it is mounted', async () => {
    const t = await startTestApp(await BACKENDS[0]!.open());
    try {
      // A new app on the same services, with a route added outside /v1/ and /api/ without `access`.
      const app = await buildApp(t.services, { logger: false });
      app.get('/internal/things', async () => ({ things: ['secret'] }));
      await app.ready();
      const none = await app.inject({ method: 'GET', url: '/internal/things' });
      expect([none.statusCode, none.json().error.code]).toEqual([401, 'FEEDLOOP_ERR_AUTH_MISSING_KEY']);
      const pub = await app.inject({ method: 'GET', url: '/internal/things', headers: { authorization: `Bearer ${t.publicKey}` } });
      expect(pub.statusCode).toBe(403);
      const secret = await app.inject({ method: 'GET', url: '/internal/things', headers: t.auth });
      expect(secret.json()).toEqual({ things: ['secret'] });
      await app.close();
    } finally {
      await t.close();
    }
  });
});
