/**
 * Issue 21: the day rollup writes a day's top-issue counts as a change set
 * (store/issue-counts-write.ts), on both stores: unchanged queries' rows are left alone, changed
 * ones replaced, gone ones deleted, and the week's rows of exactly those queries summed again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlClient } from '../src/db/sql-client.js';
import { writeIssueCounts, type IssueCount } from '../src/store/issue-counts-write.js';
import { BACKENDS, type TestDatabase } from './harness.js';

/** A Wednesday and the Thursday after it: one ISO week, starting Monday 2026-11-16. */
const DAY = '2026-11-18';
const NEXT = '2026-11-19';
const WEEK = '2026-11-16';

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`a day's issue counts written as a change set on ${backend.name}`, () => {
    let t: TestDatabase;
    let db: SqlClient;
    const counts = async (table: 'feedback_issue_counts' | 'feedback_issue_counts_weekly', ws: string, at: string) =>
      Object.fromEntries(
        (await db.query<{ query: string; negatives: number }>(
          `SELECT query, negatives FROM ${table} WHERE workspace_id = $1 AND ${table === 'feedback_issue_counts' ? 'day' : 'week'} = $2::date ORDER BY query`,
          [ws, at],
        )).map((r) => [r.query, r.negatives]),
      );
    const write = (ws: string, day: string, issues: IssueCount[]) => db.transaction((tx) => writeIssueCounts(tx, ws, day, issues));

    beforeAll(async () => {
      t = await backend.open();
      db = t.db;
    });
    afterAll(async () => {
      await t?.close();
    });

    it('writes only the queries whose count changed, deletes the queries gone, and sums their week again', async () => {
      expect(await write('ws_a', DAY, [{ query: 'churn', negatives: 2 }, { query: 'refund', negatives: 1 }, { query: 'sso', negatives: 4 }])).toEqual({ deleted: 0, inserted: 3 });
      expect(await write('ws_a', NEXT, [{ query: 'churn', negatives: 5 }])).toEqual({ deleted: 0, inserted: 1 });
      expect(await counts('feedback_issue_counts_weekly', 'ws_a', WEEK)).toEqual({ churn: 7, refund: 1, sso: 4 });
      const refundRow = `SELECT xmin::text AS version FROM feedback_issue_counts WHERE workspace_id = 'ws_a' AND day = '${DAY}'::date AND query = 'refund'`;
      const [before] = await db.query<{ version: string }>(refundRow);
      // A weekly row that no longer matches its days: a write that summed the whole week again would mend it.
      await db.query(`UPDATE feedback_issue_counts_weekly SET negatives = 98 WHERE workspace_id = 'ws_a' AND query = 'refund'`);

      const issues = [{ query: 'churn', negatives: 3 }, { query: 'refund', negatives: 1 }, { query: 'export', negatives: 1 }];
      expect(await write('ws_a', DAY, issues)).toEqual({ deleted: 2, inserted: 2 });
      expect(await counts('feedback_issue_counts', 'ws_a', DAY)).toEqual({ churn: 3, export: 1, refund: 1 });
      expect(await db.query(refundRow)).toEqual([before]);
      // churn: 3 + 5 from the next day; sso: gone from its only day; refund: not summed again.
      expect(await counts('feedback_issue_counts_weekly', 'ws_a', WEEK)).toEqual({ churn: 8, export: 1, refund: 98 });
      expect(await write('ws_a', DAY, issues)).toEqual({ deleted: 0, inserted: 0 });
    });

    it('empties a day with no issues and touches no other day or workspace', async () => {
      await write('ws_b', DAY, [{ query: 'churn', negatives: 1 }]);
      await write('ws_b', NEXT, [{ query: 'churn', negatives: 2 }]);
      await write('ws_c', DAY, [{ query: 'churn', negatives: 4 }]);
      expect(await write('ws_b', DAY, [])).toEqual({ deleted: 1, inserted: 0 });
      expect(await counts('feedback_issue_counts', 'ws_b', DAY)).toEqual({});
      expect(await counts('feedback_issue_counts', 'ws_b', NEXT)).toEqual({ churn: 2 });
      expect(await counts('feedback_issue_counts_weekly', 'ws_b', WEEK)).toEqual({ churn: 2 });
      expect(await counts('feedback_issue_counts_weekly', 'ws_c', WEEK)).toEqual({ churn: 4 });
    });
  });
}
