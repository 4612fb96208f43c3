/**
 * What kind of network an IP address belongs to: the public internet, or one of the special
 * ranges (loopback, private, link-local, …) a server must not be sent into by a URL a client
 * chose. Pure: parses the textual forms that DNS answers and the WHATWG URL parser produce
 * (dotted-decimal IPv4, any IPv6 form with `::` and an embedded IPv4 tail), no `node:net`.
 */

/** The class of an IP address; everything but `public` is a range a webhook must not reach. */
export type IpAddressClass =
  | 'public'
  /** 0.0.0.0/8, `::`. */
  | 'unspecified'
  /** 127.0.0.0/8, `::1`. */
  | 'loopback'
  /** RFC 1918 (10/8, 172.16/12, 192.168/16), unique-local fc00::/7, site-local fec0::/10. */
  | 'private'
  /** 169.254.0.0/16 (cloud metadata lives at 169.254.169.254), fe80::/10. */
  | 'link_local'
  /** 100.64.0.0/10, carrier-grade NAT (RFC 6598). */
  | 'cgnat'
  /** 224.0.0.0/4, ff00::/8. */
  | 'multicast'
  /** 255.255.255.255. */
  | 'broadcast'
  /** TEST-NET-1/2/3, 2001:db8::/32. */
  | 'documentation'
  /** Everything else that is not globally routed unicast: 240/4, 192.0.0/24, 198.18/15, unallocated IPv6, … */
  | 'reserved';

const IPV4_PART = /^(0|[1-9]\d{0,2})$/;
const IPV6_GROUP = /^[0-9a-fA-F]{1,4}$/;
const IPV4_MAX_OCTET = 255;
const IPV6_GROUPS = 8;

/**
 * Parses a dotted-decimal IPv4 address (`a.b.c.d`, no leading zeros) into its four octets.
 * Other legacy forms (`0x7f.1`, `2130706433`) are not IP literals here: the URL parser turns
 * them into dotted decimal before a hostname reaches this function.
 */
function parseIpv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const octets: number[] = [];
  for (const part of parts) {
    if (!IPV4_PART.test(part)) return undefined;
    const n = Number(part);
    if (n > IPV4_MAX_OCTET) return undefined;
    octets.push(n);
  }
  return octets;
}

/** Parses an IPv6 address (with `::`, an IPv4 tail, and a `%zone` ignored) into eight 16-bit groups. */
function parseIpv6(text: string): number[] | undefined {
  const zone = text.indexOf('%');
  const bare = zone === -1 ? text : text.slice(0, zone);
  if (!bare.includes(':')) return undefined;
  const halves = bare.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (half: string, last: boolean): number[] | undefined => {
    if (half === '') return [];
    const out: number[] = [];
    const pieces = half.split(':');
    for (const [i, piece] of pieces.entries()) {
      if (last && i === pieces.length - 1 && piece.includes('.')) {
        const v4 = parseIpv4(piece);
        if (!v4) return undefined;
        out.push(((v4[0] ?? 0) << 8) | (v4[1] ?? 0), ((v4[2] ?? 0) << 8) | (v4[3] ?? 0));
      } else if (IPV6_GROUP.test(piece)) {
        out.push(parseInt(piece, 16));
      } else {
        return undefined;
      }
    }
    return out;
  };
  const compressed = halves.length === 2;
  const head = groupsOf(halves[0] ?? '', !compressed);
  const tail = compressed ? groupsOf(halves[1] ?? '', true) : [];
  if (!head || !tail) return undefined;
  const missing = IPV6_GROUPS - head.length - tail.length;
  if (compressed ? missing < 1 : missing !== 0) return undefined;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

/** The class of an IPv4 address given as four octets. */
function classifyIpv4([a = 0, b = 0, c = 0, d = 0]: number[]): IpAddressClass {
  if (a === 0) return 'unspecified';
  if (a === 127) return 'loopback';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'private';
  if (a === 169 && b === 254) return 'link_local';
  if (a === 100 && b >= 64 && b <= 127) return 'cgnat';
  if ((a === 192 && b === 0 && c === 2) || (a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113)) return 'documentation';
  if (a === 255 && b === 255 && c === 255 && d === 255) return 'broadcast';
  if (a >= 224 && a <= 239) return 'multicast';
  if (a >= 240) return 'reserved';
  // IETF protocol assignments, benchmarking, the deprecated 6to4 relay anycast.
  if ((a === 192 && b === 0 && c === 0) || (a === 198 && (b === 18 || b === 19)) || (a === 192 && b === 88 && c === 99)) return 'reserved';
  return 'public';
}

/** The IPv4 address in two 16-bit groups, as octets. */
const v4Of = (hi: number, lo: number): number[] => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];

/** The class of an IPv6 address given as eight groups. */
function classifyIpv6(g: number[]): IpAddressClass {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const first80Zero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (first80Zero && g5 === 0xffff) return classifyIpv4(v4Of(g6, g7)); // ::ffff:a.b.c.d, IPv4-mapped
  if (first80Zero && g5 === 0) {
    if (g6 === 0 && g7 === 0) return 'unspecified';
    if (g6 === 0 && g7 === 1) return 'loopback';
    return 'reserved'; // ::a.b.c.d, the deprecated IPv4-compatible form
  }
  // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) carry an IPv4 address the packet ends up at.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return classifyIpv4(v4Of(g6, g7));
  if (g0 === 0x2002) return classifyIpv4(v4Of(g1, g2));
  if ((g0 & 0xfe00) === 0xfc00) return 'private'; // fc00::/7 unique local
  if ((g0 & 0xffc0) === 0xfe80) return 'link_local'; // fe80::/10
  if ((g0 & 0xffc0) === 0xfec0) return 'private'; // fec0::/10 site-local (deprecated)
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  if (g0 === 0x2001 && g1 === 0x0db8) return 'documentation';
  // 2001::/23 is IETF protocol assignments (Teredo, benchmarking, ORCHID …), none a web server.
  if (g0 === 0x2001 && g1 < 0x0200) return 'reserved';
  // Global unicast is 2000::/3; everything outside it (64:ff9b:1::/48, 100::/64 discard, …) is special.
  if ((g0 & 0xe000) !== 0x2000) return 'reserved';
  return 'public';
}

/**
 * The class of an IP address, or `undefined` when `text` is not an IP address (a hostname).
 * Accepts dotted-decimal IPv4 and any IPv6 form, with or without the URL's brackets; IPv4
 * embedded in IPv6 (mapped `::ffff:127.0.0.1`, NAT64, 6to4) is classified by the IPv4 address.
 *
 * @example
 * classifyIpAddress('8.8.8.8')            // 'public'
 * classifyIpAddress('169.254.169.254')    // 'link_local'
 * classifyIpAddress('[::ffff:7f00:1]')    // 'loopback'
 * classifyIpAddress('example.com')        // undefined
 */
export function classifyIpAddress(text: string): IpAddressClass | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const v4 = parseIpv4(bare);
  if (v4) return classifyIpv4(v4);
  const v6 = parseIpv6(bare);
  return v6 ? classifyIpv6(v6) : undefined;
}
