/**
 * What a text-to-SQL correction changed: both queries are parsed with node-sql-parser and
 * compared clause by clause, so "the user added a filter" is told apart from "the user picked
 * another column" or "the user fixed the join". Queries the parser cannot read (another dialect,
 * a fragment, prose) fall back to the text classifier's kinds.
 *
 * Only the Postgres and MySQL grammars are loaded (not the package's all-dialects bundle, eight
 * times their size): Postgres is tried first, then MySQL, and the first grammar that reads both
 * queries is used, so backticks and `LIMIT 5, 10` parse as MySQL and `::` casts as Postgres.
 *
 * @module
 */
import { textEditKinds, type TextEditKind } from './text-edit.js';

/** The clause-level changes a parsed SQL correction can show. */
export const SQL_CHANGE_KINDS = [
  'statement_changed',
  'table_changed',
  'join_added',
  'join_removed',
  'join_changed',
  'filter_added',
  'filter_removed',
  'filter_changed',
  'column_changed',
  'aggregation_changed',
  'distinct_changed',
  'group_by_changed',
  'having_changed',
  'order_by_changed',
  'limit_changed',
  'formatting_only',
] as const;

/** One of {@link SQL_CHANGE_KINDS}. */
export type SqlChangeKind = (typeof SQL_CHANGE_KINDS)[number];

/** The outcome of comparing an SQL correction. */
export interface SqlChange {
  /** Whether both queries parsed; when false, `kinds` are text kinds. */
  parsed: boolean;
  /** The grammar that read both queries, when they parsed. */
  dialect: 'postgresql' | 'mysql' | null;
  kinds: Array<SqlChangeKind | TextEditKind>;
  /** Tables the corrected query reads (lower case, without schema), for "patterns by table". */
  tables: string[];
}

interface ParserLike {
  astify(sql: string, opt?: { database?: string }): unknown;
  exprToSQL(expr: unknown, opt?: { database?: string }): string;
}

/** The SQL grammars a correction is read with, tried in order (see {@link loadSqlGrammars}). */
export type SqlGrammars = ReadonlyArray<{ dialect: 'postgresql' | 'mysql'; parser: ParserLike }>;

let grammars: Promise<SqlGrammars> | undefined;

/**
 * Loads node-sql-parser's Postgres and MySQL grammars, once. Loaded on demand rather than with
 * the module: they hold 38 MB of memory, which every process importing core paid at start (the
 * embedded profile's idle RSS went from 203 to 272 MB) though only insights read SQL.
 *
 * @example
 * const sql = await loadSqlGrammars(); sqlChanges('SELECT 1', 'SELECT 2', sql);
 */
export function loadSqlGrammars(): Promise<SqlGrammars> {
  grammars ??= Promise.all([import('node-sql-parser/build/postgresql.js'), import('node-sql-parser/build/mysql.js')]).then(([postgresql, mysql]) => [
    { dialect: 'postgresql' as const, parser: new postgresql.default.Parser() as unknown as ParserLike },
    { dialect: 'mysql' as const, parser: new mysql.default.Parser() as unknown as ParserLike },
  ]);
  return grammars;
}

/** Loose view of the parser's AST: only the fields compared here. */
type Node = Record<string, unknown>;
interface FromItem {
  db?: string | null;
  table?: string | null;
  as?: string | null;
  join?: string;
  on?: unknown;
  using?: unknown;
  expr?: unknown;
}

