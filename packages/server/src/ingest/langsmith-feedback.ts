/**
 * LangSmith feedback into feedloop events (issue 26 §3): create (core's
 * {@link langSmithFeedbackEvents}, on the response of the run's trace), update (a new revision:
 * its events are written, then the old ones retracted, so the value is replaced as a vote change),
 * delete (the events retracted: kept in the log, their effects reversed, the audit log told).
 */
import {
  checkLangSmithFeedbackConfig,
  langSmithFeedbackEvents,
  langSmithFeedbackState,
  scoreConfigOfLangSmith,
  updatedLangSmithFeedback,
  validateFeedbackEvent,
  type ErrorBody,
  type FeedbackEvent,
  type LangSmithFeedbackConfig,
  type LangSmithFeedbackInput,
  type LangSmithFeedbackState,
  type LangSmithFeedbackUpdate,
} from '@feedloop/core';
import { v7 as uuidv7 } from 'uuid';
import type { SqlClient } from '../db/sql-client.js';
import { FeedloopError } from '../errors.js';
import type { AuthContext } from '../store/auth-context.js';
import { createScoreConfig, scoreConfigsFor } from '../store/score-configs.js';
import {
  feedbackContext,
  insertLangSmithFeedback,
  markLangSmithFeedbackDeleted,
  readLangSmithFeedback,
  reviseLangSmithFeedback,
  traceOfRuns,
  type StoredLangSmithFeedback,
} from '../store/langsmith.js';
import type { IngestService } from './ingest-service.js';

/** What the routes give the feedback functions. */
export interface LangSmithFeedbackDeps {
  db: SqlClient;
  ingest: IngestService;
}

const notFound = (id: string): FeedloopError => new FeedloopError('FEEDLOOP_ERR_FEEDBACK_NOT_FOUND', `no feedback ${JSON.stringify(id)} in this workspace`, { field: 'feedback_id' });

/**
 * The response a run's feedback goes to: the trace of a recorded child run, else the trace the
 * feedback names, else the run itself (a root run's id is its response's).
 */
export async function responseOfRun(db: SqlClient, workspaceId: string, runId: string, traceId?: string | null): Promise<string> {
  const known = await traceOfRuns(db, workspaceId, [runId]);
  return known.get(runId) ?? traceId ?? runId;
}

/** feedloop's field names in a score's errors, as the LangSmith feedback names them. */
const FIELD_NAMES: Readonly<Record<string, string>> = { 'payload.value': 'score', 'payload.stringValue': 'value', 'payload.comment': 'comment', 'payload.corrected': 'correction' };

/** An event's error with its field named as the LangSmith feedback names it. */
function asLangSmithError(error: ErrorBody): FeedloopError {
  const field = error.field === undefined ? undefined : FIELD_NAMES[error.field];
  return FeedloopError.from(field === undefined ? error : { ...error, field, message: error.message.replace(error.field as string, field) });
}

/** Validates the events of a state as any event; a bare key (no score, value, comment or correction) is refused. */
function eventsOf(state: LangSmithFeedbackState, target: Parameters<typeof langSmithFeedbackEvents>[1]): FeedbackEvent[] {
  const raw = langSmithFeedbackEvents(state, target);
  if (raw.length === 0) {
    throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'score: a feedback needs a score, a value, a comment or a correction', { field: 'score' });
  }
  return raw.map((event) => {
    const checked = validateFeedbackEvent(event);
    if (!checked.ok) throw asLangSmithError(checked.error);
    return checked.value;
  });
}

/** Retracts events (an id never stored, e.g. a sampled one, is passed over). */
async function retractAll(deps: LangSmithFeedbackDeps, auth: AuthContext, eventIds: readonly string[], reason: string): Promise<void> {
  for (const id of eventIds) {
    try {
      await deps.ingest.retractFeedback(auth, id, reason);
    } catch (err) {
      if (!(err instanceof FeedloopError && err.code === 'FEEDLOOP_ERR_FEEDBACK_NOT_FOUND')) throw err;
    }
  }
}

/**
 * Writes events; when any is refused, retracts the ones taken and throws the refusal (a feedback
 * is stored whole or not at all).
 */
async function submitAll(deps: LangSmithFeedbackDeps, auth: AuthContext, events: FeedbackEvent[], verified: boolean | undefined): Promise<void> {
  const outcomes = await deps.ingest.submitFeedback(auth, events, verified === undefined ? {} : { verified });
  const refused = outcomes.find((o) => o.status === 'rejected');
  if (!refused || refused.status !== 'rejected') return;
  await retractAll(deps, auth, outcomes.filter((o) => o.status !== 'rejected').map((o) => o.id), 'LangSmith feedback refused whole');
  throw asLangSmithError(refused.error);
}

/**
 * Creates a feedback; a retry of a stored id answers the stored one (nothing written twice).
 * A run not seen yet makes its trace's response known, bare until the run arrives (or, with the
 * workspace's `compat.unknownTraces: "reject"`, is refused: `404`).
 *
 * @throws FeedloopError a 400 naming the field (the score against `feedback_config`, an event
 *   feedloop refuses), `FEEDLOOP_ERR_FEEDBACK_WINDOW_CLOSED`, …
 */
