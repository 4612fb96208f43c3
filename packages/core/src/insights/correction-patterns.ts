/**
 * The most common correction patterns: each correction is classified (SQL changes when both
 * texts are SQL, text edit kinds otherwise) and the kinds are counted, with the events behind
 * each and, for SQL, the tables the corrected queries read (the seed's "patterns by schema table").
 *
 * @module
 */
import { looksLikeSql, sqlChanges, type SqlChangeKind, type SqlGrammars } from './sql-change.js';
import { textEditKinds, type TextEditKind } from './text-edit.js';

/** How many event ids an insight lists; `count` always has the full number. */
export const EVENT_SAMPLE_SIZE = 10;
/** Tables listed per SQL pattern. */
const TABLES_LISTED = 5;

/** The events behind an insight: how many, and the first ids of them. */
export interface EventSample {
  count: number;
  sample: string[];
}

/** One correction to classify. `format` is the payload's, when the client gave one. */
export interface CorrectionText {
  eventId: string;
  original: string;
  corrected: string;
  format?: string | null;
}

/** A counted pattern. `share` is the percentage of the format's corrections showing it. */
export interface CorrectionPattern {
  format: 'sql' | 'text';
  kind: SqlChangeKind | TextEditKind;
  /** For SQL: false when the queries did not parse and the kind is a text kind. */
  parsed: boolean;
  count: number;
  share: number;
  events: EventSample;
  /** SQL only: tables of the corrected queries, most frequent first. */
  tables?: Array<{ table: string; count: number }>;
}

/**
 * Builds an {@link EventSample} from ids (the first {@link EVENT_SAMPLE_SIZE}) and a count
 * (default their number).
 *
 * @example
 * eventSample(['e1', 'e2']) // { count: 2, sample: ['e1', 'e2'] }
 */
export function eventSample(ids: readonly string[], count = ids.length): EventSample {
  return { count, sample: ids.slice(0, EVENT_SAMPLE_SIZE) };
}

/**
 * Whether a correction is SQL: its format says so, or (format not given, or `code`) both texts
 * start like SQL statements. Only SQL corrections need the grammars of {@link classifyCorrection}'s
 * second argument, so a caller with none can skip loading them (38 MB).
 *
 * @example
 * isSqlCorrection({ eventId: 'e1', original: 'SELECT 1', corrected: 'SELECT 2' }) // true
 */
export function isSqlCorrection(c: CorrectionText): boolean {
  if (c.format === 'sql') return true;
  if (c.format === 'text' || c.format === 'json') return false;
  return looksLikeSql(c.original) && looksLikeSql(c.corrected);
}

/** One correction classified: its format and the kinds it shows. */
export interface ClassifiedCorrection {
  eventId: string;
  format: 'sql' | 'text';
  /** For SQL: whether both queries parsed (else the kinds are text kinds). */
  parsed: boolean;
  kinds: Array<SqlChangeKind | TextEditKind>;
  /** SQL only: the tables the corrected query reads. */
  tables: string[];
}

/**
 * Classifies one correction: SQL changes when it is SQL, text edit kinds otherwise. An SQL
 * correction costs two parses (about 0.25 ms each for a short query): callers with many should
 * classify in slices and yield between them.
 *
 * @example
 * classifyCorrection({ eventId: 'e1', original: 'SELECT * FROM t', corrected: 'SELECT * FROM t LIMIT 5', format: 'sql' }, await loadSqlGrammars())
 * // { eventId: 'e1', format: 'sql', parsed: true, kinds: ['limit_changed'], tables: ['t'] }
 */
export function classifyCorrection(c: CorrectionText, sql: SqlGrammars): ClassifiedCorrection {
  if (!isSqlCorrection(c)) return { eventId: c.eventId, format: 'text', parsed: false, kinds: textEditKinds(c.original, c.corrected), tables: [] };
  const change = sqlChanges(c.original, c.corrected, sql);
  return { eventId: c.eventId, format: 'sql', parsed: change.parsed, kinds: change.kinds, tables: change.tables };
}

