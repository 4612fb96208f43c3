/**
 * Why a webhook delivery attempt failed, as a short code for the delivery log. The log is read
 * by whoever holds the workspace's key, so it says what kind of failure it was and never the
 * connection error's own text, which names internal addresses and ports
 * (`connect ECONNREFUSED 10.0.3.7:5432`) and would make the log a port scanner's output.
 */
import type { DeliveryFailureReason } from '../store/webhooks.js';
import { FORBIDDEN_ADDRESS_CODE } from './safe-address.js';

const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA', 'ENODATA', 'ESERVFAIL']);
const UNREACHABLE_CODES = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN']);
/** OpenSSL's certificate verification codes, as Node reports them. */
const TLS_CERT_CODE = /^(CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|HOSTNAME_MISMATCH|ERR_TLS_|ERR_SSL_)/;
/** How deep into `cause` (and an AggregateError's `errors`) to look for a code. */
const MAX_CAUSE_DEPTH = 5;

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/** The reason of one error, if its own `name` or `code` tells it. */
function reasonOf(e: ErrorLike): DeliveryFailureReason | undefined {
  if (e.name === 'TimeoutError') return 'timeout';
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (code === undefined) return undefined;
  if (code === FORBIDDEN_ADDRESS_CODE) return 'forbidden_address';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (TIMEOUT_CODES.has(code)) return 'timeout';
  if (RESET_CODES.has(code)) return 'connection_reset';
  if (DNS_CODES.has(code)) return 'dns_failure';
  if (UNREACHABLE_CODES.has(code)) return 'unreachable';
  if (TLS_CERT_CODE.test(code)) return 'tls_error';
  return undefined;
}

/**
 * The reason a request failed, found in the error or its causes (undici's fetch wraps the
 * socket's error in `cause`; a connection tried on several addresses fails with an
 * AggregateError of them).
 *
 * @example
 * deliveryFailureReason(new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:80'), { code: 'ECONNREFUSED' }) }))
 * // 'connection_refused'
 */
export function deliveryFailureReason(err: unknown): DeliveryFailureReason {
  let current: unknown = err;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && typeof current === 'object' && current !== null; depth++) {
    const e = current as ErrorLike;
    const reason = reasonOf(e);
    if (reason) return reason;
    current = e.cause ?? (Array.isArray(e.errors) ? e.errors[0] : undefined);
  }
  return 'network_error';
}
