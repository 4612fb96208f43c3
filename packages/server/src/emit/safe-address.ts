/**
 * Keeps webhooks out of the server's own network. A webhook URL is chosen by whoever holds a
 * workspace's secret key; without this check it could make the server POST to its loopback, to
 * the cloud metadata service at 169.254.169.254 or to any host of the private network, and read
 * the outcome in the delivery log.
 *
 * The check runs on every address a hostname resolves to, at subscribe time and again at each
 * delivery. At delivery it runs inside the connection's DNS lookup ({@link guardedLookup}), so
 * the socket connects to exactly the addresses that were checked: a name that answered a public
 * address at subscribe time and answers 127.0.0.1 now (DNS rebinding) never gets a connection.
 */
import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { classifyIpAddress, type IpAddressClass } from '@feedloop/core';

/** One address a hostname resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a hostname to all its addresses (DNS); injectable so tests can play a rebinding DNS. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** Where webhooks may go. */
export interface AddressPolicy {
  /** Let private, loopback, link-local and other non-public addresses through (`FEEDLOOP_WEBHOOK_ALLOW_PRIVATE`). */
  allowPrivate: boolean;
  /** How hostnames are resolved; default the system resolver (`dns.lookup`, which reads /etc/hosts too). */
  resolve?: Resolver;
}

/** The `code` of {@link ForbiddenAddressError}, found again in the cause chain of a failed fetch. */
export const FORBIDDEN_ADDRESS_CODE = 'FEEDLOOP_FORBIDDEN_ADDRESS';

/** A webhook host is, or resolves to, an address webhooks must not reach. */
export class ForbiddenAddressError extends Error {
  readonly code = FORBIDDEN_ADDRESS_CODE;

  constructor(readonly addressClass: Exclude<IpAddressClass, 'public'>) {
    super(`the webhook host is or resolves to a ${addressClass.replace('_', '-')} address`);
    this.name = 'ForbiddenAddressError';
  }
}

/**
 * The system resolver: every address of `hostname`, in the order the system gives them.
 *
 * @example
 * await systemResolver('localhost') // [{ address: '::1', family: 6 }, { address: '127.0.0.1', family: 4 }]
 */
export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** A URL's hostname as an address or a DNS name: no IPv6 brackets, no trailing root dot, lower case. */
function bareHost(hostname: string): string {
  const unbracketed = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return unbracketed.replace(/\.$/, '').toLowerCase();
}

/** `localhost` and `*.localhost` are loopback by definition (RFC 6761), whatever a resolver says. */
const isLocalhostName = (host: string): boolean => host === 'localhost' || host.endsWith('.localhost');

/**
 * The class of a hostname that needs no DNS to be judged: an IP literal, or a localhost name.
 * `undefined` for any other name.
 *
 * @example
 * literalHostClass('[::1]')        // 'loopback'
 * literalHostClass('example.com')  // undefined
 */
export function literalHostClass(hostname: string): IpAddressClass | undefined {
  const host = bareHost(hostname);
  return isLocalhostName(host) ? 'loopback' : classifyIpAddress(host);
}

/**
 * Resolves a hostname and returns its addresses when every one of them may be reached; throws
 * {@link ForbiddenAddressError} when any may not (a name with one private address among public
 * ones is refused whole), and the resolver's error when the name does not resolve. An IP literal
 * is judged as it is, without DNS.
 *
 * @example
 * await resolveAllowed('hooks.example.com', { allowPrivate: false }) // [{ address: '93.184.215.14', family: 4 }]
 * await resolveAllowed('localhost', { allowPrivate: false })         // throws ForbiddenAddressError('loopback')
 */
export async function resolveAllowed(hostname: string, policy: AddressPolicy): Promise<ResolvedAddress[]> {
  const host = bareHost(hostname);
  const literal = classifyIpAddress(host);
  if (literal !== undefined) {
    if (literal !== 'public' && !policy.allowPrivate) throw new ForbiddenAddressError(literal);
    return [{ address: host, family: host.includes(':') ? 6 : 4 }];
  }
  if (isLocalhostName(host) && !policy.allowPrivate) throw new ForbiddenAddressError('loopback');
  const addresses = await (policy.resolve ?? systemResolver)(host);
  if (!policy.allowPrivate) {
    for (const { address } of addresses) {
      // An answer that is not an address at all is refused too: only what was judged is connected to.
      const kind = classifyIpAddress(address) ?? 'reserved';
      if (kind !== 'public') throw new ForbiddenAddressError(kind);
    }
  }
  return addresses;
}

/** How long a subscribe waits for DNS before it accepts the name unjudged (deliveries judge it again). */
const SUBSCRIBE_DNS_TIMEOUT_MS = 5_000;

/**
 * Where a URL may not go, if anywhere: the class of the first forbidden address its host is or
 * resolves to, or `undefined` when it may be subscribed. A name that does not resolve (yet, or
 * within 5 s) is accepted: nothing is sent to it until a delivery's own check passes.
 *
 * @example
 * await forbiddenUrlClass('http://169.254.169.254/latest', { allowPrivate: false }) // 'link_local'
 * await forbiddenUrlClass('https://hooks.example.com/in', { allowPrivate: false })  // undefined
 */
export async function forbiddenUrlClass(url: string, policy: AddressPolicy): Promise<Exclude<IpAddressClass, 'public'> | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const unjudged = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, SUBSCRIBE_DNS_TIMEOUT_MS, undefined);
  });
  const judged = resolveAllowed(new URL(url).hostname, policy).then(
    () => undefined,
    (err: unknown) => (err instanceof ForbiddenAddressError ? err.addressClass : undefined),
  );
  try {
    return await Promise.race([judged, unjudged]);
  } finally {
    clearTimeout(timer);
  }
}

/** The callback of a `net.connect` lookup, in both its forms (one address, or all of them). */
type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for `net.connect`/`tls.connect` (through undici's `Agent({ connect: { lookup } })`)
 * that resolves with {@link resolveAllowed}: the socket connects only to addresses that were
 * checked in this very lookup, and a forbidden one fails the connection with
 * {@link ForbiddenAddressError} before any byte is sent. The TLS server name and the Host header
 * stay the URL's hostname (undici sets them from the URL, not from the lookup).
 *
 * Node does not call `lookup` for an IP-literal host: check those with {@link literalHostClass}
 * before connecting.
 *
 * @example
 * const agent = new Agent({ connect: { lookup: guardedLookup({ allowPrivate: false }) } });
 * await fetch(url, { dispatcher: agent });
 */
export function guardedLookup(policy: AddressPolicy): (hostname: string, options: LookupOptions, callback: LookupCallback) => void {
  return (hostname, options, callback) => {
    resolveAllowed(hostname, policy).then(
      (resolved) => {
        const wanted = options.family === 4 || options.family === 6 ? resolved.filter((a) => a.family === options.family) : resolved;
        const [first] = wanted;
        if (!first) {
          const none: NodeJS.ErrnoException = new Error(`no address for ${hostname}`);
          none.code = 'ENOTFOUND';
          callback(none, options.all ? [] : '');
          return;
        }
        if (options.all) callback(null, wanted);
        else callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, options.all ? [] : ''),
    );
  };
}