export async function createLangSmithFeedback(
  deps: LangSmithFeedbackDeps,
  auth: AuthContext,
  input: LangSmithFeedbackInput,
  options: { verified?: boolean; config?: LangSmithFeedbackConfig | null } = {},
): Promise<StoredLangSmithFeedback> {
  const runId = input.run_id ?? input.trace_id;
  if (!runId) {
    throw new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', 'run_id: feedback must name a run (feedback on a project or session alone is not supported)', { field: 'run_id' });
  }
  const feedbackId = input.id ?? uuidv7();
  const state = langSmithFeedbackState(input);
  const config = options.config ?? input.feedback_config ?? input.feedbackConfig;
  const problem = checkLangSmithFeedbackConfig(state, config);
  if (problem) throw FeedloopError.from(problem);
  await keepKeyConfig(deps.db, auth.workspaceId, state.key, config);
  const context = await feedbackContext(deps.db, auth.workspaceId, feedbackId, runId, input.trace_id);
  if (context.stored) {
    const earlier = await readLangSmithFeedback(deps.db, auth.workspaceId, feedbackId);
    if (earlier) return earlier;
  }
  const { responseId } = context;
  const events = eventsOf(state, { responseId, runId, feedbackId, eventId: feedbackId });
  if (!context.responseExists) {
    if (auth.settings.compat.unknownTraces === 'reject') {
      throw new FeedloopError('FEEDLOOP_ERR_RESPONSE_NOT_FOUND', `run_id: no run ${JSON.stringify(runId)} in this workspace (compat.unknownTraces is "reject")`, { field: 'run_id' });
    }
    const [made] = await deps.ingest.upsertTraces(auth, [{ id: responseId }]);
    if (made?.status === 'rejected') throw FeedloopError.from(made.error);
  }
  await submitAll(deps, auth, events, options.verified);
  // Events first, then the row: a retry after a failure between the two finds its events stored as duplicates.
  const eventIds = events.map((e) => e.id as string);
  if (await insertLangSmithFeedback(deps.db, auth.workspaceId, { feedbackId, runId, responseId, state, eventIds })) {
    const now = new Date().toISOString();
    return { feedbackId, runId, responseId, state, eventIds, revision: 1, createdAt: now, modifiedAt: now, deleted: false };
  }
  // A concurrent retry stored it first: answer that one.
  const stored = await readLangSmithFeedback(deps.db, auth.workspaceId, feedbackId);
  if (!stored) throw notFound(feedbackId);
  return stored;
}

/**
 * Keeps a feedback config as its key's score config when the workspace has none of that name, as
 * LangSmith keeps a key's config from its first feedback: the key's later scores are then checked
 * and summarized against it (docs/compat.md). A config made meanwhile by another request stands.
 */
async function keepKeyConfig(db: SqlClient, workspaceId: string, key: string, config: LangSmithFeedbackConfig | null | undefined): Promise<void> {
  const input = config ? scoreConfigOfLangSmith(key, config) : undefined;
  if (!input || (await scoreConfigsFor(db, workspaceId, [key], [])).byName.has(key)) return;
  await createScoreConfig(db, workspaceId, input).catch((err: unknown) => {
    if (!(err instanceof FeedloopError && err.code === 'FEEDLOOP_ERR_SCORE_CONFIG_CONFLICT')) throw err;
  });
}

/**
 * Replaces a feedback's fields (those sent): the next revision's events are written, then the
 * previous ones retracted, so counters and scores move from the old value to the new.
 *
 * @throws FeedloopError `FEEDLOOP_ERR_FEEDBACK_NOT_FOUND` (none, or deleted).
 */
export async function updateLangSmithFeedback(deps: LangSmithFeedbackDeps, auth: AuthContext, feedbackId: string, update: LangSmithFeedbackUpdate): Promise<StoredLangSmithFeedback> {
  const current = await readLangSmithFeedback(deps.db, auth.workspaceId, feedbackId);
  if (!current || current.deleted) throw notFound(feedbackId);
  const state = updatedLangSmithFeedback(current.state, update);
  const problem = checkLangSmithFeedbackConfig(state, update.feedback_config ?? update.feedbackConfig);
  if (problem) throw FeedloopError.from(problem);
  const eventId = `${feedbackId}:r${current.revision + 1}`;
  const events = eventsOf(state, { responseId: current.responseId, runId: current.runId, feedbackId, eventId });
  await submitAll(deps, auth, events, undefined);
  const revised = await reviseLangSmithFeedback(deps.db, auth.workspaceId, feedbackId, current.revision, { state, eventIds: events.map((e) => e.id as string) });
  if (!revised) {
    // Another update or a delete came first: this one's events go, theirs stand.
    await retractAll(deps, auth, events.map((e) => e.id as string), 'LangSmith feedback changed meanwhile');
    throw new FeedloopError('FEEDLOOP_ERR_FEEDBACK_NOT_FOUND', `feedback ${JSON.stringify(feedbackId)} changed or was deleted meanwhile; read it and retry`, { field: 'feedback_id' });
  }
  await retractAll(deps, auth, current.eventIds, 'replaced by a LangSmith feedback update');
  const stored = await readLangSmithFeedback(deps.db, auth.workspaceId, feedbackId);
  if (!stored) throw notFound(feedbackId);
  return stored;
}

/**
 * Deletes a feedback: its events are retracted (kept in the log, marked; their effects reversed;
 * the audit log records it).
 *
 * @throws FeedloopError `FEEDLOOP_ERR_FEEDBACK_NOT_FOUND` (none, or deleted already).
 */
export async function deleteLangSmithFeedback(deps: LangSmithFeedbackDeps, auth: AuthContext, feedbackId: string): Promise<void> {
  const current = await readLangSmithFeedback(deps.db, auth.workspaceId, feedbackId);
  if (!current || !(await markLangSmithFeedbackDeleted(deps.db, auth.workspaceId, feedbackId))) throw notFound(feedbackId);
  await retractAll(deps, auth, current.eventIds, 'deleted in LangSmith');
}
