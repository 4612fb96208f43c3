import { describe, expect, it } from 'vitest';
import { loadSqlGrammars, looksLikeSql, sqlChanges } from '../src/insights/sql-change.js';

const SQL = await loadSqlGrammars();

/**
 * Realistic text-to-SQL corrections: the generated query, the query the analyst ran instead,
 * and what a reader would say changed.
 */
describe('sqlChanges', () => {
  it.each([
    ['seed example: a filter added', 'SELECT * FROM sales', "SELECT * FROM sales WHERE region = 'EU'", ['filter_added']],
    ['a filter value corrected', "SELECT id FROM orders WHERE status = 'paid'", "SELECT id FROM orders WHERE status = 'shipped'", ['filter_changed']],
    [
      'one of two filters dropped',
      "SELECT id FROM orders WHERE status = 'paid' AND total > 10",
      "SELECT id FROM orders WHERE status = 'paid'",
      ['filter_removed'],
    ],
    ['another column', 'SELECT name FROM users', 'SELECT email FROM users', ['column_changed']],
    ['count distinct instead of count', 'SELECT count(*) FROM users', 'SELECT count(DISTINCT id) FROM users', ['aggregation_changed']],
    ['sum instead of avg', 'SELECT region, avg(total) FROM sales GROUP BY region', 'SELECT region, sum(total) FROM sales GROUP BY region', ['aggregation_changed']],
    [
      'a join added for a column',
      'SELECT o.id FROM orders o',
      'SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id',
      ['join_added', 'column_changed'],
    ],
    [
      'the join key and type fixed',
      'SELECT o.id FROM orders o JOIN customers c ON c.id = o.id',
      'SELECT o.id FROM orders o LEFT JOIN customers c ON c.id = o.customer_id',
      ['join_changed'],
    ],
    ['a join dropped', 'SELECT o.id FROM orders o JOIN customers c ON c.id = o.customer_id', 'SELECT o.id FROM orders o', ['join_removed']],
    ['group by extended', 'SELECT region, sum(total) FROM sales GROUP BY region', 'SELECT region, sum(total) FROM sales GROUP BY region, year', ['group_by_changed']],
    ['order direction', 'SELECT * FROM t ORDER BY created_at', 'SELECT * FROM t ORDER BY created_at DESC', ['order_by_changed']],
    ['limit', 'SELECT * FROM t LIMIT 10', 'SELECT * FROM t LIMIT 100', ['limit_changed']],
    ['another table', 'SELECT * FROM sales', 'SELECT * FROM sales_2024', ['table_changed']],
    ['distinct dropped', 'SELECT DISTINCT city FROM customers', 'SELECT city FROM customers', ['distinct_changed']],
    ['having threshold', 'SELECT a, count(*) FROM t GROUP BY a HAVING count(*) > 1', 'SELECT a, count(*) FROM t GROUP BY a HAVING count(*) > 5', ['having_changed']],
    ['case and layout only', 'select * from sales where id = 1', 'SELECT *\n  FROM sales\n WHERE id = 1', ['formatting_only']],
    ['an update became a select', 'UPDATE t SET a = 1', 'SELECT a FROM t', ['statement_changed']],
  ])('%s', (_name, original, corrected, kinds) => {
    const change = sqlChanges(original, corrected, SQL);
    expect(change.parsed).toBe(true);
    expect(change.kinds).toEqual(kinds);
  });

  it('Postgres quirks: casts, ILIKE, intervals, double-quoted identifiers', () => {
    const change = sqlChanges(
      `SELECT created_at::date AS day, count(*) FROM "Events" GROUP BY 1`,
      `SELECT created_at::date AS day, count(*) FROM "Events" WHERE name ILIKE '%signup%' AND created_at > now() - interval '7 days' GROUP BY 1`, SQL
    );
    expect(change).toMatchObject({ parsed: true, dialect: 'postgresql', kinds: ['filter_added'], tables: ['events'] });
  });

  it('MySQL quirks: backticks and LIMIT offset, count', () => {
    const change = sqlChanges('SELECT `name` FROM `users` LIMIT 5, 10', 'SELECT `name` FROM `users` WHERE `age` > 30 LIMIT 10, 10', SQL);
    expect(change).toMatchObject({ parsed: true, dialect: 'mysql', kinds: ['filter_added', 'limit_changed'], tables: ['users'] });
  });

  it('names the tables of the corrected query, joins included', () => {
    expect(sqlChanges('SELECT 1 FROM a', 'SELECT 1 FROM a JOIN b ON a.id = b.a_id', SQL).tables).toEqual(['a', 'b']);
  });

  it('falls back to text kinds when a query does not parse', () => {
    const change = sqlChanges('SELEC * FORM sales', 'SELECT * FROM sales', SQL);
    expect(change.parsed).toBe(false);
    expect(change.dialect).toBeNull();
    expect(change.kinds.length).toBeGreaterThan(0);
  });

  it('looksLikeSql gates on the leading keyword', () => {
    expect(looksLikeSql('  with x as (select 1) select * from x')).toBe(true);
    expect(looksLikeSql('(SELECT 1)')).toBe(true);
    expect(looksLikeSql('Selecting the right answer is hard')).toBe(false);
  });
});
