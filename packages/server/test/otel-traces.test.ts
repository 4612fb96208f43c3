/**
 * OpenTelemetry traces (issue 26 §4) sent by OpenTelemetry's real OTLP exporters, protobuf and
 * JSON, gzip or not, to a listening feedloop on each store: the responses stored from the GenAI
 * conventions and OpenInference, traces split over requests, traces without LLM content dropped
 * and counted, and the errors OTLP/HTTP defines.
 */
import { gzipSync } from 'node:zlib';
import otlpRoot from '@opentelemetry/otlp-transformer/build/src/generated/root.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';
import { exportingTracer, startSpan } from './otel-exporters.js';

interface Row {
  query: string;
  answer: string;
  model: string | null;
  user_id: string | null;
  session_id: string | null;
  metadata: Record<string, unknown>;
  bare: boolean;
}

/** The generated protobuf classes (OpenTelemetry's own), to read protobuf answers. */
const v1 = (otlpRoot as unknown as {
  opentelemetry: { proto: { collector: { trace: { v1: Record<string, { decode(b: Uint8Array): unknown; toObject(m: unknown): unknown; encode(m: unknown): { finish(): Uint8Array }; fromObject(o: unknown): unknown }> } } } };
}).opentelemetry.proto.collector.trace.v1;

const messages = (list: Array<{ role: string; content: string }>) => JSON.stringify(list.map((m) => ({ role: m.role, parts: [{ type: 'text', content: m.content }] })));

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`OTLP traces on ${backend.name}`, () => {
    let t: TestApp;
    let base: string;
    const row = async (id: string) =>
      (await t.db.query<Row>('SELECT query, answer, model, user_id, session_id, metadata, bare FROM responses WHERE workspace_id = $1 AND id = $2', [t.workspaceId, id]))[0];
    const counter = async (name: string, outcome: string): Promise<number> => {
      const metric = await t.services.metrics.registry.getSingleMetric(name)?.get();
      return metric?.values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
    };

    beforeAll(async () => {
      t = await startTestApp(await backend.open(), { FEEDLOOP_BATCH_BODY_LIMIT_BYTES: '65536' });
      base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    });
    afterAll(async () => {
      await t.close();
    });

    it('stores a GenAI-convention trace sent by the protobuf exporter with gzip', async () => {
      const otel = exportingTracer({ url: `${base}/v1/traces`, encoding: 'protobuf', gzip: true, headers: t.auth });
      const root = startSpan(otel.tracer, 'POST /ask', { 'http.request.method': 'POST', 'user.id': 'u-genai' });
      const chat = startSpan(
        otel.tracer,
        'chat gpt-4o-mini',
        {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
          'gen_ai.conversation.id': 'conv-1',
          'gen_ai.input.messages': messages([
            { role: 'system', content: 'Answer briefly.' },
            { role: 'user', content: 'What is the capital of France?' },
          ]),
          'gen_ai.output.messages': messages([{ role: 'assistant', content: 'Paris.' }]),
        },
        root,
      );
      chat.end();
      root.end();
      await otel.flush();
      await otel.shutdown();
      expect(otel.results.map((r) => r.code)).toEqual([0]);
      const traceId = root.spanContext().traceId;
      expect(await row(traceId)).toMatchObject({
        query: 'What is the capital of France?',
        answer: 'Paris.',
        model: 'gpt-4o-mini-2024-07-18',
        user_id: 'u-genai',
        session_id: 'conv-1',
        bare: false,
      });
      // The response is an ordinary one: the API finds it by the trace id.
      const got = await t.app.inject({ method: 'GET', url: `/v1/responses/${traceId}`, headers: t.auth });
      expect(got.statusCode).toBe(200);
    });

    it('stores an OpenInference trace sent by the JSON exporter: the root span gives query and answer', async () => {
      const otel = exportingTracer({ url: `${base}/v1/traces`, encoding: 'json', headers: t.auth });
      const root = startSpan(otel.tracer, 'rag', {
        'openinference.span.kind': 'CHAIN',
        'input.value': 'How do I reset my password?',
        'output.value': 'Open Settings, then Security.',
        'session.id': 'sess-oi',
        'user.id': 'u-oi',
      });
      const llm = startSpan(
        otel.tracer,
        'llm',
        {
          'openinference.span.kind': 'LLM',
          'llm.model_name': 'claude-3-5-haiku',
          'llm.input_messages.0.message.role': 'system',
          'llm.input_messages.0.message.content': 'Context: …',
          'llm.input_messages.1.message.role': 'user',
          'llm.input_messages.1.message.content': 'reset password?',
          'llm.output_messages.0.message.role': 'assistant',
          'llm.output_messages.0.message.content': 'Settings > Security.',
        },
        root,
      );
      llm.end();
      root.end();
      await otel.flush();
      await otel.shutdown();
      expect(otel.results.map((r) => r.code)).toEqual([0]);
      expect(await row(root.spanContext().traceId)).toMatchObject({
        query: 'How do I reset my password?',
        answer: 'Open Settings, then Security.',
        model: 'claude-3-5-haiku',
        user_id: 'u-oi',
        session_id: 'sess-oi',
      });
    });

    it('reads the older gen_ai.prompt.N / gen_ai.completion.N attributes and the gen_ai message events', async () => {
      const otel = exportingTracer({ url: `${base}/v1/traces`, encoding: 'json', gzip: true, headers: t.auth });
      const indexed = startSpan(otel.tracer, 'openai.chat', {
        'gen_ai.system': 'openai',
        'gen_ai.request.model': 'gpt-3.5-turbo',
        'gen_ai.prompt.0.role': 'user',
        'gen_ai.prompt.0.content': 'Tell me a joke',
        'gen_ai.completion.0.role': 'assistant',
        'gen_ai.completion.0.content': 'Why did the chicken…',
      });
      indexed.end();
      const evented = startSpan(otel.tracer, 'chat', { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gemini-2.0-flash' });
      evented.addEvent('gen_ai.system.message', { content: 'Be kind.' });
      evented.addEvent('gen_ai.user.message', { content: 'Hello?' });
      evented.addEvent('gen_ai.choice', { message: JSON.stringify({ role: 'assistant', content: 'Hi there.' }) });
      evented.end();
      await otel.flush();
      await otel.shutdown();
      expect(otel.results.map((r) => r.code)).toEqual([0]);
      expect(await row(indexed.spanContext().traceId)).toMatchObject({ query: 'Tell me a joke', answer: 'Why did the chicken…', model: 'gpt-3.5-turbo' });
      expect(await row(evented.spanContext().traceId)).toMatchObject({ query: 'Hello?', answer: 'Hi there.', model: 'gemini-2.0-flash' });
    });

    it('completes a trace whose spans come in several requests, the root span winning in either order', async () => {
      const otel = exportingTracer({ url: `${base}/v1/traces`, encoding: 'protobuf', headers: t.auth });
      // LLM span first, root later (the usual order: children end first).
      const root = startSpan(otel.tracer, 'agent', {});
      const call = startSpan(
        otel.tracer,
        'chat',
        { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.input.messages': messages([{ role: 'user', content: 'rephrased: weather?' }]), 'gen_ai.output.messages': messages([{ role: 'assistant', content: 'tool call' }]) },
        root,
      );
      call.end();
      await otel.flush();
      const traceId = root.spanContext().traceId;
      expect(await row(traceId)).toMatchObject({ query: 'rephrased: weather?', answer: 'tool call', model: 'gpt-4o' });
      root.setAttributes({ 'input.value': 'What is the weather in Oslo?', 'output.value': 'Rainy, 8 °C.', 'user.id': 'u-split' });
      root.end();
      await otel.flush();
      expect(await row(traceId)).toMatchObject({ query: 'What is the weather in Oslo?', answer: 'Rainy, 8 °C.', model: 'gpt-4o', user_id: 'u-split' });

      // Root first, a late LLM span after: the root's texts stay, the call adds its model.
      const root2 = startSpan(otel.tracer, 'agent', { 'input.value': 'Translate "hello"', 'output.value': 'bonjour' });
      const late = startSpan(
        otel.tracer,
        'chat',
        { 'gen_ai.operation.name': 'chat', 'gen_ai.response.model': 'mistral-small', 'gen_ai.input.messages': messages([{ role: 'user', content: 'internal prompt' }]) },
        root2,
      );
      root2.end();
      await otel.flush();
      late.end();
      await otel.flush();
      expect(await row(root2.spanContext().traceId)).toMatchObject({ query: 'Translate "hello"', answer: 'bonjour', model: 'mistral-small' });

      // An HTTP root span without LLM content, after its LLM call: it completes the response (the user).
      const http = startSpan(otel.tracer, 'POST /chat', { 'http.request.method': 'POST', 'user.id': 'u-http', 'session.id': 's-http' });
      startSpan(otel.tracer, 'chat', { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'input.value': 'hi', 'output.value': 'hello' }, http).end();
      await otel.flush();
      http.end();
      await otel.flush();
      await otel.shutdown();
      expect(otel.results.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0]);
      expect(await row(http.spanContext().traceId)).toMatchObject({ query: 'hi', answer: 'hello', user_id: 'u-http', session_id: 's-http' });
    });

    it('drops and counts traces without LLM content', async () => {
      const droppedBefore = await counter('feedloop_otel_traces_total', 'dropped');
      const storedBefore = await counter('feedloop_otel_traces_total', 'stored');
      const otel = exportingTracer({ url: `${base}/v1/traces`, encoding: 'protobuf', gzip: true, headers: t.auth });
      const http = startSpan(otel.tracer, 'GET /health', { 'http.request.method': 'GET', 'user.id': 'u-1' });
      startSpan(otel.tracer, 'SELECT', { 'db.system': 'postgresql' }, http).end();
      http.end();
      const embed = startSpan(otel.tracer, 'embeddings', { 'gen_ai.operation.name': 'embeddings', 'gen_ai.request.model': 'text-embedding-3-small' });
      embed.end();
      const llm = startSpan(otel.tracer, 'chat', { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o' });
      llm.end();
      await otel.flush();
      await otel.shutdown();
      expect(otel.results.map((r) => r.code)).toEqual([0]);
      expect(await row(http.spanContext().traceId)).toBeUndefined();
      expect(await row(embed.spanContext().traceId)).toBeUndefined();
      // An LLM call with its content not captured still makes a (bare) response feedback can name.
      expect(await row(llm.spanContext().traceId)).toMatchObject({ bare: true, model: 'gpt-4o' });
      expect((await counter('feedloop_otel_traces_total', 'dropped')) - droppedBefore).toBe(2);
      expect((await counter('feedloop_otel_traces_total', 'stored')) - storedBefore).toBe(1);
      const scrape = await t.app.inject({ method: 'GET', url: '/metrics' });
      expect(scrape.body).toMatch(/feedloop_otel_traces_total\{outcome="dropped"\} \d+/);
    });

    it('answers a partial success when a trace is refused, in the request encoding', async () => {
      const request = (userId: string) => ({
        resourceSpans: [
          {
            scopeSpans: [
              {
                spans: [
                  { traceId: Buffer.from('1'.repeat(32), 'hex'), spanId: Buffer.from('2'.repeat(16), 'hex'), name: 'chat', attributes: [{ key: 'input.value', value: { stringValue: 'q' } }, { key: 'user.id', value: { stringValue: userId } }] },
                  { traceId: Buffer.alloc(16), spanId: Buffer.from('3'.repeat(16), 'hex'), name: 'no trace id' },
                ],
              },
            ],
          },
        ],
      });
      const Req = v1.ExportTraceServiceRequest!;
      const body = Buffer.from(Req.encode(Req.fromObject(request('has a space'))).finish());
      const res = await fetch(`${base}/v1/traces`, { method: 'POST', headers: { ...t.auth, 'content-type': 'application/x-protobuf' }, body: new Uint8Array(body) });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/application\/x-protobuf/);
      const answer = v1.ExportTraceServiceResponse!.toObject(v1.ExportTraceServiceResponse!.decode(new Uint8Array(await res.arrayBuffer()))) as {
        partialSuccess: { rejectedSpans: unknown; errorMessage: string };
      };
      expect(Number(answer.partialSuccess.rejectedSpans)).toBe(2);
      expect(answer.partialSuccess.errorMessage).toMatch(/traceId/);
      expect(answer.partialSuccess.errorMessage).toMatch(/userId/);

      const json = await fetch(`${base}/v1/traces`, {
        method: 'POST',
        headers: { ...t.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 'zz', spanId: '22', name: 'x' }] }] }] }),
      });
      expect(json.status).toBe(200);
      expect(await json.json()).toEqual({ partialSuccess: { rejectedSpans: 1, errorMessage: expect.stringMatching(/traceId/) } });
    });

    it('answers 400 for an undecodable body, 413 for an oversized one, 401 without a key, in the OTLP shape', async () => {
      const post = (body: Buffer | string, headers: Record<string, string>) =>
        fetch(`${base}/v1/traces`, { method: 'POST', headers: { ...t.auth, ...headers }, body: typeof body === 'string' ? body : new Uint8Array(body) });
      const badJson = await post('{"resourceSpans": [', { 'content-type': 'application/json' });
      expect(badJson.status).toBe(400);
      expect(await badJson.json()).toMatchObject({ code: 3, error: { code: 'FEEDLOOP_ERR_OTLP_UNDECODABLE' } });
      const notRequest = await post('[1,2]', { 'content-type': 'application/json' });
      expect(notRequest.status).toBe(400);

      const badProto = await post(Buffer.from('not protobuf at all {{{'), { 'content-type': 'application/x-protobuf' });
      expect(badProto.status).toBe(400);
      expect(badProto.headers.get('content-type')).toMatch(/application\/x-protobuf/);
      // google.rpc.Status: field 1 (code) = 3, field 2 (message) names the registry code.
      const status = Buffer.from(await badProto.arrayBuffer());
      expect(status.subarray(0, 2)).toEqual(Buffer.from([0x08, 0x03]));
      expect(status.toString('utf8')).toContain('FEEDLOOP_ERR_OTLP_UNDECODABLE');

      const badGzip = await post(Buffer.from('not gzip'), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      expect(badGzip.status).toBe(400);

      const big = JSON.stringify({ resourceSpans: [], pad: 'x'.repeat(70_000) });
      expect((await post(big, { 'content-type': 'application/json' })).status).toBe(413);
      // A gzip bomb: small on the wire, past the limit once inflated.
      const bomb = gzipSync(Buffer.from(big));
      expect(bomb.length).toBeLessThan(65_536);
      const bombed = await post(bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      expect(bombed.status).toBe(413);
      expect(await bombed.json()).toMatchObject({ error: { code: 'FEEDLOOP_ERR_VALIDATION_BODY_TOO_LARGE' } });

      const noKey = await fetch(`${base}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(noKey.status).toBe(401);
      expect(await noKey.json()).toMatchObject({ code: 16, error: { code: 'FEEDLOOP_ERR_AUTH_MISSING_KEY' } });
      const publicKey = await fetch(`${base}/v1/traces`, { method: 'POST', headers: { authorization: `Bearer ${t.publicKey}`, 'content-type': 'application/json' }, body: '{}' });
      expect(publicKey.status).toBe(403);
    });

    // A second app (a fresh store) and the exporters' retries after Retry-After: give it time.
    it('answers 429 with Retry-After past the exports in flight (the exporters retry until stored), 503 with Retry-After without a database', { timeout: 120_000 }, async () => {
      const busy = await startTestApp(await backend.open(), { FEEDLOOP_OTLP_MAX_IN_FLIGHT: '1' });
      try {
        const busyBase = await busy.app.listen({ port: 0, host: '127.0.0.1' });
        const tracers = Array.from({ length: 4 }, () => exportingTracer({ url: `${busyBase}/v1/traces`, encoding: 'protobuf', headers: busy.auth, timeoutMs: 60_000 }));
        const ids: string[] = [];
        for (const [i, otel] of tracers.entries()) {
          for (let n = 0; n < 20; n++) {
            const span = startSpan(otel.tracer, 'chat', { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'm', 'input.value': `q ${i}-${n}`, 'output.value': `a ${i}-${n}` });
            span.end();
            ids.push(span.spanContext().traceId);
          }
        }
        await Promise.all(tracers.map((o) => o.flush()));
        await Promise.all(tracers.map((o) => o.shutdown()));
        const requests = await busy.services.metrics.httpRequests.get();
        const refused = requests.values.filter((v) => v.labels.route === '/v1/traces' && v.labels.status === '429').reduce((n, v) => n + v.value, 0);
        expect(refused).toBeGreaterThan(0);
        expect(tracers.flatMap((o) => o.results.map((r) => r.code))).toEqual([0, 0, 0, 0]);
        const [stored] = await busy.db.query<{ n: number }>('SELECT count(*)::int AS n FROM responses WHERE workspace_id = $1 AND id = ANY($2::text[])', [busy.workspaceId, ids]);
        expect(stored?.n).toBe(80);
        // The answer itself, for a client that reads it.
        const body = JSON.stringify({ resourceSpans: [] });
        const answers = await Promise.all(Array.from({ length: 8 }, () => busy.app.inject({ method: 'POST', url: '/v1/traces', headers: { ...busy.auth, 'content-type': 'application/json' }, payload: body })));
        for (const a of answers.filter((x) => x.statusCode === 429)) {
          expect(a.headers['retry-after']).toBe('1');
          expect(a.json()).toMatchObject({ code: 8, error: { code: 'FEEDLOOP_ERR_RATE_LIMITED' } });
        }

        // The database gone: 503 with Retry-After, which the exporters also retry.
        await busy.db.close();
        const gone = await busy.app.inject({ method: 'POST', url: '/v1/traces', headers: { ...busy.auth, 'content-type': 'application/json' }, payload: body });
        expect(gone.statusCode).toBe(503);
        expect(gone.headers['retry-after']).toBe('5');
        expect(gone.json()).toMatchObject({ code: 14, error: { code: 'FEEDLOOP_ERR_UNAVAILABLE' } });
      } finally {
        await busy.close().catch(() => undefined);
      }
    });

    it('keeps workspaces apart: a trace is stored in the key workspace only', async () => {
      const other = await t.otherWorkspace();
      const otel = exportingTracer({ url: `${base}/v1/traces`, encoding: 'json', headers: { authorization: `Bearer ${other.secretKey}` } });
      const span = startSpan(otel.tracer, 'chat', { 'gen_ai.operation.name': 'chat', 'input.value': 'other ws question' });
      span.end();
      await otel.flush();
      await otel.shutdown();
      expect(await row(span.spanContext().traceId)).toBeUndefined();
      const stored = await t.db.query<{ query: string }>('SELECT query FROM responses WHERE workspace_id = $1 AND id = $2', [other.workspaceId, span.spanContext().traceId]);
      expect(stored[0]?.query).toBe('other ws question');
    });
  });
}
