/**
 * A judge's answer becomes feedback through the one ingest path every event takes (issue 28):
 * score configs, consent, privacy, the writer, then the pipeline. The evaluator speaks with the
 * workspace's authority (a secret key's: only it may claim source `judge`), as the key that
 * created it did; the event names the evaluator in `metadata.evaluatorId` and votes as
 * `judge:<evaluator id>`.
 */
import type { FeedbackEvent } from '@feedloop/core';
import type { SqlClient } from '../db/sql-client.js';
import { FeedloopError } from '../errors.js';
import { findWorkspace } from '../store/workspaces.js';
import type { IngestService } from './ingest-service.js';

/** What writing a judge's event came to (emit's `SubmitOutcome`, repeated here: peers share no types). */
export type JudgeSubmitOutcome = { ok: true } | { ok: false; code: string };

/** The evaluator an event names (`metadata.evaluatorId`), for the key id the write speaks with. */
function evaluatorOf(event: FeedbackEvent): string {
  const id = event.metadata?.['evaluatorId'];
  return typeof id === 'string' ? id : 'unknown';
}

/**
 * A submitter of judge events for the evaluator dispatcher: a round's events of one workspace go
 * through `submitFeedback` together (the batch write of `POST /v1/feedback/batch`), so they share
 * a commit and a processing job, and each is accepted or refused alone. One outcome per event, in
 * order; never throws (a failure of the whole write is each event's outcome, `FEEDLOOP_ERR_UNAVAILABLE`
 * when the database is away).
 *
 * @example
 * const submit = judgeSubmitter(db, () => services.ingest);
 * await submit('ws_1', [event1, event2]) // [{ ok: true }, { ok: false, code: 'FEEDLOOP_ERR_SCORE_INVALID' }]
 */
export function judgeSubmitter(db: SqlClient, ingest: () => IngestService): (workspaceId: string, events: readonly FeedbackEvent[]) => Promise<JudgeSubmitOutcome[]> {
  return async (workspaceId, events) => {
    if (events.length === 0) return [];
    const all = (code: string): JudgeSubmitOutcome[] => events.map(() => ({ ok: false, code }));
    try {
      const workspace = await findWorkspace(db, workspaceId);
      if (!workspace) return all('FEEDLOOP_ERR_WORKSPACE_NOT_FOUND');
      const evaluators = new Set(events.map(evaluatorOf));
      const keyId = evaluators.size === 1 ? `evaluator:${evaluatorOf(events[0] as FeedbackEvent)}` : 'evaluators';
      const auth = { keyId, workspaceId, kind: 'secret' as const, settings: workspace.settings };
      const outcomes = await ingest().submitFeedback(auth, [...events], { verified: true, client: 'evaluator' });
      return events.map((_, i): JudgeSubmitOutcome => {
        const outcome = outcomes[i];
        if (!outcome) return { ok: false, code: 'FEEDLOOP_ERR_INTERNAL' };
        return outcome.status === 'rejected' ? { ok: false, code: outcome.error.code } : { ok: true };
      });
    } catch (err) {
      return all(err instanceof FeedloopError ? err.code : 'FEEDLOOP_ERR_UNAVAILABLE');
    }
  };
}
