import { describe, expect, it } from 'vitest';
import { isTrustedProxyPeer } from './http-sso.ts';

describe('issue 20: HTTP SSO believes the header only from GRANARY_TRUST_PROXY peers', () => {
  it('issue 20 / spec 000 §7: false trusts nobody, true and a hop count trust every peer', () => {
    expect(isTrustedProxyPeer(false, '127.0.0.1')).toBe(false);
    expect(isTrustedProxyPeer(0, '127.0.0.1')).toBe(false);
    expect(isTrustedProxyPeer(true, '203.0.113.9')).toBe(true);
    expect(isTrustedProxyPeer(1, '203.0.113.9')).toBe(true);
    expect(isTrustedProxyPeer(true, undefined)).toBe(false);
  });

  it('issue 20 / spec 000 §7: a list of IPs and CIDRs trusts exactly those peers, IPv4-mapped addresses included', () => {
    const trust = '10.0.0.0/8, 192.168.1.5, 2001:db8::/32';
    expect(isTrustedProxyPeer(trust, '10.20.30.40')).toBe(true);
    expect(isTrustedProxyPeer(trust, '::ffff:10.20.30.40')).toBe(true);
    expect(isTrustedProxyPeer(trust, '192.168.1.5')).toBe(true);
    expect(isTrustedProxyPeer(trust, '192.168.1.6')).toBe(false);
    expect(isTrustedProxyPeer(trust, '2001:db8::1')).toBe(true);
    expect(isTrustedProxyPeer(trust, '2001:db9::1')).toBe(false);
    expect(isTrustedProxyPeer(trust, '11.0.0.1')).toBe(false);
    expect(isTrustedProxyPeer(trust, 'not-an-ip')).toBe(false);
  });
});