/**
 * Counts the patterns of classified corrections, most frequent first (ties: SQL before text,
 * then kind). Unchanged corrections (same text) show no kind.
 *
 * @example
 * countCorrectionPatterns([classifyCorrection({ eventId: 'e1', original: 'SELECT * FROM t', corrected: 'SELECT * FROM t LIMIT 5', format: 'sql' })])
 * // [{ format: 'sql', kind: 'limit_changed', parsed: true, count: 1, share: 100, events: { count: 1, sample: ['e1'] }, tables: [{ table: 't', count: 1 }] }]
 */
export function countCorrectionPatterns(corrections: readonly ClassifiedCorrection[]): CorrectionPattern[] {
  const groups = new Map<string, { format: 'sql' | 'text'; kind: SqlChangeKind | TextEditKind; parsed: boolean; ids: string[]; tables: Map<string, number> }>();
  const totals = { sql: 0, text: 0 };
  for (const c of corrections) {
    const { format } = c;
    totals[format]++;
    for (const kind of c.kinds) {
      const key = `${format}:${c.parsed}:${kind}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { format, kind, parsed: c.parsed, ids: [], tables: new Map() }));
      g.ids.push(c.eventId);
      for (const t of c.tables) g.tables.set(t, (g.tables.get(t) ?? 0) + 1);
    }
  }
  return [...groups.values()]
    .map((g): CorrectionPattern => ({
      format: g.format,
      kind: g.kind,
      parsed: g.parsed,
      count: g.ids.length,
      share: (100 * g.ids.length) / totals[g.format],
      events: eventSample(g.ids),
      ...(g.format === 'sql'
        ? {
            tables: [...g.tables]
              .map(([table, count]) => ({ table, count }))
              .sort((a, b) => b.count - a.count || a.table.localeCompare(b.table))
              .slice(0, TABLES_LISTED),
          }
        : {}),
    }))
    .sort((a, b) => b.count - a.count || (a.format === b.format ? 0 : a.format === 'sql' ? -1 : 1) || a.kind.localeCompare(b.kind));
}

/** SQL corrections of one schema table, agent or query type, and what they changed. */
export interface SqlCorrectionGroup {
  name: string;
  corrections: number;
  /** The kinds those corrections show, most frequent first (ties by kind). */
  kinds: Array<{ kind: SqlChangeKind | TextEditKind; count: number }>;
  events: EventSample;
}

/** Groups listed per aggregate at most. */
const GROUPS_LISTED = 20;

/**
 * Aggregates SQL corrections by the names `keysOf` gives each (its schema tables, its agent, its
 * query type): the RLHF seed's "most common correction patterns by schema table", and the same per
 * agent and query type. Most corrections first (ties by name), at most `limit` groups.
 *
 * @example
 * sqlCorrectionsBy(classified, (c) => c.tables)
 * // [{ name: 'sales', corrections: 12, kinds: [{ kind: 'filter_added', count: 9 }, …], events: { count: 12, sample: [...] } }]
 */
export function sqlCorrectionsBy(corrections: readonly ClassifiedCorrection[], keysOf: (c: ClassifiedCorrection) => readonly string[], limit = GROUPS_LISTED): SqlCorrectionGroup[] {
  const groups = new Map<string, { ids: string[]; kinds: Map<SqlChangeKind | TextEditKind, number> }>();
  for (const c of corrections) {
    if (c.format !== 'sql') continue;
    for (const name of new Set(keysOf(c))) {
      let g = groups.get(name);
      if (!g) groups.set(name, (g = { ids: [], kinds: new Map() }));
      g.ids.push(c.eventId);
      for (const kind of c.kinds) g.kinds.set(kind, (g.kinds.get(kind) ?? 0) + 1);
    }
  }
  return [...groups.entries()]
    .map(([name, g]) => ({
      name,
      corrections: g.ids.length,
      kinds: [...g.kinds].map(([kind, count]) => ({ kind, count })).sort((a, b) => b.count - a.count || a.kind.localeCompare(b.kind)),
      events: eventSample(g.ids),
    }))
    .sort((a, b) => b.corrections - a.corrections || a.name.localeCompare(b.name))
    .slice(0, limit);
}
