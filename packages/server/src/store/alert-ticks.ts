/**
 * `alert_ticks`: one row per evaluation tick, claimed by the first evaluator to reach it, so many
 * workers evaluate each tick once.
 */
import type { SqlExecutor } from '../db/sql-client.js';

/**
 * Claims `tick` (ms since the epoch, a multiple of the interval) and forgets ticks older than
 * `keptMs` before it.
 *
 * @returns whether this caller claimed it (false: another evaluator did).
 * @example
 * if (await claimAlertTick(db, 1795760490000, 86_400_000)) await evaluate();
 */
export async function claimAlertTick(db: SqlExecutor, tick: number, keptMs: number): Promise<boolean> {
  const claimed = await db.query('INSERT INTO alert_ticks (tick) VALUES ($1) ON CONFLICT (tick) DO NOTHING RETURNING tick', [tick]);
  if (claimed.length === 0) return false;
  await db.query('DELETE FROM alert_ticks WHERE tick < $1', [tick - keptMs]);
  return true;
}
