import ipaddr from 'ipaddr.js';

type Trust = boolean | number | string;

function parse(value: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  try {
    const ip = ipaddr.parse(value.trim().replace(/^\[|\]$/g, ''));
    return ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()
      ? (ip as ipaddr.IPv6).toIPv4Address()
      : ip;
  } catch {
    return undefined;
  }
}

/**
 * Whether the connection's peer is a reverse proxy GRANARY_TRUST_PROXY believes: `false` none, `true` or
 * a hop count any (the admin says every request comes through proxies), a list of IPs/CIDRs those.
 * Only such a peer's HTTP SSO header is believed: anyone else could set it.
 */
export function isTrustedProxyPeer(trust: Trust, peer: string | undefined): boolean {
  if (trust === false || trust === 0 || !peer) return false;
  if (trust === true || typeof trust === 'number') return true;
  const ip = parse(peer);
  if (!ip) return false;
  for (const entry of trust.split(',')) {
    const text = entry.trim();
    if (!text) continue;
    if (text.includes('/')) {
      try {
        const [range, bits] = ipaddr.parseCIDR(text);
        const base =
          range.kind() === 'ipv6' && (range as ipaddr.IPv6).isIPv4MappedAddress()
            ? (range as ipaddr.IPv6).toIPv4Address()
            : range;
        if (
          base.kind() === ip.kind() &&
          ip.match([base, base.kind() === range.kind() ? bits : bits - 96] as never)
        )
          return true;
      } catch {
        // not a CIDR: the configuration check refuses it at start
      }
    } else {
      const one = parse(text);
      if (one && one.kind() === ip.kind() && one.toNormalizedString() === ip.toNormalizedString())
        return true;
    }
  }
  return false;
}
