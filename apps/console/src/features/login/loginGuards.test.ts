import type { LoginConfig } from '@granary/contracts';
import { describe, expect, it } from 'vitest';
import { autoRedirectTarget, samlLogoutTarget } from './loginGuards.ts';

const config = (over: Partial<LoginConfig> = {}): LoginConfig => ({
  ssoLoginUrl: 'https://idp.example/sso',
  autoRedirectLogin: true,
  samlLogoutUrl: 'https://idp.example/slo',
  ...over,
});

describe('spec 000 §4 route guard: logout flag → SAML logout URL for a SAML user', () => {
  const table: [string, { realm: string } | null, LoginConfig | undefined, string | null][] = [
    ['SAML user, URL set', { realm: 'saml' }, config(), 'https://idp.example/slo'],
    ['SAML user, no URL', { realm: 'saml' }, config({ samlLogoutUrl: null }), null],
    ['internal user, URL set', { realm: 'internal' }, config(), null],
    ['OAuth user, URL set', { realm: 'oauth' }, config(), null],
    ['nobody signed in', null, config(), null],
    ['settings unavailable', { realm: 'saml' }, undefined, null],
  ];
  for (const [why, user, cfg, to] of table)
    it(`${why} → ${to ?? 'login'}`, () => expect(samlLogoutTarget(user, cfg)).toBe(to));
});

describe('spec 000 §4 route guard: auto-redirect SSO', () => {
  const none = { signedOut: false, noAutoRedirect: false };
  const table: [string, LoginConfig | undefined, typeof none, string | null][] = [
    ['on with an SSO URL', config(), none, 'https://idp.example/sso'],
    ['off', config({ autoRedirectLogin: false }), none, null],
    ['on without an SSO URL', config({ ssoLoginUrl: null }), none, null],
    ['right after signing out', config(), { ...none, signedOut: true }, null],
    ['?noAutoRedirect asks for the local form', config(), { ...none, noAutoRedirect: true }, null],
    ['settings unavailable', undefined, none, null],
  ];
  for (const [why, cfg, options, to] of table)
    it(`${why} → ${to ?? 'the login form'}`, () => expect(autoRedirectTarget(cfg, options)).toBe(to));
});
