/**
 * Signed feedback tokens (issue 13): made with a secret key for one response, used by a browser
 * with no key; expired, tampered and out-of-scope tokens are refused with their own codes, and a
 * token that names its user makes that user's votes verified.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`feedback tokens on ${backend.name}`, () => {
    let t: TestApp;
    const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
      t.app.inject({ method: 'POST', url, headers, payload: payload as object });
    const register = async (id: string) => expect((await post('/v1/responses', { id, query: `q ${id}`, answer: 'a' }, t.auth)).statusCode).toBe(201);
    const makeToken = async (responseId: string, body: Record<string, unknown> = {}) => {
      const res = await post(`/v1/responses/${responseId}/feedback-tokens`, body, t.auth);
      expect(res.statusCode, res.body).toBe(201);
      return res.json() as { token: string; url: string; expiresAt: string };
    };
    const submit = (token: string, event: Record<string, unknown>) => post(`/v1/feedback/token/${token}`, event);
    const rows = (responseId: string) =>
      t.db.query<{ id: string; type: string; user_id: string | null; superseded_by: string | null; verified: boolean }>(
        'SELECT id, type, user_id, superseded_by, verified FROM feedback_events WHERE workspace_id = $1 AND response_id = $2 ORDER BY id',
        [t.workspaceId, responseId],
      );

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), { FEEDLOOP_PUBLIC_URL: 'https://feedback.example.com/', FEEDLOOP_TOKEN_RATE_LIMIT_PER_MINUTE: '5' });
    });
    afterAll(async () => {
      await t.close();
    });

    it('makes a token with a link and a 24 h expiry, and takes feedback with it alone', async () => {
      await register('tk-1');
      const before = Date.now();
      const made = await makeToken('tk-1');
      expect(made.url).toBe(`https://feedback.example.com/v1/feedback/token/${made.token}`);
      const life = Date.parse(made.expiresAt) - before;
      expect(life).toBeGreaterThan(86_400_000 - 5_000);
      expect(life).toBeLessThanOrEqual(86_400_000 + 1_000);
      const res = await submit(made.token, { id: 'tk-1-up', type: 'thumbs_up' });
      expect(res.statusCode, res.body).toBe(202);
      expect(res.json()).toEqual({ id: 'tk-1-up', status: 'accepted' });
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(await rows('tk-1')).toEqual([{ id: 'tk-1-up', type: 'thumbs_up', user_id: null, superseded_by: null, verified: false }]);
      // A retry of the same id is a duplicate, not a second event.
      expect((await submit(made.token, { id: 'tk-1-up', type: 'thumbs_up' })).json()).toEqual({ id: 'tk-1-up', status: 'duplicate' });
    });

    it('shows a page the response its token names (GET), and nothing for a bad token', async () => {
      await register('tk-show');
      const made = await makeToken('tk-show');
      const res = await t.app.inject({ method: 'GET', url: `/v1/feedback/token/${made.token}` });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ responseId: 'tk-show', query: 'q tk-show', answer: 'a', expiresAt: made.expiresAt });
      expect(res.headers['access-control-allow-origin']).toBe('*');
      const bad = await t.app.inject({ method: 'GET', url: '/v1/feedback/token/garbage' });
      expect([bad.statusCode, bad.json().error.code]).toEqual([401, 'FEEDLOOP_ERR_TOKEN_INVALID']);
    });

    it('answers the CORS preflight, and errors carry CORS headers too', async () => {
      const pre = await t.app.inject({ method: 'OPTIONS', url: '/v1/feedback/token/anything', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } });
      expect(pre.statusCode).toBe(204);
      expect(pre.headers['access-control-allow-origin']).toBe('*');
      expect(String(pre.headers['access-control-allow-headers'])).toContain('content-type');
      const bad = await submit('garbage', { type: 'thumbs_up' });
      expect(bad.statusCode).toBe(401);
      expect(bad.json().error.code).toBe('FEEDLOOP_ERR_TOKEN_INVALID');
      expect(bad.headers['access-control-allow-origin']).toBe('*');
    });

    it('refuses a token for a response that does not exist, and bad token options', async () => {
      const res = await post('/v1/responses/no-such/feedback-tokens', {}, t.auth);
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('FEEDLOOP_ERR_RESPONSE_NOT_FOUND');
      await register('tk-opts');
      const bad = await post('/v1/responses/tk-opts/feedback-tokens', { types: ['thumbs_sideways'] }, t.auth);
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.field).toBe('types[0]');
      const ttl = await post('/v1/responses/tk-opts/feedback-tokens', { ttlSeconds: 0 }, t.auth);
      expect(ttl.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field: 'ttlSeconds' });
      // A public key may not make tokens.
      const pub = await post('/v1/responses/tk-opts/feedback-tokens', {}, { authorization: `Bearer ${t.publicKey}` });
      expect(pub.statusCode).toBe(403);
    });

    it('expired: 401 FEEDLOOP_ERR_TOKEN_EXPIRED; tampered: 401 FEEDLOOP_ERR_TOKEN_INVALID; nothing stored', async () => {
      await register('tk-2');
      const short = await makeToken('tk-2', { ttlSeconds: 1 });
      await new Promise((r) => setTimeout(r, 2_100));
      const expired = await submit(short.token, { type: 'thumbs_up' });
      expect(expired.statusCode).toBe(401);
      expect(expired.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_TOKEN_EXPIRED', field: 'token' });

      const good = await makeToken('tk-2');
      const [prefix, body, sig] = good.token.split('.') as [string, string, string];
      const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
      const forged = `${prefix}.${Buffer.from(JSON.stringify({ ...claims, r: 'tk-1' })).toString('base64url')}.${sig}`;
      const tampered = await submit(forged, { type: 'thumbs_down' });
      expect(tampered.statusCode).toBe(401);
      expect(tampered.json().error.code).toBe('FEEDLOOP_ERR_TOKEN_INVALID');
      // A tampered expiry is invalid, not "expired" nor accepted.
      const extended = `${prefix}.${Buffer.from(JSON.stringify({ ...claims, exp: (claims.exp as number) + 1e6 })).toString('base64url')}.${sig}`;
      expect((await submit(extended, { type: 'thumbs_down' })).json().error.code).toBe('FEEDLOOP_ERR_TOKEN_INVALID');
      expect(await rows('tk-2')).toEqual([]);
    });

    it('out of scope (another response, type or user): 403 FEEDLOOP_ERR_TOKEN_SCOPE', async () => {
      await register('tk-3');
      const scoped = await makeToken('tk-3', { userId: 'alice', types: ['thumbs_up', 'thumbs_down', 'comment'] });
      const other = await submit(scoped.token, { type: 'thumbs_up', responseId: 'tk-1' });
      expect(other.statusCode).toBe(403);
      expect(other.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_TOKEN_SCOPE', field: 'responseId' });
      const type = await submit(scoped.token, { type: 'rating', payload: { stars: 5 } });
      expect(type.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_TOKEN_SCOPE', field: 'type' });
      const user = await submit(scoped.token, { type: 'thumbs_up', userId: 'mallory' });
      expect(user.json().error).toMatchObject({ code: 'FEEDLOOP_ERR_TOKEN_SCOPE', field: 'userId' });
      // Its own response named explicitly, and its user, are fine; bad payloads are 400 as usual.
      expect((await submit(scoped.token, { id: 'tk-3-c', type: 'comment', responseId: 'tk-3', userId: 'alice', payload: { comment: 'hi' } })).statusCode).toBe(202);
      const invalid = await submit(scoped.token, { type: 'thumbs_down', payload: { category: 42 } });
      expect(invalid.statusCode).toBe(400);
      expect(await rows('tk-3')).toEqual([{ id: 'tk-3-c', type: 'comment', user_id: 'alice', superseded_by: null, verified: true }]);
    });

    it("a user-scoped token's votes are verified: they replace the user's earlier verified votes, public-key votes do not", async () => {
      await register('tk-4');
      const ago = new Date(Date.now() - 60_000).toISOString();
      expect((await post('/v1/feedback', { id: 'tk-4-s', responseId: 'tk-4', type: 'thumbs_up', userId: 'bob', occurredAt: ago }, t.auth)).statusCode).toBe(202);
      // A public-key vote for bob is stored but cannot replace his verified one ...
      expect((await post('/v1/feedback', { id: 'tk-4-p', responseId: 'tk-4', type: 'thumbs_down', userId: 'bob' }, { authorization: `Bearer ${t.publicKey}` })).statusCode).toBe(202);
      // ... a token made for bob can (another payload: the same one would be a content duplicate).
      const bobs = await makeToken('tk-4', { userId: 'bob' });
      expect((await submit(bobs.token, { id: 'tk-4-t', type: 'thumbs_down', payload: { category: 'accuracy' } })).statusCode).toBe(202);
      const r = await rows('tk-4');
      expect(r.find((x) => x.id === 'tk-4-t')).toEqual({ id: 'tk-4-t', type: 'thumbs_down', user_id: 'bob', superseded_by: null, verified: true });
      expect(r.find((x) => x.id === 'tk-4-s')?.superseded_by).toBe('tk-4-t');
      expect(r.find((x) => x.id === 'tk-4-p')).toMatchObject({ verified: false });
      expect(r.find((x) => x.id === 'tk-4-p')?.superseded_by).not.toBeNull();
    });

    it('rate-limits each token on its own (5 a minute here), with Retry-After', async () => {
      await register('tk-5');
      const a = await makeToken('tk-5');
      const b = await makeToken('tk-5', { userId: 'carol' });
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) statuses.push((await submit(a.token, { id: `tk-5-${i}`, type: 'comment', payload: { comment: `c${i}` } })).statusCode);
      expect(statuses).toEqual([202, 202, 202, 202, 202, 429, 429]);
      const limited = await submit(a.token, { type: 'comment', payload: { comment: 'x' } });
      expect(limited.json().error.code).toBe('FEEDLOOP_ERR_RATE_LIMITED');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect((await submit(b.token, { type: 'thumbs_up' })).statusCode).toBe(202);
    });

    it('rotating the workspace secret revokes every token made before', async () => {
      await register('tk-6');
      const old = await makeToken('tk-6');
      const rotated = await post('/v1/workspace/feedback-token-secret/rotate', {}, t.auth);
      expect(rotated.statusCode).toBe(200);
      const refused = await submit(old.token, { type: 'thumbs_up' });
      expect(refused.statusCode).toBe(401);
      expect(refused.json().error.code).toBe('FEEDLOOP_ERR_TOKEN_INVALID');
      const fresh = await makeToken('tk-6');
      expect((await submit(fresh.token, { type: 'thumbs_up' })).statusCode).toBe(202);
      // Another workspace's secret does not sign this one's tokens.
      const other = await t.otherWorkspace();
      const theirs = await post('/v1/workspace/feedback-token-secret/rotate', {}, { authorization: `Bearer ${other.secretKey}` });
      expect(theirs.statusCode).toBe(200);
      expect((await submit(fresh.token, { type: 'thumbs_down' })).statusCode).toBe(202);
    });
  });
}
