/**
 * One processing batch with its failures sorted out: a poison event is found by processing the
 * batch's events one at a time and set aside alone; a database that is away, or a transaction
 * that lost a deadlock, is nobody's fault and no event is set aside for it.
 */
import { storedFailure } from '../errors.js';
import { probeDatabase } from '../db/database-upkeep.js';
import type { SqlClient } from '../db/sql-client.js';
import { isTransactionConflict } from '../db/write-failure.js';
import { failPendingEvent } from '../store/feedback-signals.js';
import type { EventKey } from './pipeline-jobs.js';
import { PROCESS_EVENTS_MODULE, addReport, emptyReport, processEvents, type CounterTarget, type ProcessReport } from './process-events.js';

/** Times a batch whose transaction lost a deadlock or serialization conflict goes again whole. */
const CONFLICT_RETRIES = 3;

/** How a batch is processed, and where the effects of events processed one at a time go. */
export interface IsolatingOptions {
  counters: CounterTarget;
  stream: boolean;
  /** Applies one transaction's effects after its commit (the caller's, for the batch as a whole). */
  applyEffects(effectId: number): Promise<void>;
}

/**
 * Processes a batch; when its transaction fails, finds the poison event by processing the
 * events one at a time, and moves an event aside (`failed`, with the error) only when it fails
 * alone while the database answers. A database outage is rethrown, for the queue to retry; so is
 * a deadlock lost {@link CONFLICT_RETRIES} times over, after the batch went again whole each time.
 *
 * @example
 * const report = await processIsolating(db, keys, { counters: { kind: 'outbox' }, stream: false, applyEffects });
 */
export async function processIsolating(db: SqlClient, keys: readonly EventKey[], options: IsolatingOptions, conflicts = 0): Promise<ProcessReport> {
  const { counters, stream } = options;
  try {
    if (db.runInThread) return await db.runInThread<ProcessReport>(PROCESS_EVENTS_MODULE, 'processEventsHere', [keys, { counters: counters.kind, stream }]);
    return await processEvents(db, keys, { counters, stream });
  } catch (err) {
    // A lost deadlock is the moment's, not an event's. Split, a 1,000-event job became 1,000
    // transactions, and a lone event that lost one was set aside as failed (docs/benchmarks.md,
    // "Fifth session: production lag").
    if (isTransactionConflict(err)) {
      if (conflicts < CONFLICT_RETRIES) return processIsolating(db, keys, options, conflicts + 1);
      throw err;
    }
    await probeDatabase(db); // throws when the database itself is away
    if (keys.length === 1 && keys[0]) {
      const failed = await failPendingEvent(db, keys[0][0], keys[0][1], storedFailure(err));
      return { ...emptyReport(), claimed: failed ? 1 : 0, failed: failed ? 1 : 0 };
    }
    const total = emptyReport();
    for (const key of keys) {
      const one = await processIsolating(db, [key], options);
      if (one.effectId !== null) await options.applyEffects(one.effectId);
      addReport(total, one);
    }
    return total;
  }
}
