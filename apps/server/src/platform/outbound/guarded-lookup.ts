import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { AddressPolicy } from './address-policy.ts';
import { OutboundBlockedError } from './outbound-errors.ts';

/** Resolves a host name to all its addresses (dns.lookup with `all: true` by default). */
export type Resolver = (hostname: string, options: dns.LookupOptions) => Promise<dns.LookupAddress[]>;

export const systemResolver: Resolver = (hostname, options) =>
  dns.promises.lookup(hostname, { ...options, all: true });

/**
 * Resolves `hostname` and refuses it if any of its addresses is not allowed, so a name that
 * mixes a public and a private answer cannot be used to reach the private one.
 */
export async function resolveAllowed(
  policy: AddressPolicy,
  hostname: string,
  resolve: Resolver = systemResolver,
  options: dns.LookupOptions = {},
): Promise<dns.LookupAddress[]> {
  const addresses = await resolve(hostname, { ...options, all: true });
  if (addresses.length === 0) {
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
  }
  for (const { address } of addresses) {
    if (!policy.isAllowed(address, hostname)) {
      throw new OutboundBlockedError(
        `Outbound request to ${hostname} refused: it resolves to ${address}, which is not a public address ` +
          'and is not in GRANARY_OUTBOUND_ALLOWLIST',
        { host: hostname, address },
      );
    }
  }
  return addresses;
}

/**
 * A `lookup` for net.connect / tls.connect: the check runs on the addresses the socket will
 * actually connect to, so an answer that changes between an earlier check and the connect
 * (DNS rebinding) is still refused. net.connect does not call it for IP-literal hosts.
 */
export function createGuardedLookup(
  policy: AddressPolicy,
  resolve: Resolver = systemResolver,
): LookupFunction {
  return (hostname, options, callback) => {
    resolveAllowed(policy, hostname, resolve, options).then(
      (addresses) => {
        if (options.all) {
          callback(null, addresses);
        } else {
          const first = addresses[0]!;
          callback(null, first.address, first.family);
        }
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}
