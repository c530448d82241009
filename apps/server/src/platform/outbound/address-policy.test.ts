import type { LookupAddress, LookupOptions } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { createGuardedLookup } from './guarded-lookup.ts';
import { createAddressPolicy, OutboundBlockedError, parseAllowlist } from './index.ts';
import { createNoProxyMatcher } from './no-proxy.ts';

// Policy only: nothing in this file opens a connection.

describe('outbound address policy', () => {
  const byDefault = createAddressPolicy([]);

  it.each([
    ['10.0.0.1', 'private (RFC 1918)'],
    ['172.16.5.4', 'private (RFC 1918)'],
    ['192.168.1.1', 'private (RFC 1918)'],
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['169.254.169.254', 'link-local metadata'],
    ['fe80::1', 'link-local'],
    ['fd00:ec2::254', 'unique-local metadata'],
    ['100.100.100.200', 'carrier-grade NAT metadata'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['2001:db8::1', 'documentation'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
    ['::7f00:1', 'IPv4-compatible'],
    ['64:ff9b::a00:1', 'NAT64 of a private address'],
    ['2002:a00:1::1', '6to4 of a private address'],
  ])('outbound: policy refuses %s (%s) by default', (address) => {
    expect(byDefault.isAllowed(address)).toBe(false);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '2606:4700::1111',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('outbound: policy allows public unicast %s', (address) => {
    expect(byDefault.isAllowed(address)).toBe(true);
  });

  it.each([
    ['10.0.0.1', '10.0.0.1'],
    ['10.0.0.1', '10.0.0.0/8'],
    ['169.254.169.254', '169.254.169.254'],
    ['169.254.169.254', '169.254.0.0/16'],
    ['100.100.100.200', '100.100.100.200'],
    ['100.100.100.200', '100.64.0.0/10'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::ffff:127.0.0.1', '127.0.0.0/8'],
    ['::ffff:127.0.0.1', '::ffff:127.0.0.1'],
    ['fd00:ec2::254', 'fd00:ec2::254'],
    ['fd00:ec2::254', 'fd00::/8'],
    ['::1', '[::1]'],
  ])('outbound: policy allows %s when the allow-list names %s', (address, entry) => {
    expect(createAddressPolicy([entry]).isAllowed(address)).toBe(true);
  });

  it('outbound: policy allow-list entries only cover what they contain', () => {
    const policy = createAddressPolicy(['10.0.0.0/8', '169.254.169.254', 'fd00:ec2::/32']);
    expect(policy.isAllowed('10.255.0.1')).toBe(true);
    expect(policy.isAllowed('11.0.0.1')).toBe(true); // public anyway
    expect(policy.isAllowed('172.16.0.1')).toBe(false);
    expect(policy.isAllowed('169.254.169.253')).toBe(false);
    expect(policy.isAllowed('fd00:ec3::1')).toBe(false);
    expect(policy.isAllowed('127.0.0.1')).toBe(false);
  });

  it('outbound: policy allows any address of a host the allow-list names (case-insensitive, exact)', () => {
    const policy = createAddressPolicy(['Nexus.Internal']);
    expect(policy.isAllowed('10.0.0.1', 'nexus.internal')).toBe(true);
    expect(policy.isAllowed('10.0.0.1', 'NEXUS.INTERNAL.')).toBe(true);
    expect(policy.isAllowed('10.0.0.1', 'evil.nexus.internal')).toBe(false);
    expect(policy.isAllowed('10.0.0.1', 'nexus.internal.evil')).toBe(false);
    expect(policy.isAllowed('10.0.0.1')).toBe(false);
  });

  it('outbound: policy refuses what is not an IP address', () => {
    expect(byDefault.isAllowed('example.com')).toBe(false);
    expect(byDefault.isAllowed('127.1')).toBe(false);
    expect(byDefault.isAllowed('')).toBe(false);
  });
});

describe('parseAllowlist (GRANARY_OUTBOUND_ALLOWLIST)', () => {
  it('outbound: parseAllowlist splits on commas, trims and drops empties', () => {
    expect(parseAllowlist(' 127.0.0.1 , ,10.0.0.0/8, Nexus.Internal ,fd00::/8,[::1],')).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      'Nexus.Internal',
      'fd00::/8',
      '[::1]',
    ]);
    expect(parseAllowlist('')).toEqual([]);
    expect(parseAllowlist(' , ')).toEqual([]);
  });

  it.each(['10.0.0.0/33', '10.0.0/8', '10.0.0.0/', '10.0.0.0/x', 'fd00::/129', 'nexus/8'])(
    'outbound: parseAllowlist refuses the invalid CIDR %s naming the setting',
    (value) => {
      expect(() => parseAllowlist(`127.0.0.1,${value}`)).toThrow(
        /GRANARY_OUTBOUND_ALLOWLIST: "[^"]+" is not a valid CIDR/,
      );
    },
  );

  it.each(['http://nexus', 'nexus:8080', '127.1', 'bad host', '*.example.com'])(
    'outbound: parseAllowlist refuses %s, which is not a host, IP or CIDR',
    (value) => {
      expect(() => parseAllowlist(value)).toThrow(/GRANARY_OUTBOUND_ALLOWLIST/);
    },
  );

  it('outbound: createAddressPolicy refuses an invalid entry too', () => {
    expect(() => createAddressPolicy(['10.0.0.0/40'])).toThrow(/GRANARY_OUTBOUND_ALLOWLIST/);
  });
});

describe('connect-time lookup', () => {
  const fakeResolver = (answer: LookupAddress[]) => async (_host: string, _opts: LookupOptions) => answer;
  const lookup = (
    fn: ReturnType<typeof createGuardedLookup>,
    host: string,
    options: LookupOptions,
  ): Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family?: number }> =>
    new Promise((resolve) => fn(host, options, (err, address, family) => resolve({ err, address, family })));

  it('outbound: lookup refuses a name when any answer is not public (DNS rebinding)', async () => {
    const fn = createGuardedLookup(
      createAddressPolicy([]),
      fakeResolver([
        { address: '93.184.215.14', family: 4 },
        { address: '169.254.169.254', family: 4 },
      ]),
    );
    const { err } = await lookup(fn, 'rebind.example', { all: true });
    expect(err).toBeInstanceOf(OutboundBlockedError);
    expect(err).toMatchObject({
      code: 'OUTBOUND_BLOCKED',
      host: 'rebind.example',
      address: '169.254.169.254',
    });
  });

  it('outbound: lookup answers in the shape net.connect asked for', async () => {
    const answer = [
      { address: '2606:4700::1111', family: 6 },
      { address: '1.1.1.1', family: 4 },
    ];
    const fn = createGuardedLookup(createAddressPolicy([]), fakeResolver(answer));
    expect(await lookup(fn, 'one.example', { all: true })).toEqual({
      err: null,
      address: answer,
      family: undefined,
    });
    expect(await lookup(fn, 'one.example', {})).toEqual({ err: null, address: '2606:4700::1111', family: 6 });
  });

  it('outbound: lookup lets a private answer through when the allow-list names the host', async () => {
    const fn = createGuardedLookup(
      createAddressPolicy(['nexus.internal']),
      fakeResolver([{ address: '10.1.2.3', family: 4 }]),
    );
    expect(await lookup(fn, 'nexus.internal', {})).toEqual({ err: null, address: '10.1.2.3', family: 4 });
  });
});

describe('noProxy', () => {
  it('outbound: noProxy matches hosts, domains with their subdomains, IPs, CIDRs and *', () => {
    const bypass = createNoProxyMatcher(['nexus.internal', '.corp.example', '10.0.0.0/8', '::1']);
    expect(bypass('nexus.internal')).toBe(true);
    expect(bypass('NEXUS.internal.')).toBe(true);
    expect(bypass('a.nexus.internal')).toBe(true);
    expect(bypass('xnexus.internal')).toBe(false);
    expect(bypass('corp.example')).toBe(true);
    expect(bypass('git.corp.example')).toBe(true);
    expect(bypass('10.9.8.7')).toBe(true);
    expect(bypass('[::1]')).toBe(true);
    expect(bypass('11.0.0.1')).toBe(false);
    expect(bypass('registry.npmjs.org')).toBe(false);
    expect(createNoProxyMatcher(['*'])('anything.example')).toBe(true);
    expect(createNoProxyMatcher([])('anything.example')).toBe(false);
  });
});
