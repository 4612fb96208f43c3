import { BlockList, isIP } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyIpAddress } from '../src/index.js';

/** The hostname a URL's host becomes once the WHATWG parser has normalized it. */
const hostOf = (url: string): string => new URL(url).hostname;

describe('classifyIpAddress', () => {
  it('classifies every special IPv4 range and lets public addresses through', () => {
    const cases: [string, string][] = [
      ['0.0.0.0', 'unspecified'],
      ['0.1.2.3', 'unspecified'],
      ['127.0.0.1', 'loopback'],
      ['127.255.255.254', 'loopback'],
      ['10.0.0.1', 'private'],
      ['10.255.255.255', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.1.1', 'private'],
      ['169.254.169.254', 'link_local'],
      ['169.254.0.1', 'link_local'],
      ['100.64.0.1', 'cgnat'],
      ['100.127.255.255', 'cgnat'],
      ['224.0.0.1', 'multicast'],
      ['239.255.255.250', 'multicast'],
      ['255.255.255.255', 'broadcast'],
      ['240.0.0.1', 'reserved'],
      ['192.0.0.170', 'reserved'],
      ['198.18.0.1', 'reserved'],
      ['192.0.2.1', 'documentation'],
      ['198.51.100.7', 'documentation'],
      ['203.0.113.9', 'documentation'],
      // Just outside the ranges.
      ['172.15.255.255', 'public'],
      ['172.32.0.0', 'public'],
      ['100.63.255.255', 'public'],
      ['100.128.0.0', 'public'],
      ['169.253.255.255', 'public'],
      ['11.0.0.1', 'public'],
      ['8.8.8.8', 'public'],
      ['93.184.215.14', 'public'],
      ['223.255.255.255', 'public'],
    ];
    for (const [address, expected] of cases) expect(classifyIpAddress(address), address).toBe(expected);
  });

  it('classifies IPv6, with IPv4 inside it judged by the IPv4 address', () => {
    const cases: [string, string][] = [
      ['::', 'unspecified'],
      ['0:0:0:0:0:0:0:0', 'unspecified'],
      ['::1', 'loopback'],
      ['0000:0000:0000:0000:0000:0000:0000:0001', 'loopback'],
      ['[::1]', 'loopback'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:7f00:1', 'loopback'],
      ['::FFFF:A9FE:A9FE', 'link_local'],
      ['::ffff:10.1.2.3', 'private'],
      ['::ffff:8.8.8.8', 'public'],
      ['::127.0.0.1', 'reserved'],
      ['64:ff9b::10.0.0.1', 'private'],
      ['64:ff9b::8.8.8.8', 'public'],
      ['2002:7f00:1::', 'loopback'],
      ['2002:0808:0808::1', 'public'],
      ['fc00::1', 'private'],
      ['fd12:3456:789a::1', 'private'],
      ['fe80::1', 'link_local'],
      ['fe80::1%eth0', 'link_local'],
      ['febf::1', 'link_local'],
      ['fec0::1', 'private'],
      ['ff02::1', 'multicast'],
      ['2001:db8::1', 'documentation'],
      ['2001::1', 'reserved'],
      ['100::1', 'reserved'],
      ['64:ff9b:1::1', 'reserved'],
      ['2606:4700:4700::1111', 'public'],
      ['2a00:1450:4001:82b::200e', 'public'],
    ];
    for (const [address, expected] of cases) expect(classifyIpAddress(address), address).toBe(expected);
  });

  it('is undefined for hostnames and malformed addresses', () => {
    for (const text of ['example.com', 'localhost', '', '1.2.3', '1.2.3.4.5', '256.0.0.1', '01.2.3.4', '1.2.3.-4', ':::', '1::2::3', '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7', 'g::1', '12345::', '::1.2.3', '1.2.3.4::']) {
      expect(classifyIpAddress(text), JSON.stringify(text)).toBeUndefined();
    }
  });

  it('classifies what the URL parser makes of decimal, octal, hex and short IPv4 and of IPv6 hosts', () => {
    const cases: [string, string][] = [
      ['http://2130706433/', 'loopback'],
      ['http://0x7f.1/', 'loopback'],
      ['http://0177.0.0.1/', 'loopback'],
      ['http://127.1/', 'loopback'],
      ['http://0x7f000001/', 'loopback'],
      ['http://0/', 'unspecified'],
      ['http://0xa9fea9fe/', 'link_local'],
      ['http://2852039166/', 'link_local'],
      ['http://012.0.0.1/', 'private'],
      ['http://[::1]:8080/', 'loopback'],
      ['http://[::ffff:127.0.0.1]/', 'loopback'],
      ['http://[0:0:0:0:0:ffff:a9fe:a9fe]/', 'link_local'],
      ['http://[fe80::1]/', 'link_local'],
      ['http://[::]/', 'unspecified'],
      ['https://8.8.8.8/hook', 'public'],
    ];
    for (const [url, expected] of cases) expect(classifyIpAddress(hostOf(url)), `${url} → ${hostOf(url)}`).toBe(expected);
  });

  it('agrees with node:net BlockList over random IPv4 and IPv4-mapped IPv6 addresses', () => {
    const blocked = new BlockList();
    for (const [net, prefix] of [
      ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
      ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
      ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 3],
    ] as const) {
      blocked.addSubnet(net, prefix, 'ipv4');
    }
    // Octets biased toward the edges of the ranges, where an off-by-one would hide.
    const octet = fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constantFrom(0, 1, 10, 15, 16, 31, 32, 63, 64, 100, 127, 128, 168, 169, 172, 192, 198, 203, 223, 224, 254, 255));
    fc.assert(
      fc.property(fc.tuple(octet, octet, octet, octet), (octets) => {
        const v4 = octets.join('.');
        expect(isIP(v4)).toBe(4);
        const forbidden = classifyIpAddress(v4) !== 'public';
        expect(forbidden, v4).toBe(blocked.check(v4, 'ipv4'));
        expect(classifyIpAddress(`::ffff:${v4}`)).toBe(classifyIpAddress(v4));
        const hex = (i: number) => ((octets[i]! << 8) | octets[i + 1]!).toString(16);
        expect(classifyIpAddress(`[::ffff:${hex(0)}:${hex(2)}]`)).toBe(classifyIpAddress(v4));
      }),
      { numRuns: 5_000 },
    );
  });
});
