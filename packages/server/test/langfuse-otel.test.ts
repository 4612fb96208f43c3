/**
 * Langfuse's OpenTelemetry SDK (v4+: `@langfuse/otel`'s LangfuseSpanProcessor with
 * `@langfuse/tracing`, published npm packages) pointed at feedloop's Langfuse OTLP endpoint,
 * `POST /api/public/otel/v1/traces`, with its Basic auth (a workspace's public and secret key), on
 * each store: the trace as a response, as Langfuse's own docs trace an LLM call.
 */
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { LangfuseSpanProcessor } from '@langfuse/otel';
import { propagateAttributes, setLangfuseTracerProvider, startActiveObservation, startObservation } from '@langfuse/tracing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

interface Row {
  query: string;
  answer: string;
  model: string | null;
  user_id: string | null;
  session_id: string | null;
  variant: string | null;
  metadata: Record<string, unknown>;
}

// Langfuse's active observations and propagated attributes need a context manager, as the
// NodeSDK of Langfuse's docs installs; this file's worker has it for its own tests.
const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(() => {
  context.disable();
});

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`@langfuse/otel to /api/public/otel/v1/traces on ${backend.name}`, () => {
    let t: TestApp;
    let base: string;
    const row = async (id: string) =>
      (await t.db.query<Row>('SELECT query, answer, model, user_id, session_id, variant, metadata FROM responses WHERE workspace_id = $1 AND id = $2', [t.workspaceId, id]))[0];
    /** A LangfuseSpanProcessor on feedloop, as Langfuse's docs set it up, with feedloop's keys. */
    const langfuse = (keys: { publicKey: string; secretKey: string }) => {
      const processor = new LangfuseSpanProcessor({ ...keys, baseUrl: base, flushInterval: 600 });
      const provider = new NodeTracerProvider({ spanProcessors: [processor] });
      setLangfuseTracerProvider(provider);
      return { processor, provider };
    };

    beforeAll(async () => {
      t = await startTestApp(await backend.open());
      base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    });
    afterAll(async () => {
      setLangfuseTracerProvider(null);
      await t.close();
    });

    it('stores a traced LLM call: the root observation question and answer, the generation model, the propagated user, session and metadata', async () => {
      const { processor, provider } = langfuse({ publicKey: t.publicKey, secretKey: t.secretKey });
      let traceId = '';
      await startActiveObservation('answer-question', async (root) => {
        traceId = root.traceId;
        root.update({ input: 'Which plan includes SSO?' });
        await propagateAttributes({ userId: 'u-lf', sessionId: 's-lf', metadata: { variant: 'b', page: 'pricing' } }, async () => {
          const generation = startObservation(
            'chat',
            { model: 'gpt-4o', input: [{ role: 'system', content: 'Answer from the pricing page.' }, { role: 'user', content: 'sso plan?' }] },
            { asType: 'generation' },
          );
          generation.update({ output: { role: 'assistant', content: 'Business.' } }).end();
        });
        root.update({ output: 'SSO comes with the Business plan.' });
      });
      await processor.forceFlush();
      await provider.shutdown();
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      const r = await row(traceId);
      expect(r).toMatchObject({ query: 'Which plan includes SSO?', answer: 'SSO comes with the Business plan.', model: 'gpt-4o', user_id: 'u-lf', session_id: 's-lf', variant: 'b' });
      expect(r?.metadata).toMatchObject({ page: 'pricing', variant: 'b' });
    });

    it('fills question and answer from a lone generation, and lets setTraceIO win', async () => {
      const { processor, provider } = langfuse({ publicKey: t.publicKey, secretKey: t.secretKey });
      const lone = startObservation('chat', { model: 'claude-3-5-sonnet', input: [{ role: 'user', content: 'Summarize the ticket' }] }, { asType: 'generation' });
      lone.update({ output: 'The customer wants a refund.' }).end();
      let explicit = '';
      await startActiveObservation('pipeline', async (root) => {
        explicit = root.traceId;
        root.setTraceIO({ input: 'the user question', output: 'the final answer' });
        root.update({ input: 'step input', output: 'step output' });
      });
      await processor.forceFlush();
      await provider.shutdown();
      expect(await row(lone.traceId)).toMatchObject({ query: 'Summarize the ticket', answer: 'The customer wants a refund.', model: 'claude-3-5-sonnet' });
      expect(await row(explicit)).toMatchObject({ query: 'the user question', answer: 'the final answer' });
    });

    it('refuses a Basic pair of two workspaces, a pair in the wrong order, and a public key alone', async () => {
      const other = await t.otherWorkspace();
      const post = (authorization: string) =>
        fetch(`${base}/api/public/otel/v1/traces`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: '{"resourceSpans":[]}' });
      const basic = (a: string, b: string) => `Basic ${Buffer.from(`${a}:${b}`).toString('base64')}`;
      expect((await post(basic(t.publicKey, other.secretKey))).status).toBe(401);
      expect((await post(basic(t.secretKey, t.publicKey))).status).toBe(401);
      expect((await post(`Bearer ${t.publicKey}`)).status).toBe(403);
      const ok = await post(basic(t.publicKey, t.secretKey));
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual({});
      // feedloop's own Bearer secret key is taken here too.
      expect((await post(`Bearer ${t.secretKey}`)).status).toBe(200);
    });
  });
}
