/**
 * What the evaluator suites share: the operator settings loopback judges need, and the API calls
 * they make on a test app (register responses, make an evaluator, read its calls and judge
 * events, queue and dispatch calls by hand).
 */
import { expect } from 'vitest';
import { dispatchEvaluatorCalls } from '../src/emit/evaluator-dispatch.js';
import { judgeSubmitter } from '../src/ingest/judge-submission.js';
import { queueEvaluatorCalls } from '../src/store/evaluator-calls.js';
import type { TestJudge } from './evaluator-server.js';
import type { TestApp } from './harness.js';

/** Loopback judges need the operator's allow setting; an hour's sweep keeps the scheduled tick out of the way. */
export const LOCAL = { FEEDLOOP_WEBHOOK_ALLOW_PRIVATE: 'true', FEEDLOOP_SWEEP_INTERVAL_SECONDS: '3600' };

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** A judge event as `GET /v1/feedback` lists it. */
export interface JudgeEventView {
  id: string;
  type: string;
  responseId: string;
  userId: string;
  payload: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

/**
 * The suites' API calls on the app `app()` returns (read at each call: the app starts in beforeAll).
 *
 * @example
 * const { register, create, calls } = evaluatorApi(() => t);
 */
export function evaluatorApi(app: () => TestApp) {
  const call = (method: Method, url: string, payload?: unknown) =>
    app().app.inject({ method, url, headers: app().auth, ...(payload === undefined ? {} : { payload: payload as object }) });
  return {
    call,
    register: async (responses: Array<Record<string, unknown>>) => {
      const res = await call('POST', '/v1/responses/batch', { responses });
      expect(res.statusCode).toBe(207);
      expect(res.json().results.filter((r: { status: string }) => r.status === 'rejected')).toEqual([]);
    },
    create: async (judge: TestJudge, body: Record<string, unknown> = {}) => {
      const res = await call('POST', '/v1/evaluators', { name: 'groundedness', url: judge.url, secret: judge.secret, kind: 'pointwise', output: 'thumbs', ...body });
      expect(res.statusCode, res.body).toBe(201);
      return res.json() as { id: string; version: number; secret: string };
    },
    calls: async (id: string, query = '') => (await call('GET', `/v1/evaluators/${id}/calls${query}`)).json().calls as Array<Record<string, unknown>>,
    judgeEvents: async (id: string) => (await call('GET', `/v1/feedback?source=judge&evaluatorId=${id}&limit=100`)).json().data as JudgeEventView[],
    dispatch: (options: { ids?: number[]; backoffMs?: number; maxAttempts?: number } = {}) =>
      dispatchEvaluatorCalls(app().db, { submit: judgeSubmitter(app().db, () => app().services.ingest), allowPrivate: true, backoffMs: 0, ...options }),
    queueOne: async (evaluatorId: string, responseId: string) =>
      queueEvaluatorCalls(app().db, [{ workspaceId: app().workspaceId, evaluatorId, version: 1, itemKey: responseId, responseId, responseBId: null, origin: 'new', backfillId: null }]),
  };
}
