/**
 * The Langfuse drop-in (issue 26 §2) driven by Langfuse's own published clients: `langfuse` 3.x
 * (`Langfuse`, `LangfuseWeb`) and `@langfuse/client` 4.x, pointed at a running feedloop on each
 * store. Each does what the SDK's docs show, flushes, and the test reads what feedloop stored.
 */
import { LangfuseClient } from '@langfuse/client';
import { Langfuse, LangfuseWeb } from 'langfuse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../src/store/api-keys.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

interface ResponseRow {
  query: string;
  answer: string;
  model: string | null;
  user_id: string | null;
  session_id: string | null;
  experiment_id: string | null;
  variant: string | null;
  metadata: Record<string, unknown>;
  bare: boolean;
}

interface EventRow {
  id: string;
  type: string;
  source: string;
  session_id: string | null;
  payload: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`Langfuse SDKs against feedloop on ${backend.name}`, () => {
    let t: TestApp;
    let baseUrl: string;
    const sdks: Array<{ shutdownAsync(): Promise<void> }> = [];

    /** A v3 client as its docs set it up, with the SDK's complaints (207 errors) collected. */
    const client = (keys: { publicKey: string; secretKey?: string } = t) => {
      const lf = new Langfuse({ publicKey: keys.publicKey, ...(keys.secretKey ? { secretKey: keys.secretKey } : {}), baseUrl, flushAt: 1_000, fetchRetryCount: 0 });
      const complaints = heard(lf);
      sdks.push(lf);
      return { lf, complaints };
    };
    /** What the server refused, as the SDK reports it (its own local warnings left out). */
    const heard = (sdk: { on(event: string, cb: (e: unknown) => void): unknown }) => {
      const complaints: string[] = [];
      const hear = (e: unknown) => {
        const text = String((e as Error)?.message ?? e);
        if (text.includes('while fetching Langfuse')) complaints.push(text);
      };
      sdk.on('warning', hear);
      sdk.on('error', hear);
      return complaints;
    };
    const response = async (id: string) =>
      (
        await t.db.query<ResponseRow>(
          'SELECT query, answer, model, user_id, session_id, experiment_id, variant, metadata, bare FROM responses WHERE workspace_id = $1 AND id = $2',
          [t.workspaceId, id],
        )
      )[0];
    const events = (responseId: string) =>
      t.db.query<EventRow>('SELECT id, type, source, session_id, payload, metadata FROM feedback_events WHERE workspace_id = $1 AND response_id = $2 ORDER BY seq', [
        t.workspaceId,
        responseId,
      ]);

    beforeAll(async () => {
      t = await startTestApp(await backend.open());
      baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
    });
    afterAll(async () => {
      for (const sdk of sdks) await sdk.shutdownAsync().catch(() => undefined);
      await t.close();
    });

    it('registers a trace with its generation as a response, completed by later updates', async () => {
      const { lf, complaints } = client();
      const trace = lf.trace({
        id: 'lf-trace-1',
        name: 'support-chat',
        userId: 'user-1',
        sessionId: 'sess-1',
        input: [
          { role: 'system', content: 'You answer briefly.' },
          { role: 'user', content: 'What is the capital of France?' },
        ],
        metadata: { experimentId: 'exp-1', variant: 'B', tenant: 'acme' },
        tags: ['prod', 'fr'],
        release: 'r-42',
        version: 'v3',
      });
      const generation = trace.generation({ name: 'llm', model: 'gpt-4o-mini', input: [{ role: 'user', content: 'generation input' }] });
      await lf.flushAsync();
      expect(await response('lf-trace-1')).toMatchObject({ query: 'What is the capital of France?', answer: '', model: 'gpt-4o-mini', bare: false });

      // The generation ends with its output (the trace has none: it fills the answer); then the trace's own output wins.
      generation.end({ output: { role: 'assistant', content: 'Paris (generation).' } });
      await lf.flushAsync();
      expect((await response('lf-trace-1'))?.answer).toBe('Paris (generation).');
      trace.update({ output: 'Paris.' });
      await lf.flushAsync();
      expect(complaints).toEqual([]);
      const r = await response('lf-trace-1');
      expect(r).toMatchObject({
        query: 'What is the capital of France?',
        answer: 'Paris.',
        model: 'gpt-4o-mini',
        user_id: 'user-1',
        session_id: 'sess-1',
        experiment_id: 'exp-1',
        variant: 'B',
        bare: false,
      });
      expect(r?.metadata).toMatchObject({ tenant: 'acme', tags: ['prod', 'fr'], release: 'r-42', version: 'v3' });
    });

    it('stores TEXT as a comment and CORRECTION as a correction of the trace output, keeping source and observationId', async () => {
      const { lf, complaints } = client();
      const trace = lf.trace({ id: 'lf-trace-2', input: 'SQL for all sales?', output: 'SELECT * FROM sale' });
      const span = trace.span({ name: 'retrieval' });
      trace.score({ id: 'score-text', name: 'reviewer-note', value: 'Wrong table name', dataType: 'TEXT', comment: 'seen in review' } as never);
      span.score({ id: 'score-fix', name: 'fix', value: 'SELECT * FROM sales', dataType: 'CORRECTION', source: 'ANNOTATION' } as never);
      await lf.flushAsync();
      expect(complaints).toEqual([]);
      const stored = (await events('lf-trace-2')).sort((a, b) => a.type.localeCompare(b.type));
      expect(stored.map((e) => e.type)).toEqual(['comment', 'correction']);
      expect(stored[0]).toMatchObject({ payload: { comment: 'Wrong table name' }, metadata: { source: 'API', dataType: 'TEXT', scoreId: 'score-text', scoreName: 'reviewer-note', scoreComment: 'seen in review' } });
      expect(stored[1]?.payload).toMatchObject({ corrected: 'SELECT * FROM sales' });
      // Against the trace's output: one added character of 19.
      const [distance] = await t.db.query<{ edit_distance: number }>('SELECT edit_distance FROM feedback_events WHERE workspace_id = $1 AND id = $2', [t.workspaceId, stored[1]?.id]);
      expect(distance?.edit_distance).toBe(5);
      expect(stored[1]?.metadata).toMatchObject({ observationId: span.id, dataType: 'CORRECTION', scoreId: 'score-fix' });
      // ANNOTATION is a person's review in Langfuse: source review; API (the default) keeps the type's.
      expect(stored.map((e) => e.source)).toEqual(['explicit', 'review']);
    });

    it('creates the trace of an early score bare, completes it when the trace arrives, and keeps the score attached', async () => {
      const { lf, complaints } = client();
      lf.score({ id: 'score-early', traceId: 'lf-trace-late', name: 'note', value: 'came first', dataType: 'TEXT' } as never);
      await lf.flushAsync();
      expect(await response('lf-trace-late')).toMatchObject({ query: '', answer: '', bare: true });
      const list = (await t.app.inject({ method: 'GET', url: '/v1/responses?limit=100', headers: t.auth })).json() as { data: Array<{ id: string }> };
      expect(list.data.map((r) => r.id)).not.toContain('lf-trace-late');
      lf.trace({ id: 'lf-trace-late', input: 'late question', output: 'late answer' });
      await lf.flushAsync();
      expect(complaints).toEqual([]);
      expect(await response('lf-trace-late')).toMatchObject({ query: 'late question', answer: 'late answer', bare: false });
      expect((await events('lf-trace-late')).map((e) => e.type)).toEqual(['comment']);
    });

    it('stores a score aimed at a session as session feedback', async () => {
      const { lf, complaints } = client();
      lf.score({ id: 'score-session', sessionId: 'sess-9', name: 'session-note', value: 'good session', dataType: 'TEXT' } as never);
      await lf.flushAsync();
      expect(complaints).toEqual([]);
      const [e] = await events('session:sess-9');
      expect(e).toMatchObject({ type: 'comment', session_id: 'sess-9' });
      const summary = await t.app.inject({ method: 'GET', url: '/api/v1/feedback/summary?session_id=sess-9', headers: t.auth });
      expect(summary.json()).toMatchObject({ session_id: 'sess-9', total: 1 });
    });

    it('maps NUMERIC, CATEGORICAL and BOOLEAN to scores, through the config of the name (thumbs)', async () => {
      const { lf, complaints } = client();
      const trace = lf.trace({ id: 'lf-trace-3', input: 'Q3', output: 'A3' });
      trace.score({ id: 'score-num', name: 'helpfulness', value: 0.75 });
      trace.score({ id: 'score-cat', name: 'tone', value: 'friendly', dataType: 'CATEGORICAL' });
      trace.score({ id: 'score-bool', name: 'thumbs', value: 0, dataType: 'BOOLEAN', source: 'EVAL' } as never);
      await lf.flushAsync();
      expect(complaints).toEqual([]);
      const stored = await events('lf-trace-3');
      const byScore = new Map(stored.map((e) => [e.metadata.scoreId, e]));
      expect(byScore.get('score-num')).toMatchObject({ type: 'score', payload: { name: 'helpfulness', value: 0.75 } });
      expect(byScore.get('score-cat')).toMatchObject({ type: 'score', payload: { name: 'tone', stringValue: 'friendly' } });
      // The seeded `thumbs` config maps 0 to a thumbs down; the source is kept.
      expect(byScore.get('score-bool')).toMatchObject({ type: 'thumbs_down', metadata: { source: 'EVAL', dataType: 'BOOLEAN' } });
      // EVAL is an evaluator's: a judge (named by the score), whose thumbs down is no user's.
      expect(byScore.get('score-bool')).toMatchObject({ source: 'judge', metadata: { evaluatorId: 'langfuse:thumbs' } });
      expect(byScore.get('score-num')?.source).toBe('explicit');
    });

    it('keeps an EVAL score out of the users’ satisfaction, and names the evaluator the score’s metadata gives', async () => {
      const { lf, complaints } = client();
      const trace = lf.trace({ id: 'lf-trace-judged', input: 'Q', output: 'A' });
      trace.score({ id: 'score-judge-1', name: 'thumbs', value: 1, dataType: 'BOOLEAN', source: 'EVAL', metadata: { evaluatorId: 'ragas' } } as never);
      trace.score({ id: 'score-user-1', name: 'thumbs', value: 0, dataType: 'BOOLEAN' } as never);
      await lf.flushAsync();
      expect(complaints).toEqual([]);
      const stored = new Map((await events('lf-trace-judged')).map((e) => [e.metadata.scoreId, e]));
      expect(stored.get('score-judge-1')).toMatchObject({ type: 'thumbs_up', source: 'judge', metadata: { evaluatorId: 'ragas' } });
      expect(stored.get('score-user-1')).toMatchObject({ type: 'thumbs_down', source: 'explicit' });
    });

    it('refuses an EVAL or ANNOTATION score from the browser client (a public key speaks for the user): 403 inside the 207', async () => {
      const web = new LangfuseWeb({ publicKey: t.publicKey, baseUrl, fetchRetryCount: 0 });
      sdks.push(web);
      const complaints = heard(web);
      await web.score({ id: 'score-web-eval', traceId: 'lf-trace-1', name: 'helpfulness', value: 1, source: 'EVAL' } as never).catch(() => undefined);
      await web.shutdownAsync();
      expect(complaints.join('\n')).toMatch(/"status":403.*FEEDLOOP_ERR_AUTH_SOURCE_FORBIDDEN/);
      expect((await events('lf-trace-1')).map((e) => e.metadata.scoreId)).not.toContain('score-web-eval');
    });

    it('replaces a re-sent score id as a vote change (the earlier value retracted), reads and deletes it with the v4 client', async () => {
      const v4 = new LangfuseClient({ publicKey: t.publicKey, secretKey: t.secretKey, baseUrl });
      const { lf } = client();
      lf.trace({ id: 'lf-trace-4', input: 'Q4', output: 'A4' });
      await lf.flushAsync();
      v4.score.create({ id: 'score-v4', traceId: 'lf-trace-4', name: 'accuracy', value: 0.2, comment: 'first look' });
      await v4.score.flush();
      v4.score.create({ id: 'score-v4', traceId: 'lf-trace-4', name: 'accuracy', value: 0.9, comment: 'second look' });
      await v4.score.flush();
      // Sent again unchanged: nothing new.
      v4.score.create({ id: 'score-v4', traceId: 'lf-trace-4', name: 'accuracy', value: 0.9, comment: 'second look' });
      await v4.score.flush();
      const rows = await t.db.query<{ payload: { value: number }; retracted: boolean }>(
        'SELECT payload, retracted_at IS NOT NULL AS retracted FROM feedback_events WHERE workspace_id = $1 AND response_id = $2 ORDER BY seq',
        [t.workspaceId, 'lf-trace-4'],
      );
      expect(rows.map((r) => [r.payload.value, r.retracted])).toEqual([
        [0.2, true],
        [0.9, false],
      ]);
      const v1 = await t.app.inject({ method: 'GET', url: '/api/public/scores/score-v4', headers: { authorization: `Basic ${Buffer.from(`${t.publicKey}:${t.secretKey}`).toString('base64')}` } });
      expect(v1.json()).toMatchObject({ id: 'score-v4', value: 0.9 });
      const read = await v4.api.scoreV2.getById('score-v4');
      expect(read).toMatchObject({ id: 'score-v4', traceId: 'lf-trace-4', name: 'accuracy', value: 0.9, comment: 'second look', dataType: 'NUMERIC', source: 'API' });

      // POST /api/public/scores (the flat body) answers { id }.
      const created = await v4.api.score.create({ id: 'score-flat', traceId: 'lf-trace-4', name: 'tone', value: 'dry', dataType: 'CATEGORICAL' });
      expect(created).toEqual({ id: 'score-flat' });

      await v4.api.score.delete('score-v4');
      const after = await t.db.query<{ retracted: boolean }>(
        "SELECT retracted_at IS NOT NULL AS retracted FROM feedback_events WHERE workspace_id = $1 AND response_id = $2 AND payload->>'name' = 'accuracy' ORDER BY seq",
        [t.workspaceId, 'lf-trace-4'],
      );
      expect(after.map((r) => r.retracted)).toEqual([true, true]);
      await expect(v4.api.scoreV2.getById('score-v4')).rejects.toMatchObject({ statusCode: 404 });
      await expect(v4.api.score.delete('score-v4')).rejects.toMatchObject({ statusCode: 404 });
      // Sent again after its deletion, the first value counts anew.
      v4.score.create({ id: 'score-v4', traceId: 'lf-trace-4', name: 'accuracy', value: 0.2, comment: 'first look' });
      await v4.score.flush();
      expect(await v4.api.scoreV2.getById('score-v4')).toMatchObject({ value: 0.2 });
      const live = await t.db.query("SELECT 1 FROM feedback_events WHERE workspace_id = $1 AND response_id = $2 AND payload->>'name' = 'accuracy' AND retracted_at IS NULL", [
        t.workspaceId,
        'lf-trace-4',
      ]);
      expect(live).toHaveLength(1);
    });

    it("creates and lists score configs over feedloop's, and validates scores against them", async () => {
      const v4 = new LangfuseClient({ publicKey: t.publicKey, secretKey: t.secretKey, baseUrl });
      const config = await v4.api.scoreConfigs.create({ name: 'groundedness', dataType: 'NUMERIC', minValue: 0, maxValue: 1, description: 'supported by sources' });
      expect(config).toMatchObject({ name: 'groundedness', dataType: 'NUMERIC', minValue: 0, maxValue: 1, isArchived: false });
      const list = await v4.api.scoreConfigs.get();
      expect(list.data.map((c) => c.name)).toEqual(expect.arrayContaining(['groundedness', 'thumbs', 'rating', 'user_score']));
      const mine = await t.app.inject({ method: 'GET', url: `/v1/score-configs/${config.id}`, headers: t.auth });
      expect(mine.json()).toMatchObject({ name: 'groundedness', dataType: 'numeric', min: 0, max: 1 });
      await expect(v4.api.scoreConfigs.create({ name: 'groundedness', dataType: 'NUMERIC' })).rejects.toMatchObject({ statusCode: 409 });
      // A score outside its config's range is refused inside the 207, naming the value.
      const { lf } = client();
      const complaints = heard(lf);
      lf.trace({ id: 'lf-trace-5', input: 'Q5', output: 'A5' });
      lf.score({ traceId: 'lf-trace-5', name: 'groundedness', value: 3 });
      await lf.flushAsync();
      expect(complaints.join('\n')).toMatch(/"status":400.*FEEDLOOP_ERR_SCORE_INVALID/);
      expect(await events('lf-trace-5')).toEqual([]);
    });

    it('answers refused events inside the 207: a dataset run 422, an unknown trace 404 when the workspace rejects them', async () => {
      const { lf, complaints } = client();
      lf.score({ name: 'accuracy', value: 'x', dataType: 'TEXT', traceId: 'lf-trace-1', datasetRunId: 'run-1' } as never);
      await lf.flushAsync();
      expect(complaints.join('\n')).toContain('FEEDLOOP_ERR_COMPAT_UNSUPPORTED');
      const set = await t.app.inject({ method: 'PATCH', url: '/v1/workspace/settings', headers: t.auth, payload: { compat: { unknownTraces: 'reject' } } });
      expect(set.statusCode).toBe(200);
      const again = client();
      again.lf.score({ traceId: 'lf-trace-nowhere', name: 'note', value: 'x', dataType: 'TEXT' } as never);
      await again.lf.flushAsync();
      expect(again.complaints.join('\n')).toMatch(/"status":404.*FEEDLOOP_ERR_RESPONSE_NOT_FOUND/);
      expect(await response('lf-trace-nowhere')).toBeUndefined();
      await t.app.inject({ method: 'PATCH', url: '/v1/workspace/settings', headers: t.auth, payload: { compat: { unknownTraces: 'create' } } });
    });

    it('takes scores only from the browser client (Bearer public key); its other events are 401 inside the 207', async () => {
      const web = new LangfuseWeb({ publicKey: t.publicKey, baseUrl, fetchRetryCount: 0 });
      sdks.push(web);
      await web.score({ id: 'score-web', traceId: 'lf-trace-1', name: 'user-note', value: 'thanks!', dataType: 'TEXT' } as never);
      expect((await events('lf-trace-1')).map((e) => e.metadata.scoreId)).toContain('score-web');
      // The browser client's own trace call (its stateless core has one) goes out with the public key.
      const complaints = heard(web);
      (web as unknown as { traceStateless(body: object): string }).traceStateless({ id: 'lf-trace-public', input: 'from a browser' });
      await web.shutdownAsync();
      expect(complaints.join('\n')).toMatch(/"status":401.*FEEDLOOP_ERR_AUTH_FORBIDDEN/);
      expect(await response('lf-trace-public')).toBeUndefined();
    });

    it("answers the SDKs' auth check and health, and refuses keys of two workspaces", async () => {
      const v4 = new LangfuseClient({ publicKey: t.publicKey, secretKey: t.secretKey, baseUrl });
      expect(await v4.api.health.health()).toMatchObject({ status: 'OK' });
      const projects = await v4.api.projects.get();
      expect(projects.data).toEqual([expect.objectContaining({ id: t.workspaceId })]);
      const other = await t.otherWorkspace();
      const mixed = new LangfuseClient({ publicKey: t.publicKey, secretKey: other.secretKey, baseUrl });
      await expect(mixed.api.projects.get()).rejects.toMatchObject({ statusCode: 401 });
      const otherPublic = await createApiKey(t.db, other.workspaceId, 'public');
      const swapped = new LangfuseClient({ publicKey: otherPublic.key, secretKey: t.secretKey, baseUrl });
      await expect(swapped.api.projects.get()).rejects.toMatchObject({ statusCode: 401 });
    });

    it("answers a body that is no batch 400 and a bad event 400 inside the 207, in Langfuse's shapes, never a 5xx", async () => {
      const basic = { authorization: `Basic ${Buffer.from(`${t.publicKey}:${t.secretKey}`).toString('base64')}` };
      const notBatch = await t.app.inject({ method: 'POST', url: '/api/public/ingestion', headers: basic, payload: { events: [] } });
      expect(notBatch.statusCode).toBe(400);
      expect(notBatch.json()).toMatchObject({ error: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', message: expect.stringContaining('batch') as unknown });
      const noKey = await t.app.inject({ method: 'POST', url: '/api/public/ingestion', payload: { batch: [] } });
      expect(noKey.statusCode).toBe(401);
      expect(noKey.json()).toMatchObject({ error: 'FEEDLOOP_ERR_AUTH_MISSING_KEY' });
      const bad = await t.app.inject({
        method: 'POST',
        url: '/api/public/ingestion',
        headers: basic,
        payload: { batch: [{ id: 'e-bad', type: 'trace-create', timestamp: new Date().toISOString(), body: { id: 'has spaces in it' } }, { id: 'e-odd', type: 'nonsense', body: {} }, 42] },
      });
      expect(bad.statusCode).toBe(207);
      const body = bad.json() as { successes: unknown[]; errors: Array<{ id: string; status: number; error: string }> };
      expect(body.successes).toEqual([]);
      expect(body.errors.map((e) => [e.id, e.status])).toEqual([
        ['e-odd', 400],
        ['unknown', 400],
        ['e-bad', 400],
      ]);
      const preflight = await t.app.inject({ method: 'OPTIONS', url: '/api/public/ingestion', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } });
      expect(preflight.statusCode).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('*');
    });
  });
}
