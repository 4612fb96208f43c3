/**
 * Tells why a write failed, so a failure is answered by whoever caused it: a database that
 * cannot be reached fails every write (503, retry), while a value the database refuses fails
 * only the write that carried it (the client's fault, a 4xx). Both drivers (node-postgres and
 * PGlite) report SQL errors with the SQLSTATE in `code`; connection trouble comes as Node
 * system errors (`ECONNREFUSED`...) or as the drivers' own messages.
 */

/**
 * - `unavailable`: the database cannot take any write now (unreachable, closed, shutting down,
 *   out of connections or resources, a transaction conflict to retry). Not one item's fault.
 * - `data`: the database refused a value (SQLSTATE classes 22 data exception, 23 integrity
 *   constraint, 54 program limit exceeded): some item of the write caused it.
 * - `other`: anything else (a bug, an unexpected SQL error); it may be one item's doing.
 */
export type WriteFailure = 'unavailable' | 'data' | 'other';

/** SQLSTATE classes (first two characters) of a database that cannot take writes now. */
const UNAVAILABLE_CLASSES = new Set([
  '08', // connection exception
  '40', // transaction rollback: serialization failure, deadlock (retry)
  '53', // insufficient resources: disk full, out of memory, too many connections
  '57', // operator intervention: admin shutdown, crash shutdown, cannot connect now, query canceled
  '58', // system error: I/O error
  'XX', // internal error, data corrupted
]);

/** SQLSTATEs of a lock that could not be taken in time (class 55 otherwise means a bad state). */
const UNAVAILABLE_STATES = new Set(['55P03', '55006']);

/** SQLSTATE classes of a value the database refuses. */
const DATA_CLASSES = new Set(['22', '23', '54']);

/** The drivers' own words for a connection that is gone or was never made. */
const CONNECTION_MESSAGES = [
  /PGlite is closed/i,
  /Cannot use a pool after calling end/i,
  /Connection terminated/i,
  /Client has encountered a connection error/i,
  /Client was closed/i,
  /timeout exceeded when trying to connect/i,
  /connection timeout/i,
];

const SQLSTATE = /^[0-9A-Z]{5}$/;

/**
 * Whether a transaction lost a deadlock or a serialization conflict (SQLSTATE class 40): the
 * moment's doing, not its data's; the same transaction run again normally succeeds.
 *
 * @example
 * isTransactionConflict(Object.assign(new Error('deadlock detected'), { code: '40P01' })) // true
 */
export function isTransactionConflict(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && SQLSTATE.test(code) && code.startsWith('40');
}

/**
 * Classifies a failed write by its error.
 *
 * @example
 * classifyWriteFailure(Object.assign(new Error('unsupported Unicode escape sequence'), { code: '22P05' })) // 'data'
 * classifyWriteFailure(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })) // 'unavailable'
 * classifyWriteFailure(new TypeError('x is undefined')) // 'other'
 */
export function classifyWriteFailure(err: unknown): WriteFailure {
  const code = typeof (err as { code?: unknown } | null)?.code === 'string' ? (err as { code: string }).code : undefined;
  if (code !== undefined && SQLSTATE.test(code) && !code.startsWith('E')) {
    const cls = code.slice(0, 2);
    if (DATA_CLASSES.has(cls)) return 'data';
    if (UNAVAILABLE_CLASSES.has(cls) || UNAVAILABLE_STATES.has(code)) return 'unavailable';
    return 'other';
  }
  // Node system errors of sockets and name lookups: ECONNREFUSED, ECONNRESET, ETIMEDOUT, EPIPE...
  if (code !== undefined && /^E[A-Z_]+$/.test(code)) return 'unavailable';
  const message = err instanceof Error ? err.message : String(err);
  if (CONNECTION_MESSAGES.some((m) => m.test(message))) return 'unavailable';
  return 'other';
}
