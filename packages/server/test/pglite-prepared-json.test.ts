/**
 * Prepared statements on PGlite send a long `json` parameter as its UTF-8 bytes (binary format,
 * db/pglite-prepared.ts): the document Postgres receives must be the one sent, character for
 * character, whatever its script, and a short one (sent as text) alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite } from '../src/db/pglite-client.js';
import type { SqlClient } from '../src/db/sql-client.js';

describe('PGlite prepared json parameters', () => {
  let db: SqlClient;

  beforeAll(async () => {
    db = await openPglite(undefined);
  });
  afterAll(async () => {
    await db.close();
  });

  const texts = ['plain ascii', 'é ü ß ñ', '中文的回答', 'emoji 😀👍🏽', 'quote " backslash \\ tab \t newline \n'];

  for (const size of [10, 3_000]) {
    it(`round-trips a ${size}-row document through json_to_recordset`, async () => {
      const rows = Array.from({ length: size }, (_, i) => ({ i, text: texts[i % texts.length] }));
      const doc = JSON.stringify(rows);
      const [out] = await db.query<{ n: number; back: string }>(
        `SELECT count(*)::int AS n, json_agg(json_build_object('i', x.i, 'text', x.text) ORDER BY x.i)::text AS back
           FROM json_to_recordset($1::json) AS x(i int, text text)`,
        [doc],
        { prepare: true },
      );
      expect(out?.n).toBe(size);
      expect(JSON.parse(out?.back ?? 'null')).toEqual(rows);
    });
  }

  it('rejects a malformed long document with the json error, as a short one', async () => {
    const bad = `[${'{"i": 1},'.repeat(400)}`;
    await expect(db.query('SELECT count(*) FROM json_array_elements($1::json)', [bad], { prepare: true })).rejects.toThrow(/json/i);
    await expect(db.query('SELECT count(*) FROM json_array_elements($1::json)', ['[1,'], { prepare: true })).rejects.toThrow(/json/i);
  });
});
