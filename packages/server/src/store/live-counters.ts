/**
 * `live_counters`, the embedded profile's live counters: today's numbers per workspace without a
 * scan, added to inside the processing transaction (exactly once for free, and kept across
 * restarts). Production keeps them in Redis instead (pipeline/live-counter-store.ts), behind the
 * same {@link LiveCounterReader}.
 */
import type { CounterDeltas } from '@feedloop/core';
import type { SqlExecutor } from '../db/sql-client.js';

/** Reads a workspace's counters of a day: field → count. */
export interface LiveCounterReader {
  read(workspaceId: string, day: string): Promise<Record<string, number>>;
}

/** The embedded store: a table written in the processing transaction. */
export class SqlLiveCounters implements LiveCounterReader {
  constructor(private readonly db: SqlExecutor) {}

  /** Adds deltas inside the caller's transaction (rows sorted, so concurrent adds never deadlock). */
  async add(tx: SqlExecutor, deltas: CounterDeltas): Promise<void> {
    const rows = flatten(deltas).sort((a, b) => (a.ws + a.day + a.field < b.ws + b.day + b.field ? -1 : 1));
    if (rows.length === 0) return;
    await tx.query(
      `INSERT INTO live_counters AS c (workspace_id, day, field, value)
       SELECT ws, day::date, field, n FROM json_to_recordset($1::json) AS x(ws text, day text, field text, n bigint)
       ON CONFLICT (workspace_id, day, field) DO UPDATE SET value = c.value + EXCLUDED.value`,
      [JSON.stringify(rows)],
    );
  }

  async read(workspaceId: string, day: string): Promise<Record<string, number>> {
    const rows = await this.db.query<{ field: string; value: number }>(
      'SELECT field, value FROM live_counters WHERE workspace_id = $1 AND day = $2::date',
      [workspaceId, day],
      // Polled by dashboards every few seconds, by the keep-up benchmark every 10 ms: parsed once.
      { prepare: true },
    );
    return Object.fromEntries(rows.map((r) => [r.field, Number(r.value)]));
  }
}

function flatten(deltas: CounterDeltas): Array<{ ws: string; day: string; field: string; n: number }> {
  const rows: Array<{ ws: string; day: string; field: string; n: number }> = [];
  for (const [ws, days] of Object.entries(deltas))
    for (const [day, fields] of Object.entries(days)) for (const [field, n] of Object.entries(fields)) rows.push({ ws, day, field, n });
  return rows;
}
