import net from 'node:net';
import ipaddr from 'ipaddr.js';

type IP = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [IP, number];

export interface AddressPolicy {
  /**
   * Whether a connection to `address` may be made: yes for public unicast addresses, and for
   * any address when the allow-list names `hostname` or an IP/CIDR containing the address.
   * Anything that is not an IP address is refused.
   */
  isAllowed(address: string, hostname?: string): boolean;
  /** Whether the allow-list names this host (exact name, case-insensitive). */
  namesHost(hostname: string): boolean;
}

const SETTING = 'GRANARY_OUTBOUND_ALLOWLIST';

// One DNS label: letters, digits, `-` (not at either end) and `_` (seen in internal names).
const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;
// The WHATWG URL parser reads a host whose last label is numeric as an IPv4 address.
const NUMERIC_LABEL = /(?:^|\.)(?:0x[0-9a-f]*|[0-9]+)$/;

/**
 * Splits the `GRANARY_OUTBOUND_ALLOWLIST` value: comma-separated, trimmed, empties dropped.
 * Throws on an entry that is not a host name, an IP address or a CIDR.
 */
export function parseAllowlist(value: string): string[] {
  const entries = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  compileAllowlist(entries);
  return entries;
}

/** The address check used before and at connect time. Throws on an invalid allow-list entry. */
export function createAddressPolicy(allowlist: string[]): AddressPolicy {
  const { names, ranges } = compileAllowlist(allowlist);
  const namesHost = (hostname: string) => names.has(normalizeHostName(hostname));
  return {
    namesHost,
    isAllowed(address, hostname) {
      if (hostname !== undefined && namesHost(hostname)) return true;
      const ip = parseAddress(address);
      if (!ip) return false;
      const embedded = embeddedIPv4(ip);
      const candidates = embedded ? [ip, embedded] : [ip];
      if (candidates.some((c) => ranges.some((r) => inRange(c, r)))) return true;
      return isPublicUnicast(ip);
    },
  };
}

/** Lower case, no brackets around an IPv6 literal, no trailing root dot. */
export function normalizeHostName(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

/** The address if `host` is an IP literal (IPv6 with or without brackets), else undefined. */
export function parseAddress(host: string): IP | undefined {
  const h = normalizeHostName(host);
  // net.isIP accepts only the standard forms, not `127.1` or `0x7f.0.0.1` that ipaddr.js would take.
  if (net.isIP(h) === 0) return undefined;
  try {
    return ipaddr.parse(h);
  } catch {
    return undefined;
  }
}

function compileAllowlist(entries: readonly string[]): { names: Set<string>; ranges: Range[] } {
  const names = new Set<string>();
  const ranges: Range[] = [];
  for (const raw of entries) {
    const entry = normalizeHostName(raw);
    if (entry.includes('/')) {
      ranges.push(parseRange(entry, raw));
    } else if (net.isIP(entry) !== 0) {
      const ip = ipaddr.parse(entry);
      ranges.push(normalizeRange([ip, ip.kind() === 'ipv4' ? 32 : 128]));
    } else if (HOST_NAME.test(entry) && !NUMERIC_LABEL.test(entry)) {
      names.add(entry);
    } else {
      throw new Error(`${SETTING}: "${raw}" is not a host name, an IP address or a CIDR`);
    }
  }
  return { names, ranges };
}

function parseRange(entry: string, raw: string): Range {
  const address = entry.slice(0, entry.indexOf('/'));
  const valid = net.isIPv4(address)
    ? ipaddr.IPv4.isValidCIDRFourPartDecimal(entry)
    : net.isIPv6(address) && ipaddr.IPv6.isValidCIDR(entry);
  if (!valid) throw new Error(`${SETTING}: "${raw}" is not a valid CIDR (e.g. 10.0.0.0/8 or fd00::/8)`);
  return normalizeRange(ipaddr.parseCIDR(entry));
}

/** IPv4-mapped IPv6 entries (`::ffff:10.0.0.0/104`) are kept as the IPv4 range they mean. */
function normalizeRange([ip, bits]: Range): Range {
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    return [(ip as ipaddr.IPv6).toIPv4Address(), bits - 96];
  }
  return [ip, bits];
}

function inRange(ip: IP, [network, bits]: Range): boolean {
  return ip.kind() === network.kind() && ip.match(network, bits);
}

/**
 * The IPv4 address an IPv6 address stands for, where packets to it would reach that IPv4
 * address: IPv4-mapped (::ffff:a.b.c.d), NAT64 well-known prefix (64:ff9b::/96), 6to4 (2002::/16).
 */
function embeddedIPv4(ip: IP): ipaddr.IPv4 | undefined {
  if (ip.kind() !== 'ipv6') return undefined;
  const v6 = ip as ipaddr.IPv6;
  const p = v6.parts;
  const fromParts = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  switch (v6.range()) {
    case 'ipv4Mapped':
      return v6.toIPv4Address();
    case 'rfc6052':
      // Only 64:ff9b::/96 embeds the address in the last 32 bits; 64:ff9b:1::/48 is local-use.
      return p[0] === 0x64 && p[1] === 0xff9b && p.slice(2, 6).every((x) => x === 0)
        ? fromParts(p[6]!, p[7]!)
        : undefined;
    case '6to4':
      return fromParts(p[1]!, p[2]!);
    default:
      return undefined;
  }
}

/** Public unicast only: refuses loopback, private, unique-local, link-local, CGNAT, multicast, … */
function isPublicUnicast(ip: IP): boolean {
  if (ip.kind() === 'ipv4') return ip.range() === 'unicast';
  const embedded = embeddedIPv4(ip);
  if (embedded) return embedded.range() === 'unicast';
  const v6 = ip as ipaddr.IPv6;
  // ::/96 holds the deprecated IPv4-compatible addresses (::a.b.c.d); nothing public lives there.
  if (v6.parts.slice(0, 6).every((x) => x === 0)) return false;
  return v6.range() === 'unicast';
}
