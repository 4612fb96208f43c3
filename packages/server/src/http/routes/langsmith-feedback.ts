/**
 * LangSmith feedback under `/langsmith` (issue 26 §3): `POST /feedback`, `GET|PATCH|DELETE
 * /feedback/:id`, `GET /feedback?run=`, and the `feedback.<id>` parts of a multipart batch.
 * Mapping and storage in ingest/langsmith-feedback.ts; this file reads requests and shapes
 * answers as the SDKs read them.
 */
import { firstIssue, idSchema, langSmithFeedbackSchema, langSmithFeedbackUpdateSchema, type LangSmithFeedbackInput } from '@feedloop/core';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FeedloopError } from '../../errors.js';
import { createLangSmithFeedback, deleteLangSmithFeedback, updateLangSmithFeedback, type LangSmithFeedbackDeps } from '../../ingest/langsmith-feedback.js';
import type { RefusedRun } from '../../ingest/langsmith-runs.js';
import type { AuthContext } from '../../store/auth-context.js';
import { listLangSmithFeedback, readLangSmithFeedback, type StoredLangSmithFeedback } from '../../store/langsmith.js';
import { authOf } from '../auth.js';
import type { AppServices } from '../services.js';
import { withValidator } from '../validation.js';

const TAGS = ['langsmith'];
/** Feedback per page of `GET /feedback` at most (the SDK asks for 100). */
const MAX_PAGE = 100;

/**
 * A stored feedback as LangSmith's `Feedback` schema shows it.
 *
 * @example
 * langSmithFeedbackJson(stored) // { id, run_id, trace_id, key: 'user_score', score: 1, …, created_at, modified_at }
 */
export function langSmithFeedbackJson(f: StoredLangSmithFeedback): Record<string, unknown> {
  return {
    id: f.feedbackId,
    run_id: f.runId,
    trace_id: f.responseId,
    key: f.state.key,
    score: f.state.score,
    value: f.state.value,
    comment: f.state.comment,
    correction: f.state.correction,
    feedback_source: f.state.feedback_source,
    session_id: null,
    comparative_experiment_id: null,
    feedback_group_id: null,
    created_at: f.createdAt,
    modified_at: f.modifiedAt,
  };
}

const parseFeedback = (data: unknown, prefix?: string) => {
  const parsed = langSmithFeedbackSchema.safeParse(data);
  return parsed.success ? ({ ok: true, value: parsed.data } as const) : ({ ok: false, error: firstIssue(parsed.error, prefix) } as const);
};

/**
 * Submits the `feedback.<id>` parts of a multipart batch, each alone; returns the ones refused.
 */
export async function submitMultipartFeedback(deps: LangSmithFeedbackDeps, auth: AuthContext, feedback: Record<string, unknown>[]): Promise<RefusedRun[]> {
  const refused: RefusedRun[] = [];
  for (const [index, raw] of feedback.entries()) {
    const id = typeof raw.id === 'string' ? raw.id : undefined;
    const checked = parseFeedback(raw, `feedback[${index}]`);
    try {
      if (!checked.ok) throw FeedloopError.from(checked.error);
      await createLangSmithFeedback(deps, auth, checked.value);
    } catch (err) {
      if (!(err instanceof FeedloopError) || err.status >= 500) throw err;
      refused.push({ kind: 'feedback', index, ...(id !== undefined ? { id } : {}), error: err.toBody() });
    }
  }
  return refused;
}

const idParams = z.object({ id: idSchema.describe('The feedback id') });
const many = z.union([idSchema, z.array(idSchema).max(MAX_PAGE)]).optional();
const label = z.string().min(1).max(200);
const asList = <T>(v: T | T[] | undefined): T[] | undefined => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);

/** The feedback routes. */
export const langsmithFeedbackRoutes: FastifyPluginAsync<AppServices> = async (app, { db, ingest }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const deps = { db, ingest };

  r.post('/feedback', {
    schema: {
      summary: 'Create feedback on a run: key + score/value → a score named by the key; comment; correction',
      tags: TAGS,
      body: withValidator(langSmithFeedbackSchema, (data) => parseFeedback(data)),
    },
    handler: async (request) => langSmithFeedbackJson(await createLangSmithFeedback(deps, authOf(request), request.body as LangSmithFeedbackInput)),
  });

  r.get('/feedback/:id', {
    schema: { summary: 'One feedback', tags: TAGS, params: idParams },
    handler: async (request) => {
      const found = await readLangSmithFeedback(db, authOf(request).workspaceId, request.params.id);
      if (!found || found.deleted) throw new FeedloopError('FEEDLOOP_ERR_FEEDBACK_NOT_FOUND', `no feedback ${JSON.stringify(request.params.id)} in this workspace`, { field: 'id' });
      return langSmithFeedbackJson(found);
    },
  });

  r.patch('/feedback/:id', {
    schema: { summary: 'Replace the fields sent (score, value, comment, correction): a vote change', tags: TAGS, params: idParams, body: langSmithFeedbackUpdateSchema },
    handler: async (request) => langSmithFeedbackJson(await updateLangSmithFeedback(deps, authOf(request), request.params.id, request.body)),
  });

  r.delete('/feedback/:id', {
    schema: { summary: 'Delete a feedback: its events are retracted (kept, marked; effects reversed; audited)', tags: TAGS, params: idParams },
    handler: async (request) => {
      await deleteLangSmithFeedback(deps, authOf(request), request.params.id);
      return {};
    },
  });

  r.get('/feedback', {
    schema: {
      summary: 'Feedback by run, key and source type, oldest first (offset pages)',
      tags: TAGS,
      querystring: z.object({
        run: many.describe('Run ids (repeatable)'),
        key: z.union([label, z.array(label).max(MAX_PAGE)]).optional(),
        source: z.union([label, z.array(label).max(10)]).optional(),
        limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(MAX_PAGE),
        offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
      }),
    },
    handler: async (request) => {
      const q = request.query;
      const runIds = asList(q.run);
      const keys = asList(q.key);
      const sourceTypes = asList(q.source);
      const rows = await listLangSmithFeedback(db, authOf(request).workspaceId, {
        ...(runIds ? { runIds } : {}),
        ...(keys ? { keys } : {}),
        ...(sourceTypes ? { sourceTypes } : {}),
        limit: q.limit,
        offset: q.offset,
      });
      return rows.map(langSmithFeedbackJson);
    },
  });
};
