/**
 * The sweep gives the database planner statistics as autovacuum would: PGlite has no autovacuum,
 * and without statistics the planner looked responses up by key through the export index (a skip
 * scan over every prompt of the workspace) instead of the primary key; Postgres's autovacuum comes
 * round up to a minute late (its own is switched off for the table here, so what is tested is the
 * sweep's).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeGrownTables } from '../src/db/analyze-grown-tables.js';
import { vacuumChurningTables } from '../src/db/database-upkeep.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';

const RESPONSES = 2_000;
const LOOKUP = `EXPLAIN SELECT r.created_at FROM json_to_recordset($1::json) AS x(ws text, rid text)
  CROSS JOIN LATERAL (SELECT r.created_at FROM responses r WHERE r.workspace_id = x.ws AND r.id = x.rid OFFSET 0) AS r`;

describe.each(BACKENDS)('planner statistics on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(await backend.open());
    if (backend.name !== 'pglite') await t.db.exec('ALTER TABLE responses SET (autovacuum_enabled = false)');
    for (let i = 0; i < RESPONSES; i += 500) {
      const responses = Array.from({ length: 500 }, (_, k) => ({ id: `r-${i + k}`, query: `question number ${i + k}?`, answer: 'an answer' }));
      const res = await t.app.inject({ method: 'POST', url: '/v1/responses/batch', headers: t.auth, payload: { responses } });
      expect(res.statusCode).toBeLessThan(300);
    }
  });
  afterAll(() => t.close());

  const plan = async (): Promise<string> => {
    const rows = await t.db.query<Record<string, string>>(LOOKUP, [JSON.stringify([{ ws: t.workspaceId, rid: 'r-7' }])]);
    return rows.map((r) => Object.values(r)[0]).join('\n');
  };

  const rowsEstimate = async (): Promise<number | undefined> =>
    (await t.db.query<{ n: number }>(`SELECT reltuples::int AS n FROM pg_class WHERE oid = 'responses'::regclass`))[0]?.n;

  it('the sweep analyzes a table that has no statistics, once, and a response is then found by its primary key', async () => {
    expect(await rowsEstimate()).toBe(-1);
    await t.services.pipeline.sweep();
    expect(await rowsEstimate()).toBe(RESPONSES);
    expect(await plan()).toContain('responses_pkey');
    // Nothing grew since: nothing to do.
    expect(await analyzeGrownTables(t.db)).not.toContain('responses');
  });

  // PGlite has no autovacuum, so the sweep takes its place; on Postgres autovacuum keeps the
  // statistics it took (re-analyzing beside it slowed a new install's first drain by ~15 %).
  it(`${backend.name === 'pglite' ? 'analyzes' : 'leaves to autovacuum'} a table that doubled since`, async () => {
    for (let i = 0; i < 3_000; i += 1_000) {
      const more = Array.from({ length: 1_000 }, (_, k) => ({ id: `s-${i + k}`, query: `another question ${i + k}?`, answer: 'an answer' }));
      expect((await t.app.inject({ method: 'POST', url: '/v1/responses/batch', headers: t.auth, payload: { responses: more } })).statusCode).toBeLessThan(300);
    }
    await t.services.pipeline.sweep();
    expect(await rowsEstimate()).toBe(backend.name === 'pglite' ? RESPONSES + 3_000 : RESPONSES);
  });

  it('lets a table grow by less than its size before analyzing it again', async () => {
    const few = Array.from({ length: 1_000 }, (_, k) => ({ id: `f-${k}`, query: `one more question ${k}?`, answer: 'an answer' }));
    expect((await t.app.inject({ method: 'POST', url: '/v1/responses/batch', headers: t.auth, payload: { responses: few } })).statusCode).toBeLessThan(300);
    expect(await analyzeGrownTables(t.db)).not.toContain('responses');
  });
});

describe.each(BACKENDS.filter((b) => b.name === 'pglite'))('outbox vacuums on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(await backend.open());
  });
  afterAll(() => t.close());

  it('vacuums the churning tables at most every 30 s', async () => {
    const at = performance.now() + 60_000;
    expect(await vacuumChurningTables(t.db, at)).toBe(true);
    expect(await vacuumChurningTables(t.db, at + 29_000)).toBe(false);
    expect(await vacuumChurningTables(t.db, at + 31_000)).toBe(true);
  });
});
