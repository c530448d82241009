import ipaddr from 'ipaddr.js';
import { normalizeHostName, parseAddress } from './address-policy.ts';

/**
 * Whether a host bypasses the proxy. Entries follow the usual NO_PROXY habits: `*` (every host),
 * a domain (`example.com`, `.example.com` or `*.example.com`: the domain and its subdomains),
 * an IP address or a CIDR (matched against IP-literal hosts only).
 */
export function createNoProxyMatcher(entries: readonly string[]): (host: string) => boolean {
  const domains: string[] = [];
  const ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  let all = false;
  for (const raw of entries) {
    const entry = normalizeHostName(raw);
    if (entry === '') continue;
    if (entry === '*') {
      all = true;
    } else if (entry.includes('/') && ipaddr.isValidCIDR(entry)) {
      ranges.push(ipaddr.parseCIDR(entry));
    } else if (parseAddress(entry)) {
      const ip = parseAddress(entry)!;
      ranges.push([ip, ip.kind() === 'ipv4' ? 32 : 128]);
    } else {
      domains.push(entry.replace(/^\*?\./, ''));
    }
  }
  return (rawHost) => {
    if (all) return true;
    const host = normalizeHostName(rawHost);
    const ip = parseAddress(host);
    if (ip) return ranges.some(([net, bits]) => net.kind() === ip.kind() && ip.match(net, bits));
    return domains.some((d) => host === d || host.endsWith(`.${d}`));
  };
}
