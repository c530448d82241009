import { WEBHOOK_MESSAGES } from '@granary/contracts';
import type ipaddr from 'ipaddr.js';
import { InvalidError } from '../../platform/errors.ts';
import {
  createAddressPolicy,
  normalizeHostName,
  parseAddress,
} from '../../platform/outbound/address-policy.ts';
import { type Resolver, systemResolver } from '../../platform/outbound/guarded-lookup.ts';

/** Spec 001 §5: a webhook URL is http, https or ftp (ftp is accepted here but not delivered to). */
export const WEBHOOK_URL_PROTOCOLS = ['http:', 'https:', 'ftp:'];

/** What kind of non-public address `address` is, for the refusal message. */
function describeAddress(address: string): string {
  const ip = parseAddress(address);
  if (!ip) return 'not a public address';
  const v4 =
    ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()
      ? (ip as ipaddr.IPv6).toIPv4Address()
      : ip;
  if (v4.toString() === '169.254.169.254' || v4.toString() === 'fd00:ec2::254')
    return 'the cloud metadata address';
  const names: Record<string, string> = {
    loopback: 'a loopback address',
    private: 'a private address',
    uniqueLocal: 'a private (unique local) address',
    linkLocal: 'a link-local address',
    carrierGradeNat: 'a shared (carrier-grade NAT) address',
    unspecified: 'the unspecified address',
    broadcast: 'a broadcast address',
    multicast: 'a multicast address',
  };
  return names[v4.range()] ?? 'not a public unicast address';
}

const invalid = (detail: string) => new InvalidError(`${WEBHOOK_MESSAGES.url}: ${detail}`);

/**
 * Save-time URL rule for webhooks (spec 001 §5 "Enter a valid URL … private ranges excluded"): the
 * same address policy the outbound client applies when it dials (platform/outbound), checked when a
 * subscription is saved or tested, as remote repositories check their upstream. A host that is, or
 * resolves to, a loopback, private, link-local or metadata address is refused unless
 * `GRANARY_OUTBOUND_ALLOWLIST` names the host or the address. A name that does not resolve now is
 * accepted: the dial-time check still applies to whatever it resolves to later.
 */
export function webhookUrlCheck(
  allowlist: string[],
  resolve: Resolver = systemResolver,
  timeoutMs = 3000,
): (url: string) => Promise<URL> {
  const policy = createAddressPolicy(allowlist);
  const refuse = (host: string, address: string) =>
    invalid(
      `${host}${address === host ? ' is' : ` resolves to ${address},`} ${describeAddress(address)}; ` +
        'webhooks may not reach loopback, private, link-local or metadata addresses unless ' +
        'GRANARY_OUTBOUND_ALLOWLIST names the host or the address',
    );
  return async (raw) => {
    let url: URL;
    try {
      url = new URL(raw.trim());
    } catch {
      throw invalid(`"${raw}" is not a URL`);
    }
    if (!WEBHOOK_URL_PROTOCOLS.includes(url.protocol)) throw invalid('only http, https and ftp URLs');
    if (!url.hostname) throw invalid('the URL names no host');
    if (url.username || url.password)
      throw invalid('put credentials in a secret or a header, not in the URL');
    const host = normalizeHostName(url.hostname);
    if (parseAddress(host)) {
      if (!policy.isAllowed(host)) throw refuse(host, host);
      return url;
    }
    if (policy.namesHost(host)) return url;
    let timer: NodeJS.Timeout | undefined;
    const addresses = await Promise.race([
      resolve(host, { all: true }).catch(() => []),
      new Promise<[]>((r) => {
        timer = setTimeout(() => r([]), timeoutMs);
      }),
    ]).finally(() => clearTimeout(timer));
    for (const { address } of addresses) if (!policy.isAllowed(address, host)) throw refuse(host, address);
    return url;
  };
}
