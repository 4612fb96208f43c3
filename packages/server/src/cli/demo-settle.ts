/**
 * Brings a freshly seeded workspace to what its dashboard pages read: every event processed, every
 * response rescored, every day rolled up, and the alert rules evaluated once on the result.
 *
 * The demo runs the rescores, rollups and alert evaluation itself, once, after processing, rather
 * than on a short schedule during it. Rolled up every 2 s while events still came in, each of the
 * 90 days was recomputed again and again, and each rollup (~100 ms of the one embedded
 * connection) made the pipeline cut its transactions to 10 ms: processing 7,958 events took 18 s
 * that way, 4.4 s alone, and all 91 rollups then 3 s. Rescores do at most 2,000 responses a run
 * and are otherwise picked up only by the next sweep (every 5 s); alert evaluation by the next
 * tick of its schedule: the demo waited 4 s after the last event for both.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { SqlClient } from '../db/sql-client.js';
import { evaluateAlertTick } from '../pipeline/alert-evaluation.js';
import { rescoreDirtyResponses } from '../pipeline/rescore.js';
import { rollupDirtyDays } from '../pipeline/rollup.js';
import { workspaceBacklog } from '../store/pipeline-pending.js';

/** How often the outbox is looked at while the pipeline processes. */
const POLL_MS = 250;

/**
 * Waits until the pipeline has processed the workspace's events, then rescores, rolls up and
 * evaluates the alert rules. The scheduled jobs may run meanwhile: each of these steps is safe
 * beside another worker doing the same (marks are deleted only at an unchanged version; an alert
 * evaluation holds the workspace's lock).
 *
 * @throws Error when the work is not done within `timeoutMs`.
 * @example
 * await settleDemo(server.services.db, workspaceId, 300_000);
 */
export async function settleDemo(db: SqlClient, workspaceId: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  const check = (what: string): void => {
    if (Date.now() > until) throw new Error(`the demo's ${what} did not finish within ${Math.round(timeoutMs / 1000)} s`);
  };
  while ((await workspaceBacklog(db, workspaceId)).pending > 0) {
    check('processing');
    await sleep(POLL_MS);
  }
  for (;;) {
    // Rescore first: the rollups read nothing it writes, but a rescore left behind is a page
    // (scores, experiments' composite metric) not yet full.
    while ((await rescoreDirtyResponses(db)) > 0) check('rescoring');
    // The rollups' arithmetic runs on this thread here (the pipeline's own rollup thread is its
    // own business); nothing else waits for the database while the demo seeds.
    while ((await rollupDirtyDays(db)).length > 0) check('rollups');
    const left = await workspaceBacklog(db, workspaceId);
    if (left.pending === 0 && left.dirty === 0 && left.scores === 0) break;
    // A day whose rollup is paced (`not_before`) or an event the sweep re-enqueued.
    check('rollups');
    await sleep(POLL_MS);
  }
  // A tick of its own (1 ms wide), so the schedule's evaluation of the current tick, if it ran
  // before the data was in, does not stand for this one. Deliveries it queues (another
  // workspace's webhooks) are sent by the sweep.
  await evaluateAlertTick(db, { intervalMs: 1 });
}
