/**
 * The LangSmith drop-in (issue 26 §3) driven by the real published `langsmith` JS client against a
 * listening feedloop, on both stores: traceable with a child llm run, feedback create / update /
 * delete, a presigned token then a tokenless POST (plain fetch: what a browser does), listing, and
 * errors in LangSmith's `{ detail }` shape.
 */
import type { AddressInfo } from 'node:net';
import { Client, RunTree } from 'langsmith';
import { getCurrentRunTree, traceable } from 'langsmith/traceable';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const PUBLIC_URL = 'https://feedloop.example.com';

interface ResponseRow {
  id: string;
  query: string;
  answer: string;
  model: string | null;
  user_id: string | null;
  session_id: string | null;
  metadata: Record<string, unknown> | null;
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`LangSmith drop-in on ${backend.name}`, () => {
    let t: TestApp;
    let base: string;
    let client: Client;

    const response = async (id: string): Promise<ResponseRow | undefined> =>
      (
        await t.db.query<ResponseRow>('SELECT id, query, answer, model, user_id, session_id, metadata FROM responses WHERE workspace_id = $1 AND id = $2', [
          t.workspaceId,
          id,
        ])
      )[0];
    const events = (responseId: string) =>
      t.db.query<{ id: string; type: string; payload: Record<string, unknown>; retracted: boolean }>(
        'SELECT id, type, payload, retracted_at IS NOT NULL AS retracted FROM feedback_events WHERE workspace_id = $1 AND response_id = $2 ORDER BY id',
        [t.workspaceId, responseId],
      );

    /** The pipeline's verdict on an event, once it has processed it. */
    const signal = async (eventId: string) => {
      await t.services.pipeline.idle(10_000);
      return (await t.db.query<{ status: string; drop_reason: string | null }>('SELECT status, drop_reason FROM feedback_signals WHERE workspace_id = $1 AND event_id = $2', [t.workspaceId, eventId]))[0];
    };
    const retractions = async () =>
      (
        (await t.app.inject({ method: 'GET', url: '/v1/audit?action=feedback.retracted&limit=100', headers: t.auth })).json() as {
          entries: { details: { eventId: string; reason: string } }[];
        }
      ).entries.map((e) => [e.details.eventId, e.details.reason]);

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), { FEEDLOOP_PUBLIC_URL: PUBLIC_URL }, { worker: true });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      client = new Client({ apiUrl: `${base}/langsmith`, apiKey: t.secretKey });
    });
    afterAll(async () => {
      await t?.close();
    });

    /** Traces a RAG call with traceable: a chain run with a child llm run; returns both run ids. */
    const traceCall = async (question: string, metadata: Record<string, unknown> = {}) => {
      const ids = { root: '', llm: '' };
      const llm = traceable(
        async (messages: { role: string; content: string }[]) => {
          ids.llm = getCurrentRunTree().id;
          return { choices: [{ message: { role: 'assistant', content: `Answer to ${messages.at(-1)?.content}` } }] };
        },
        { name: 'openai.chat', run_type: 'llm', client, tracingEnabled: true, metadata: { ls_model_name: 'gpt-4o-mini', ls_provider: 'openai' } },
      );
      const rag = traceable(
        async (input: { question: string }) => {
          ids.root = getCurrentRunTree().id;
          const completion = await llm([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: input.question }]);
          return { answer: completion.choices[0]?.message.content };
        },
        { name: 'rag', run_type: 'chain', client, tracingEnabled: true, metadata, tags: ['prod'] },
      );
      await rag({ question });
      await client.awaitPendingTraceBatches();
      return ids;
    };

    it('answers /info so the SDKs send plain JSON batches', async () => {
      const res = await fetch(`${base}/langsmith/info`, { headers: { 'x-api-key': t.secretKey } });
      expect(res.status).toBe(200);
      const info = (await res.json()) as { batch_ingest_config: { use_multipart_endpoint: boolean }; instance_flags: object; version: string };
      expect(info.batch_ingest_config.use_multipart_endpoint).toBe(false);
      expect(info.instance_flags).toEqual({});
      expect(typeof info.version).toBe('string');
    });

    it('registers a traced call as a response: root run id, question, answer, the child llm run\'s model, user, session, tags', async () => {
      const ids = await traceCall('What is feedloop?', { user_id: 'u-ls-1', thread_id: 'thread-1', variant: 'B' });
      expect(ids.root).not.toBe('');
      const r = await response(ids.root);
      expect(r).toMatchObject({ id: ids.root, query: 'What is feedloop?', answer: 'Answer to What is feedloop?', model: 'gpt-4o-mini', user_id: 'u-ls-1', session_id: 'thread-1' });
      expect(r?.metadata).toMatchObject({ tags: ['prod'], langsmith: { name: 'rag', runType: 'chain' } });
      // The child run is no response of its own: it belongs to its trace.
      expect(await response(ids.llm)).toBeUndefined();
    });

    it('updates a response as its run is patched (last write wins), and a root run\'s model wins over a child\'s', async () => {
      const root = new RunTree({ name: 'agent', run_type: 'chain', inputs: { input: 'first question' }, client, tracingEnabled: true, extra: { metadata: { model: 'root-model' } } });
      await root.postRun();
      const child = root.createChild({ name: 'llm', run_type: 'llm', inputs: { prompt: 'x' }, extra: { metadata: { ls_model_name: 'child-model' } } });
      await child.postRun();
      await child.end({ generations: [[{ text: 'child text' }]] });
      await child.patchRun();
      await root.end({ output: 'final answer' });
      await root.patchRun();
      await client.awaitPendingTraceBatches();
      expect(await response(root.id)).toMatchObject({ query: 'first question', answer: 'final answer', model: 'root-model' });
      // A later patch of the same run replaces the answer.
      await client.updateRun(root.id, { outputs: { answer: 'revised answer' }, trace_id: root.id, dotted_order: root.dotted_order });
      await client.awaitPendingTraceBatches();
      expect(await response(root.id)).toMatchObject({ query: 'first question', answer: 'revised answer', model: 'root-model' });
    });

    it('stores feedback on a child run on its trace\'s response; update replaces the value; delete retracts it', async () => {
      const ids = await traceCall('Feedback target?');
      const created = await client.createFeedback(ids.llm, 'user_score', { score: 1, comment: 'helpful' });
      const read = await client.readFeedback(created.id);
      expect(read).toMatchObject({ id: created.id, run_id: ids.llm, trace_id: ids.root, key: 'user_score', score: 1, comment: 'helpful', feedback_source: { type: 'api' } });
      let rows = await events(ids.root);
      expect(rows).toHaveLength(1);
      // The workspace's `user_score` config maps 1 to a thumbs up (issue 26 §1).
      expect(rows[0]).toMatchObject({ id: created.id, type: 'thumbs_up', retracted: false });

      expect(await signal(created.id)).toMatchObject({ drop_reason: null });

      await client.updateFeedback(created.id, { score: 0 });
      expect(await client.readFeedback(created.id)).toMatchObject({ score: 0, comment: 'helpful' });
      rows = await events(ids.root);
      expect(rows.map((r) => [r.id, r.type, r.retracted])).toEqual([
        [created.id, 'thumbs_up', true],
        [`${created.id}:r2`, 'thumbs_down', false],
      ]);

      // The replaced vote no longer counts (the pipeline reversed it); the audit log says why.
      expect(await signal(created.id)).toEqual({ status: 'dropped', drop_reason: 'retracted' });
      expect(await signal(`${created.id}:r2`)).toMatchObject({ drop_reason: null });
      expect(await retractions()).toContainEqual([created.id, 'replaced by a LangSmith feedback update']);

      await client.deleteFeedback(created.id);
      rows = await events(ids.root);
      expect(rows.every((r) => r.retracted)).toBe(true);
      expect(await signal(`${created.id}:r2`)).toEqual({ status: 'dropped', drop_reason: 'retracted' });
      expect(await retractions()).toContainEqual([`${created.id}:r2`, 'deleted in LangSmith']);
      await expect(client.readFeedback(created.id)).rejects.toThrow(/404/);
      await expect(client.deleteFeedback(created.id)).rejects.toThrow(/404/);
    });

    it('maps a named score, a correction and a model judge\'s feedback', async () => {
      const ids = await traceCall('Judge me');
      const judged = await client.createFeedback(ids.root, 'groundedness', {
        score: 0.25,
        correction: { output: 'the corrected answer' },
        feedbackSourceType: 'model',
        feedbackConfig: { type: 'continuous', min: 0, max: 1 },
      });
      const rows = await events(ids.root);
      expect(rows.map((r) => [r.id, r.type])).toEqual([
        [judged.id, 'score'],
        [`${judged.id}:correction`, 'correction'],
      ]);
      expect(rows[0]?.payload).toMatchObject({ name: 'groundedness', value: 0.25 });
      expect(rows[1]?.payload).toMatchObject({ corrected: 'the corrected answer' });
      const source = await t.db.query<{ source: string; meta: string; evaluator: string }>(
        "SELECT source, metadata->>'source' AS meta, metadata->>'evaluatorId' AS evaluator FROM feedback_events WHERE workspace_id = $1 AND id = ANY($2::text[]) ORDER BY id",
        [t.workspaceId, [judged.id, `${judged.id}:correction`]],
      );
      // feedback_source.type "model" is a judge's: the envelope source, named by its key when nothing else names it.
      expect(source).toEqual([
        { source: 'judge', meta: 'judge', evaluator: 'langsmith:groundedness' },
        { source: 'judge', meta: 'judge', evaluator: 'langsmith:groundedness' },
      ]);
      // Outside its config: refused with LangSmith's { detail }, nothing stored.
      await expect(client.createFeedback(ids.root, 'groundedness', { score: 3, feedbackConfig: { type: 'continuous', min: 0, max: 1 } })).rejects.toThrow(/400.*score/);
      expect(await events(ids.root)).toHaveLength(2);
      // The key's config was kept as its score config: a later score without one is checked against it.
      const configs = (await t.app.inject({ method: 'GET', url: '/v1/score-configs', headers: t.auth })).json().configs as Array<Record<string, unknown>>;
      expect(configs.find((c) => c.name === 'groundedness')).toMatchObject({ dataType: 'numeric', min: 0, max: 1 });
      await expect(client.createFeedback(ids.root, 'groundedness', { score: 3 })).rejects.toThrow(/400/);
      expect(await events(ids.root)).toHaveLength(2);
    });

    it("takes an evaluator's logEvaluationFeedback as a judge named by its run, and an app's feedback as the user's", async () => {
      const ids = await traceCall('Evaluate me');
      const evaluatorRun = crypto.randomUUID();
      await client.logEvaluationFeedback({ key: 'correctness', score: 1, sourceRunId: evaluatorRun }, { id: ids.root, trace_id: ids.root } as never);
      const named = await client.createFeedback(ids.root, 'conciseness', { score: 0, feedbackSourceType: 'model', sourceInfo: { evaluatorId: 'concise-v2' } });
      const app = await client.createFeedback(ids.root, 'user_score', { score: 1, feedbackSourceType: 'app' });
      const rows = await t.db.query<{ id: string; type: string; source: string; evaluator: string | null }>(
        "SELECT id, type, source, metadata->>'evaluatorId' AS evaluator FROM feedback_events WHERE workspace_id = $1 AND response_id = $2 ORDER BY seq",
        [t.workspaceId, ids.root],
      );
      expect(rows.map((r) => [r.source, r.evaluator])).toEqual([
        ['judge', `langsmith:run:${evaluatorRun}`],
        ['judge', 'concise-v2'],
        ['explicit', null],
      ]);
      expect(rows.slice(1).map((r) => r.id)).toEqual([named.id, app.id]);
      // user_score maps to thumbs (its seeded config): the app's is a user's vote, the judges' are counted apart.
      expect(rows.at(-1)?.type).toBe('thumbs_up');
      const listed = (await t.app.inject({ method: 'GET', url: '/v1/feedback?source=judge&evaluatorId=concise-v2', headers: t.auth })).json().data as Array<{ id: string }>;
      expect(listed.map((e) => e.id)).toEqual([named.id]);
    });

    it('keeps feedback given before its run arrives: the response is bare, then completed by the run', async () => {
      const runId = crypto.randomUUID();
      await client.createFeedback(runId, 'user_score', { score: 1 });
      expect(await response(runId)).toMatchObject({ query: '', answer: '' });
      const run = new RunTree({ id: runId, name: 'late', run_type: 'chain', inputs: { question: 'Late run?' }, client, tracingEnabled: true });
      await run.postRun();
      await run.end({ answer: 'Arrived.' });
      await run.patchRun();
      await client.awaitPendingTraceBatches();
      expect(await response(runId)).toMatchObject({ query: 'Late run?', answer: 'Arrived.' });
      expect((await events(runId)).map((e) => e.type)).toEqual(['thumbs_up']);
      // A workspace that refuses feedback on unknown traces gets a 404, nothing stored.
      const strict = await t.otherWorkspace();
      await t.app.inject({ method: 'PATCH', url: '/v1/workspace/settings', headers: { authorization: `Bearer ${strict.secretKey}` }, payload: { compat: { unknownTraces: 'reject' } } });
      const strictClient = new Client({ apiUrl: `${base}/langsmith`, apiKey: strict.secretKey });
      await expect(strictClient.createFeedback(crypto.randomUUID(), 'user_score', { score: 1 })).rejects.toThrow(/404.*run_id/);
    });

    it("erases a user's LangSmith runs and feedback with their responses", async () => {
      const ids = await traceCall('Erase me', { user_id: 'u-ls-erased' });
      await client.createFeedback(ids.llm, 'note', { comment: 'written by u-ls-erased' });
      const count = async () =>
        (
          await t.db.query<{ n: number }>(
            'SELECT (SELECT count(*) FROM langsmith_feedback WHERE workspace_id = $1 AND response_id = $2)::int + (SELECT count(*) FROM langsmith_runs WHERE workspace_id = $1 AND trace_id = $2)::int AS n',
            [t.workspaceId, ids.root],
          )
        )[0]?.n;
      expect(await count()).toBe(2);
      const res = await t.app.inject({ method: 'DELETE', url: '/v1/users/u-ls-erased', headers: t.auth });
      expect(res.statusCode, res.body).toBe(200);
      expect(await count()).toBe(0);
      expect(await response(ids.root)).toBeUndefined();
    });

    it('lists a run\'s feedback, by key too', async () => {
      const ids = await traceCall('List me');
      await client.createFeedback(ids.root, 'user_score', { score: 1 });
      await client.createFeedback(ids.root, 'note', { comment: 'a note' });
      const all = [];
      for await (const f of client.listFeedback({ runIds: [ids.root] })) all.push(f);
      expect(all.map((f) => f.key).sort()).toEqual(['note', 'user_score']);
      const notes = [];
      for await (const f of client.listFeedback({ runIds: [ids.root], feedbackKeys: ['note'] })) notes.push(f);
      expect(notes).toHaveLength(1);
      expect(notes[0]).toMatchObject({ key: 'note', comment: 'a note' });
    });

    it('makes presigned feedback tokens that take a tokenless POST and GET from any origin', async () => {
      const ids = await traceCall('Rate me from the browser');
      const token = await client.createPresignedFeedbackToken(ids.llm, 'user_score', { expiration: { hours: 1 } });
      expect(token.url.startsWith(`${PUBLIC_URL}/langsmith/feedback/tokens/`)).toBe(true);
      expect(Date.parse(token.expires_at) - Date.now()).toBeGreaterThan(3_500_000);
      const path = new URL(token.url).pathname;
      const posted = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', origin: 'https://app.example' }, body: JSON.stringify({ score: 1, comment: 'from the page' }) });
      expect(posted.status).toBe(201);
      expect(posted.headers.get('access-control-allow-origin')).toBe('*');
      // A page's plain fetch sends its JSON as text/plain (no preflight).
      const simple = await fetch(`${base}${path}`, { method: 'POST', body: JSON.stringify({ score: 1, comment: 'simple request' }) });
      expect(simple.status).toBe(201);
      const got = await fetch(`${base}${path}?score=0&comment=${encodeURIComponent('via a link')}`);
      expect(got.status).toBe(200);
      const preflight = await fetch(`${base}${path}`, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } });
      expect([preflight.status, preflight.headers.get('access-control-allow-origin')]).toEqual([204, '*']);
      const listed = [];
      for await (const f of client.listFeedback({ runIds: [ids.llm] })) listed.push(f);
      expect(listed.map((f) => [f.key, f.comment, f.feedback_source?.type])).toEqual([
        ['user_score', 'from the page', 'app'],
        ['user_score', 'simple request', 'app'],
        ['user_score', 'via a link', 'app'],
      ]);
      expect((await events(ids.root)).map((e) => e.type).sort()).toEqual(['thumbs_down', 'thumbs_up', 'thumbs_up']);
      const bySource = async (type: 'app' | 'api') => {
        const found = [];
        for await (const f of client.listFeedback({ runIds: [ids.llm], feedbackSourceTypes: [type] })) found.push(f);
        return found.length;
      };
      expect([await bySource('app'), await bySource('api')]).toEqual([3, 0]);
      // Tampered: refused, with CORS so the page can read why.
      const bad = await fetch(`${base}${path.slice(0, -3)}xyz`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"score":1}' });
      expect(bad.status).toBe(401);
      expect(bad.headers.get('access-control-allow-origin')).toBe('*');
      expect(((await bad.json()) as { detail: string }).detail).toMatch(/token/);
      // Several at once.
      const res = await fetch(`${base}/langsmith/feedback/tokens`, {
        method: 'POST',
        headers: { 'x-api-key': t.secretKey, 'content-type': 'application/json' },
        body: JSON.stringify([
          { run_id: ids.root, feedback_key: 'a', expires_in: { minutes: 5 } },
          // The Python SDK's naive isoformat(), read as UTC.
          { run_id: ids.root, feedback_key: 'b', expires_at: new Date(Date.now() + 60_000).toISOString().replace('Z', '') },
        ]),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as unknown[]).length).toBe(2);
    });

    it('answers errors in LangSmith\'s shape, never a 5xx', async () => {
      const noKey = await fetch(`${base}/langsmith/feedback/0190f2a1-0000-7000-8000-000000000000`);
      expect(noKey.status).toBe(401);
      expect(await noKey.json()).toMatchObject({ detail: expect.any(String), error: { code: 'FEEDLOOP_ERR_AUTH_MISSING_KEY' } });
      const wrongKey = new Client({ apiUrl: `${base}/langsmith`, apiKey: 'fl_sk_nope' });
      await expect(wrongKey.readFeedback('0190f2a1-0000-7000-8000-000000000000')).rejects.toThrow(/401/);
      const bearer = await fetch(`${base}/langsmith/feedback?run=0190f2a1-0000-7000-8000-000000000000`, { headers: { authorization: `Bearer ${t.secretKey}` } });
      expect([bearer.status, await bearer.json()]).toEqual([200, []]);
      const pub = await fetch(`${base}/langsmith/info`, { headers: { 'x-api-key': t.publicKey } });
      expect(pub.status).toBe(403);
      const missing = await fetch(`${base}/langsmith/feedback/0190f2a1-0000-7000-8000-000000000000`, { headers: { 'x-api-key': t.secretKey } });
      expect([missing.status, ((await missing.json()) as { error: { code: string } }).error.code]).toEqual([404, 'FEEDLOOP_ERR_FEEDBACK_NOT_FOUND']);
      const noRun = await fetch(`${base}/langsmith/feedback`, { method: 'POST', headers: { 'x-api-key': t.secretKey, 'content-type': 'application/json' }, body: '{"key":"k","score":1}' });
      expect([noRun.status, ((await noRun.json()) as { detail: string }).detail]).toEqual([400, expect.stringMatching(/run_id/)]);
      const outOfConfig = await fetch(`${base}/langsmith/feedback`, {
        method: 'POST',
        headers: { 'x-api-key': t.secretKey, 'content-type': 'application/json' },
        body: JSON.stringify({ run_id: crypto.randomUUID(), key: 'stars', score: 9, feedback_config: { type: 'categorical', categories: [{ value: 1 }, { value: 2 }] } }),
      });
      expect([outOfConfig.status, ((await outOfConfig.json()) as { error: { field: string } }).error.field]).toEqual([400, 'score']);
      const badRun = await fetch(`${base}/langsmith/runs`, { method: 'POST', headers: { 'x-api-key': t.secretKey, 'content-type': 'application/json' }, body: '{"id":"not an id","inputs":{}}' });
      expect([badRun.status, ((await badRun.json()) as { error: { field: string } }).error.field]).toEqual([400, 'id']);
      const badJson = await fetch(`${base}/langsmith/runs`, { method: 'POST', headers: { 'x-api-key': t.secretKey, 'content-type': 'application/json' }, body: '{' });
      expect(badJson.status).toBe(400);
      expect(await badJson.json()).toMatchObject({ detail: expect.any(String) });
      const unknown = await fetch(`${base}/langsmith/sessions`, { headers: { 'x-api-key': t.secretKey } });
      expect([unknown.status, ((await unknown.json()) as { detail: string }).detail]).toEqual([404, expect.stringMatching(/no route/)]);
    });

    it('refuses one bad run of a batch alone (207) and stores the others', async () => {
      const good = crypto.randomUUID();
      const res = await fetch(`${base}/langsmith/runs/batch`, {
        method: 'POST',
        headers: { 'x-api-key': t.secretKey, 'content-type': 'application/json' },
        body: JSON.stringify({ post: [{ id: good, name: 'ok', run_type: 'chain', inputs: { question: 'good one' } }, { id: 'bad id with spaces', inputs: {} }], patch: [{ id: good, outputs: { answer: 'done' } }] }),
      });
      expect(res.status).toBe(207);
      const body = (await res.json()) as { errors: { kind: string; index: number; error: { field: string } }[] };
      expect(body.errors).toEqual([expect.objectContaining({ kind: 'post', index: 1, error: expect.objectContaining({ field: 'post[1].id' }) })]);
      expect(await response(good)).toMatchObject({ query: 'good one', answer: 'done' });
    });

    it("takes multipart batches (the Python SDK's format, sent here by the JS client's own encoder): runs, their fields, feedback parts", async () => {
      const runId = crypto.randomUUID();
      const feedbackId = crypto.randomUUID();
      const start = Date.now();
      await client.multipartIngestRuns({
        runCreates: [{ id: runId, trace_id: runId, dotted_order: `${new Date(start).toISOString().replace(/[-:.]/g, '')}${runId}`, name: 'py-chain', run_type: 'chain', start_time: start, inputs: { question: 'From Python?' } }],
        runUpdates: [{ id: runId, trace_id: runId, dotted_order: `${new Date(start).toISOString().replace(/[-:.]/g, '')}${runId}`, end_time: start + 1_000, outputs: { output: 'Yes.' } }],
        feedbacks: [{ id: feedbackId, run_id: runId, trace_id: runId, key: 'correctness', score: 1 }],
      } as Parameters<Client['multipartIngestRuns']>[0]);
      expect(await response(runId)).toMatchObject({ query: 'From Python?', answer: 'Yes.' });
      expect((await events(runId)).map((e) => [e.id, e.type])).toEqual([[feedbackId, 'score']]);
      // A part that is no JSON is refused alone (207), with what was readable stored.
      const other = crypto.randomUUID();
      const form = new FormData();
      form.append(`post.${other}`, new Blob([JSON.stringify({ id: other, trace_id: other, inputs: { question: 'q' } })], { type: 'application/json' }));
      form.append(`post.${other}.outputs`, new Blob(['{not json'], { type: 'application/json' }));
      const res = await fetch(`${base}/langsmith/runs/multipart`, { method: 'POST', headers: { 'x-api-key': t.secretKey }, body: form });
      expect(res.status).toBe(207);
      expect(await response(other)).toMatchObject({ query: 'q' });
    });
  });
}
