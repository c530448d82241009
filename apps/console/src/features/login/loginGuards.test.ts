import type { LoginConfig } from '@granary/contracts';
import { describe, expect, it } from 'vitest';
import { asksForLocalForm, autoRedirectTarget, samlLogoutTarget, withRedirectTo } from './loginGuards.ts';

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

describe('issue 20, spec 000 §4: auto-redirect to the default SSO provider, the escape hatch, the SAML logout URL', () => {
  const none = { signedOut: false, noAutoRedirect: false };
  const sso = { isAutoRedirectLogin: true, ssoProviderLink: '/ui/api/v1/sso/corp/login' };
  it('the default provider with auto-redirect wins over the general settings', () =>
    expect(autoRedirectTarget(config({ autoRedirectLogin: false }), none, sso)).toBe(
      '/ui/api/v1/sso/corp/login',
    ));
  it('the escape hatch and signing out keep the form', () => {
    expect(autoRedirectTarget(config(), { ...none, noAutoRedirect: true }, sso)).toBeNull();
    expect(autoRedirectTarget(config(), { ...none, signedOut: true }, sso)).toBeNull();
  });
  it('?local=true and ?noAutoRedirect ask for the local form; ?local=false does not', () => {
    expect(asksForLocalForm(new URLSearchParams('local=true'))).toBe(true);
    expect(asksForLocalForm(new URLSearchParams('local'))).toBe(true);
    expect(asksForLocalForm(new URLSearchParams('noAutoRedirect'))).toBe(true);
    expect(asksForLocalForm(new URLSearchParams('local=false'))).toBe(false);
    expect(asksForLocalForm(new URLSearchParams(''))).toBe(false);
  });
  it('the path asked for rides along to Granary sign-in routes only', () => {
    expect(withRedirectTo('/ui/api/v1/sso/a/login', '/packages')).toBe(
      '/ui/api/v1/sso/a/login?redirectTo=%2Fui%2Fpackages',
    );
    expect(withRedirectTo('/x?y=1', '/b')).toBe('/x?y=1&redirectTo=%2Fui%2Fb');
    expect(withRedirectTo('https://idp.example/sso', '/b')).toBe('https://idp.example/sso');
    expect(withRedirectTo('//evil.example/x', '/b')).toBe('//evil.example/x');
  });
  it("a SAML user's logout URL: the session's, else the login state's, else the settings'", () => {
    const saml = { realm: 'saml' };
    expect(
      samlLogoutTarget(saml, config(), {
        sessionLogoutUrl: 'https://a/slo',
        state: { samlLogoutUrl: 'https://b' },
      }),
    ).toBe('https://a/slo');
    expect(
      samlLogoutTarget(saml, config(), { sessionLogoutUrl: null, state: { samlLogoutUrl: 'https://b' } }),
    ).toBe('https://b');
    expect(samlLogoutTarget(saml, config(), { sessionLogoutUrl: null, state: null })).toBe(
      'https://idp.example/slo',
    );
    expect(samlLogoutTarget({ realm: 'oauth' }, config(), { sessionLogoutUrl: 'https://a/slo' })).toBeNull();
  });
});
