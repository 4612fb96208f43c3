/**
 * store/correction-class.ts: the texts are cut where Postgres' left() cuts them (so a stored
 * classification is of the texts the insights read returns), and the report's cache of
 * classifications by text classifies each distinct text once, keeps at most its capacity and is
 * the classification core computes.
 */
import { classifyCorrection, loadSqlGrammars } from '@feedloop/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORRECTION_TEXT_CHARS, CorrectionClassCache, cutText } from '../src/store/correction-class.js';
import { BACKENDS, type TestDatabase } from './harness.js';

const TEXTS = ['', 'plain', 'a😀b😀c', '😀'.repeat(12_000), `${'x'.repeat(9_999)}😀tail`, `${'😀'.repeat(5_000)}${'y'.repeat(6_000)}`, 'é'.repeat(10_001)];

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`cutText on ${backend.name}`, () => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await backend.open();
    });
    afterAll(async () => {
      await db?.close();
    });

    it.each(TEXTS.map((t) => [t.length, t]))('cuts a text of %i UTF-16 units where left() does', async (_, text) => {
      for (const chars of [1, 2, 3, CORRECTION_TEXT_CHARS]) {
        const [row] = await db.db.query<{ cut: string }>('SELECT left($1::text, $2) AS cut', [text, chars]);
        expect(cutText(text, chars)).toBe(row?.cut);
      }
    });
  });
}

describe('CorrectionClassCache', () => {
  const sqlFix = { original: 'SELECT * FROM sales', corrected: "SELECT * FROM sales WHERE region = 'EU'", format: 'sql' };
  const textFix = { original: 'Revenue grew by 12 % in Q3.', corrected: 'Revenue grew by 9 % in Q3.', format: null };

  it('gives core\'s classification, for each event, in order', async () => {
    const cache = new CorrectionClassCache();
    const sql = await loadSqlGrammars();
    const items = [{ eventId: 'a', ...sqlFix }, { eventId: 'b', ...textFix }, { eventId: 'c', ...sqlFix }];
    expect(await cache.classify(items)).toEqual(items.map((c) => classifyCorrection(c, sql)));
  });

  it('keeps one entry per distinct texts and format, the most recently used at most its capacity', async () => {
    const cache = new CorrectionClassCache(2);
    await cache.classify([{ eventId: 'a', ...sqlFix }, { eventId: 'b', ...sqlFix }]);
    expect(cache.size).toBe(1);
    // The same texts of another format are another classification.
    const [asText] = await cache.classify([{ eventId: 'c', ...sqlFix, format: 'text' }]);
    expect(asText).toMatchObject({ format: 'text', parsed: false });
    expect(cache.size).toBe(2);
    // Used again, the SQL one is the most recent: the text one leaves when a third comes.
    await cache.classify([{ eventId: 'd', ...sqlFix }]);
    await cache.classify([{ eventId: 'e', ...textFix }]);
    expect(cache.size).toBe(2);
    expect(cache.has({ eventId: 'x', ...sqlFix })).toBe(true);
    expect(cache.has({ eventId: 'x', ...textFix })).toBe(true);
    expect(cache.has({ eventId: 'x', ...sqlFix, format: 'text' })).toBe(false);
  });

  it('never takes two pairs of texts with the same concatenation for one', async () => {
    const cache = new CorrectionClassCache();
    await cache.classify([{ eventId: 'e', original: 'ab', corrected: 'c', format: null }, { eventId: 'f', original: 'a', corrected: 'bc', format: null }]);
    expect(cache.size).toBe(2);
  });
});
