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

/**
 * A submitter of judge events for the evaluator dispatcher.
 *
 * @example
 * const submit = judgeSubmitter(db, () => services.ingest);
 * await submit('ws_1', event) // { ok: true }
 */
export function judgeSubmitter(db: SqlClient, ingest: () => IngestService): (workspaceId: string, event: FeedbackEvent) => Promise<JudgeSubmitOutcome> {
  return async (workspaceId, event) => {
    try {
      const workspace = await findWorkspace(db, workspaceId);
      if (!workspace) return { ok: false, code: 'FEEDLOOP_ERR_WORKSPACE_NOT_FOUND' };
      const evaluatorId = typeof event.metadata?.['evaluatorId'] === 'string' ? event.metadata['evaluatorId'] : 'unknown';
      const auth = { keyId: `evaluator:${evaluatorId}`, workspaceId, kind: 'secret' as const, settings: workspace.settings };
      const [outcome] = await ingest().submitFeedback(auth, [event], { verified: true, client: 'evaluator' });
      if (!outcome) return { ok: false, code: 'FEEDLOOP_ERR_INTERNAL' };
      return outcome.status === 'rejected' ? { ok: false, code: outcome.error.code } : { ok: true };
    } catch (err) {
      return { ok: false, code: err instanceof FeedloopError ? err.code : 'FEEDLOOP_ERR_UNAVAILABLE' };
    }
  };
}