/** A cheap gate before parsing: text that does not start like a statement is not SQL. */
const LOOKS_LIKE_SQL = /^\s*(\(\s*)*(select|with|insert|update|delete)\b/i;

/**
 * Whether a text reads like an SQL statement (starts with SELECT, WITH, INSERT, UPDATE or DELETE).
 *
 * @example
 * looksLikeSql('SELECT 1') // true
 */
export function looksLikeSql(text: string): boolean {
  return LOOKS_LIKE_SQL.test(text);
}

function parseWith(parser: ParserLike, dialect: string, sql: string): Node | undefined {
  try {
    const ast = parser.astify(sql, { database: dialect });
    const statements = (Array.isArray(ast) ? ast : [ast]).filter((s): s is Node => typeof s === 'object' && s !== null);
    // One statement only: a script of several is compared as text.
    return statements.length === 1 ? statements[0] : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The tables an SQL statement reads or writes (lower case, without schema; joined tables too),
 * with the first grammar that reads it; `[]` for text that is not one SQL statement. The RLHF
 * seed's `schema_tables` of a learning signal.
 *
 * @example
 * sqlTables('SELECT * FROM sales s JOIN regions r ON r.id = s.region_id', await loadSqlGrammars()) // ['sales', 'regions']
 */
export function sqlTables(text: string, sql: SqlGrammars): string[] {
  if (!looksLikeSql(text)) return [];
  for (const { dialect, parser } of sql) {
    const statement = parseWith(parser, dialect, text);
    if (statement) return tablesOf(statement);
  }
  return [];
}

/**
 * Names what a correction changed between two SQL queries.
 *
 * @example
 * sqlChanges('SELECT * FROM sales', "SELECT * FROM sales WHERE region = 'EU'", await loadSqlGrammars())
 * // { parsed: true, dialect: 'postgresql', kinds: ['filter_added'], tables: ['sales'] }
 */
export function sqlChanges(original: string, corrected: string, sql: SqlGrammars): SqlChange {
  for (const { dialect, parser } of sql) {
    const before = parseWith(parser, dialect, original);
    if (!before) continue;
    const after = parseWith(parser, dialect, corrected);
    if (!after) continue;
    const sql = (e: unknown): string => (e === null || e === undefined ? '' : safeSql(parser, e, dialect));
    const kinds = compareStatements(before, after, sql);
    return { parsed: true, dialect, kinds: kinds.length > 0 ? kinds : original === corrected ? [] : ['formatting_only'], tables: tablesOf(after) };
  }
  return { parsed: false, dialect: null, kinds: textEditKinds(original, corrected), tables: [] };
}

function safeSql(parser: ParserLike, expr: unknown, dialect: string): string {
  try {
    return parser.exprToSQL(expr, { database: dialect }).toLowerCase();
  } catch {
    // A node exprToSQL does not render (rare): its JSON still compares equal when unchanged.
    return JSON.stringify(expr);
  }
}

function compareStatements(a: Node, b: Node, sql: (e: unknown) => string): SqlChangeKind[] {
  if (a.type !== b.type) return ['statement_changed'];
  const kinds: SqlChangeKind[] = [];
  const add = (kind: SqlChangeKind, changed: boolean) => {
    if (changed && !kinds.includes(kind)) kinds.push(kind);
  };
  compareFrom(fromItems(a.type === 'update' ? a.table : a.from), fromItems(b.type === 'update' ? b.table : b.from), sql, add);
  compareFilters(conjuncts(a.where, sql), conjuncts(b.where, sql), add);
  if (a.type === 'select') {
    const [colsA, aggA] = selectList(a.columns, sql);
    const [colsB, aggB] = selectList(b.columns, sql);
    add('column_changed', !sameSet(colsA, colsB));
    const havingA = sql(a.having);
    const havingB = sql(b.having);
    add('aggregation_changed', !sameSet(aggA, aggB));
    add('distinct_changed', distinctOf(a) !== distinctOf(b));
    add('group_by_changed', !sameList(groupBy(a.groupby, sql), groupBy(b.groupby, sql)));
    add('having_changed', havingA !== havingB);
    add('order_by_changed', !sameList(orderBy(a.orderby, sql), orderBy(b.orderby, sql)));
    add('limit_changed', limitOf(a.limit) !== limitOf(b.limit));
  } else if (a.type === 'update' || a.type === 'insert') {
    add('column_changed', JSON.stringify(a.set ?? a.columns ?? null) !== JSON.stringify(b.set ?? b.columns ?? null));
  }
  return kinds;
}

function fromItems(from: unknown): FromItem[] {
  return Array.isArray(from) ? (from.filter((f) => typeof f === 'object' && f !== null) as FromItem[]) : [];
}

function tableName(item: FromItem): string {
  return typeof item.table === 'string' ? item.table.toLowerCase() : '(subquery)';
}

function compareFrom(a: FromItem[], b: FromItem[], sql: (e: unknown) => string, add: (kind: SqlChangeKind, changed: boolean) => void): void {
  const base = (items: FromItem[]) => items.filter((i) => !i.join).map(tableName);
  add('table_changed', !sameSet(base(a), base(b)));
  // Joins are matched by table: a table joined on both sides with another ON, USING or join type
  // is a changed join; one on one side only is an added or removed join.
  const joins = (items: FromItem[]) =>
    new Map(items.filter((i) => i.join).map((i) => [tableName(i), `${i.join} ${sql(i.on)} ${JSON.stringify(i.using ?? null)}`.toLowerCase()]));
  const ja = joins(a);
  const jb = joins(b);
  for (const [table, how] of jb) {
    if (!ja.has(table)) add('join_added', true);
    else if (ja.get(table) !== how) add('join_changed', true);
  }
  for (const table of ja.keys()) if (!jb.has(table)) add('join_removed', true);
}

/** The top-level AND terms of a WHERE clause, each as normalised SQL with the columns it names. */
function conjuncts(where: unknown, sql: (e: unknown) => string): Array<{ text: string; columns: string[] }> {
  if (where === null || where === undefined) return [];
  const node = where as Node;
  if (node.type === 'binary_expr' && String(node.operator).toUpperCase() === 'AND') {
    return [...conjuncts(node.left, sql), ...conjuncts(node.right, sql)];
  }
  return [{ text: sql(where), columns: columnsIn(where) }];
}

/** Column names referenced anywhere under a node (lower case, without table qualifier). */
function columnsIn(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) {
    for (const n of node) columnsIn(n, out);
  } else if (typeof node === 'object' && node !== null) {
    const n = node as Node;
    if (n.type === 'column_ref') {
      const name = columnName(n.column);
      if (name !== undefined && !out.includes(name)) out.push(name);
      return out;
    }
    for (const v of Object.values(n)) columnsIn(v, out);
  }
  return out;
}

function columnName(column: unknown): string | undefined {
  if (typeof column === 'string') return column.toLowerCase();
  const value = (column as { expr?: { value?: unknown } } | null)?.expr?.value;
  return typeof value === 'string' ? value.toLowerCase() : undefined;
}

/**
 * Filters: a term only on one side is added or removed, except that a removed and an added term
 * naming a common column pair up as one changed filter (`status = 'paid'` → `status = 'shipped'`).
 */
function compareFilters(
  a: Array<{ text: string; columns: string[] }>,
  b: Array<{ text: string; columns: string[] }>,
  add: (kind: SqlChangeKind, changed: boolean) => void,
): void {
  const inA = new Set(a.map((t) => t.text));
  const inB = new Set(b.map((t) => t.text));
  const removed = a.filter((t) => !inB.has(t.text));
  const added = b.filter((t) => !inA.has(t.text));
  const pairedAdds = new Set<number>();
  let unpairedRemoved = 0;
  for (const r of removed) {
    const i = added.findIndex((t, k) => !pairedAdds.has(k) && t.columns.some((c) => r.columns.includes(c)));
    if (i >= 0) {
      pairedAdds.add(i);
      add('filter_changed', true);
    } else {
      unpairedRemoved++;
    }
  }
  add('filter_removed', unpairedRemoved > 0);
  add('filter_added', added.length > pairedAdds.size);
}

/** The select list split into plain expressions and aggregate calls (aliases ignored). */
function selectList(columns: unknown, sql: (e: unknown) => string): [string[], string[]] {
  if (!Array.isArray(columns)) return [[String(columns ?? '*')], []];
  const plain: string[] = [];
  const aggregates: string[] = [];
  for (const c of columns as Node[]) {
    const expr = (c?.expr ?? c) as Node;
    (containsAggregate(expr) ? aggregates : plain).push(sql(expr));
  }
  return [plain, aggregates];
}

function containsAggregate(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(containsAggregate);
  if (typeof node !== 'object' || node === null) return false;
  const n = node as Node;
  if (n.type === 'aggr_func') return true;
  // A subquery's aggregates are its own.
  if (n.type === 'select' || n.ast !== undefined) return false;
  return Object.values(n).some(containsAggregate);
}

function distinctOf(s: Node): string {
  const d = s.distinct as { type?: unknown } | string | null | undefined;
  return String(typeof d === 'object' && d !== null ? (d.type ?? '') : (d ?? '')).toUpperCase();
}

function groupBy(groupby: unknown, sql: (e: unknown) => string): string[] {
  // Postgres' grammar wraps the list ({ columns }); MySQL's too, older versions give a bare array.
  const columns = Array.isArray(groupby) ? groupby : (groupby as { columns?: unknown } | null)?.columns;
  return Array.isArray(columns) ? columns.map(sql) : [];
}

function orderBy(orderby: unknown, sql: (e: unknown) => string): string[] {
  return Array.isArray(orderby) ? (orderby as Node[]).map((o) => `${sql(o.expr)} ${String(o.type ?? 'ASC').toUpperCase()}`) : [];
}

function limitOf(limit: unknown): string {
  const values = (limit as { value?: Array<{ value?: unknown }> } | null)?.value;
  return Array.isArray(values) ? values.map((v) => String(v.value)).join(',') : '';
}

function tablesOf(s: Node): string[] {
  const items = fromItems(s.type === 'update' ? s.table : s.type === 'insert' ? s.table : s.from);
  return [...new Set(items.map(tableName).filter((t) => t !== '(subquery)'))];
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
