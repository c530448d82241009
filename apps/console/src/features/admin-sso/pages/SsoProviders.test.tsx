import {
  SSO_MESSAGES,
  SSO_TEST_MESSAGE_TYPE,
  type SsoProvider,
  type SsoTestResult,
} from '@granary/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';

/** Issue 20 admin screens: Administration → Identity and access → Single sign-on. */
const stamps = { createdAt: '2026-11-24T10:00:00.000Z', updatedAt: '2026-11-24T10:00:00.000Z' };
const mapping = {
  usernameClaim: 'preferred_username',
  emailClaim: 'email',
  groupsClaim: 'groups',
  createMissingGroups: false,
  adminGroups: [],
};
const oidc = (over: Partial<Extract<SsoProvider, { type: 'oidc' }>> = {}): SsoProvider => ({
  type: 'oidc',
  key: 'corp',
  name: 'Corp ID',
  enabled: true,
  isDefault: false,
  autoRedirect: false,
  autoCreateUsers: true,
  mapping,
  issuer: 'https://idp.example.com',
  clientId: 'granary',
  scopes: ['openid', 'profile', 'email'],
  usePkce: true,
  clientSecret: '',
  clientSecretSet: true,
  ...stamps,
  ...over,
});
const saml = (): SsoProvider => ({
  type: 'saml',
  key: 'okta',
  name: 'Okta',
  enabled: false,
  isDefault: false,
  autoRedirect: false,
  autoCreateUsers: true,
  mapping,
  idpMetadataUrl: 'https://okta.example.com/metadata',
  idpMetadataXml: null,
  signAuthnRequest: true,
  wantAssertionsSigned: true,
  allowIdpInitiated: false,
  logoutUrl: null,
  spPrivateKey: '',
  spPrivateKeySet: true,
  ...stamps,
});

let puts: { key: string; body: Record<string, unknown> }[];
function providersApi(list: SsoProvider[]) {
  puts = [];
  server.use(
    http.get(apiUrl('sso/providers'), () => HttpResponse.json({ providers: list })),
    http.get(apiUrl('sso/providers/:key'), ({ params }) => {
      const found = list.find((p) => p.key === params.key);
      return found
        ? HttpResponse.json(found)
        : HttpResponse.json({ errors: [{ status: 404, code: 'NOT_FOUND', message: 'no' }] }, { status: 404 });
    }),
    http.put(apiUrl('sso/providers/:key'), async ({ params, request }) => {
      const body = (await request.json()) as Record<string, unknown>;
      puts.push({ key: String(params.key), body });
      const stored: Record<string, unknown> = {
        ...oidc(),
        ...list.find((p) => p.key === params.key),
        ...body,
        key: String(params.key),
      };
      // Secrets are never answered.
      for (const field of ['clientSecret', 'bindPassword', 'spPrivateKey'])
        if (field in stored) stored[field] = '';
      return HttpResponse.json({ created: true, provider: { ...stored, ...stamps } });
    }),
  );
}

beforeEach(() => {
  server.use(http.get(apiUrl('ui/auth/current'), () => HttpResponse.json(userData())));
});
afterEach(() => vi.restoreAllMocks());

describe('issue 20: single sign-on providers list', () => {
  it('shows each provider with its type icon, name, enabled and default', async () => {
    providersApi([oidc({ isDefault: true, autoRedirect: true }), saml()]);
    renderApp('/admin/configuration/sso');
    expect(await screen.findByRole('heading', { level: 1, name: 'Single sign-on' })).toBeTruthy();
    const corp = (await screen.findByRole('link', { name: 'Corp ID' })).closest('tr') as HTMLElement;
    expect(corp.querySelector('[data-icon="oidc"]')).toBeTruthy();
    expect(within(corp).getByText('OpenID Connect')).toBeTruthy();
    expect(within(corp).getByText('Default')).toBeTruthy();
    expect(within(corp).getByText('Auto-redirect')).toBeTruthy();
    expect(within(corp).getByRole('switch', { name: 'Corp ID enabled' }).getAttribute('aria-checked')).toBe(
      'true',
    );
    const okta = screen.getByRole('link', { name: 'Okta' }).closest('tr') as HTMLElement;
    expect(okta.querySelector('[data-icon="saml"]')).toBeTruthy();
    expect(within(okta).getByRole('switch', { name: 'Okta enabled' }).getAttribute('aria-checked')).toBe(
      'false',
    );
    // A disabled provider cannot be the login page's default.
    expect((within(okta).getByRole('button', { name: 'Make default' }) as HTMLButtonElement).disabled).toBe(
      true,
    );
  });

  it('spec 000 §4: "Make default" and the auto-redirect toggle save the provider, its stored secret kept', async () => {
    providersApi([oidc()]);
    renderApp('/admin/configuration/sso');
    fireEvent.click(await screen.findByRole('button', { name: 'Make default' }));
    await waitFor(() => expect(puts).toHaveLength(1));
    expect(puts[0]?.key).toBe('corp');
    expect(puts[0]?.body).toMatchObject({
      type: 'oidc',
      isDefault: true,
      clientSecret: '',
      issuer: 'https://idp.example.com',
    });
    expect(puts[0]?.body).not.toHaveProperty('clientSecretSet');
    expect(puts[0]?.body).not.toHaveProperty('createdAt');

    providersApi([oidc({ isDefault: true })]);
    renderApp('/admin/configuration/sso');
    fireEvent.click(
      await screen.findByRole('switch', { name: 'Send visitors straight to the default provider' }),
    );
    await waitFor(() => expect(puts).toHaveLength(1));
    expect(puts[0]?.body).toMatchObject({ isDefault: true, autoRedirect: true });
    expect(screen.getAllByText(/\/ui\/login\?local=true/).length).toBeGreaterThan(0);
  });
});

describe('issue 20: provider forms', () => {
  it('OpenID Connect: the shared rules refuse a bad key, a missing issuer and client id; a valid one is PUT with its secret', async () => {
    providersApi([]);
    renderApp('/admin/configuration/sso/new?type=oidc');
    expect(
      await screen.findByRole('heading', { level: 1, name: 'New OpenID Connect provider' }),
    ).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Provider key'), { target: { value: 'Bad Key' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByText(SSO_MESSAGES.key)).toBeTruthy();
    expect((await screen.findAllByText(SSO_MESSAGES.mandatory)).length).toBeGreaterThanOrEqual(3);
    expect(puts).toHaveLength(0);

    fireEvent.change(screen.getByLabelText('Provider key'), { target: { value: 'corp' } });
    fireEvent.change(screen.getByLabelText('Display name'), { target: { value: 'Corp ID' } });
    fireEvent.change(screen.getByLabelText('Issuer URL'), { target: { value: 'https://idp.example.com' } });
    fireEvent.change(screen.getByLabelText('Client ID'), { target: { value: 'granary' } });
    fireEvent.change(screen.getByLabelText('Client secret'), { target: { value: 's3cret' } });
    // The redirect URI to register follows the key.
    expect(await screen.findByText('http://localhost/ui/api/v1/sso/corp/callback')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(puts).toHaveLength(1));
    expect(puts[0]).toMatchObject({
      key: 'corp',
      body: {
        type: 'oidc',
        key: 'corp',
        name: 'Corp ID',
        issuer: 'https://idp.example.com',
        clientId: 'granary',
        clientSecret: 's3cret',
        enabled: false,
        scopes: ['openid', 'profile', 'email'],
      },
    });
  });

  it('secrets are write-only: "Stored — type to replace", and an untouched secret is not sent', async () => {
    providersApi([oidc()]);
    renderApp('/admin/configuration/sso/edit/corp');
    const secret = (await screen.findByLabelText('Client secret')) as HTMLInputElement;
    expect(secret.value).toBe('');
    expect(secret.placeholder).toBe('Stored — type to replace');
    expect((screen.getByLabelText('Provider key') as HTMLInputElement).disabled).toBe(true);
    fireEvent.change(screen.getByLabelText('Display name'), { target: { value: 'Corp SSO' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(puts).toHaveLength(1));
    expect(puts[0]?.body.name).toBe('Corp SSO');
    expect(puts[0]?.body).not.toHaveProperty('clientSecret');
  });

  it('SAML: the service provider metadata URL to copy; the identity provider metadata uploaded as XML', async () => {
    providersApi([saml()]);
    renderApp('/admin/configuration/sso/edit/okta');
    expect(await screen.findByText('http://localhost/ui/api/v1/sso/okta/saml/metadata')).toBeTruthy();
    expect(screen.getByText('http://localhost/ui/api/v1/sso/okta/saml/acs')).toBeTruthy();
    fireEvent.click(screen.getByLabelText('Upload or paste the XML'));
    const xml = '<EntityDescriptor entityID="https://okta.example.com"/>';
    await screen.findByText('Upload metadata XML');
    const input = document.querySelector('input[type=file]');
    expect(input).toBeTruthy();
    await act(async () => {
      fireEvent.change(input as HTMLInputElement, {
        target: { files: [new File([xml], 'idp.xml', { type: 'text/xml' })] },
      });
    });
    await waitFor(() =>
      expect((screen.getByLabelText('Metadata XML') as HTMLTextAreaElement).value).toBe(xml),
    );
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(puts).toHaveLength(1));
    expect(puts[0]?.body).toMatchObject({ type: 'saml', idpMetadataXml: xml, idpMetadataUrl: null });
    expect(puts[0]?.body).not.toHaveProperty('spPrivateKey');
  });

  it('"Test sign-in" saves, opens the provider\'s test flow in a popup and shows the mapped user and groups it posts back', async () => {
    providersApi([oidc({ enabled: false })]);
    const popup = { closed: false, close: vi.fn(), location: { href: 'about:blank' } };
    const open = vi.spyOn(window, 'open').mockImplementation(() => popup as unknown as Window);
    renderApp('/admin/configuration/sso/edit/corp');
    fireEvent.click(await screen.findByRole('button', { name: 'Test sign-in' }));
    expect(open).toHaveBeenCalledWith('about:blank', 'granary-sso-test', expect.stringContaining('popup'));
    await waitFor(() => expect(popup.location.href).toBe('http://localhost/ui/api/v1/sso/corp/test'));
    expect(puts[0]?.body).toMatchObject({ enabled: false });
    expect(await screen.findByText('Waiting for the sign-in in the popup window…')).toBeTruthy();

    const result: SsoTestResult = {
      ok: true,
      provider: 'corp',
      realm: 'oauth',
      username: 'alice',
      email: 'alice@example.com',
      groups: ['developers', 'release-managers'],
      admin: false,
    };
    // Another origin's message is not a test result.
    act(() => {
      window.dispatchEvent(
        new MessageEvent('message', {
          origin: 'https://evil.example',
          data: { type: SSO_TEST_MESSAGE_TYPE, result },
        }),
      );
    });
    expect(screen.queryByText('alice')).toBeNull();
    act(() => {
      window.dispatchEvent(
        new MessageEvent('message', {
          origin: window.location.origin,
          data: { type: SSO_TEST_MESSAGE_TYPE, result },
        }),
      );
    });
    expect(
      await screen.findByText('Test sign-in succeeded: this is the user Granary would sign in'),
    ).toBeTruthy();
    const groups = screen.getByLabelText('Mapped groups');
    expect(within(groups).getByText('developers')).toBeTruthy();
    expect(within(groups).getByText('release-managers')).toBeTruthy();
    expect(screen.getByText('alice')).toBeTruthy();
  });

  it('LDAP: "Test connection" saves and shows whether the directory answered', async () => {
    const ldap: SsoProvider = {
      type: 'ldap',
      key: 'corp-ldap',
      name: 'Corp LDAP',
      enabled: true,
      isDefault: false,
      autoRedirect: false,
      autoCreateUsers: true,
      mapping: { ...mapping, usernameClaim: 'uid', emailClaim: 'mail', groupsClaim: 'memberOf' },
      url: 'ldap://127.0.0.1:3890',
      startTls: false,
      bindDn: 'cn=admin,dc=example,dc=com',
      userSearchBase: 'ou=people,dc=example,dc=com',
      userSearchFilter: '(uid={0})',
      groupSearchBase: '',
      groupSearchFilter: '',
      groupMemberAttribute: 'memberOf',
      emailAttribute: 'mail',
      timeoutMs: 5000,
      bindPassword: '',
      bindPasswordSet: true,
      ...stamps,
    };
    providersApi([ldap]);
    server.use(
      http.post(apiUrl('sso/corp-ldap/ldap/test'), () =>
        HttpResponse.json({
          ok: false,
          message: 'The LDAP directory is not reachable: connect ECONNREFUSED',
        }),
      ),
    );
    renderApp('/admin/configuration/sso/edit/corp-ldap');
    fireEvent.change(await screen.findByLabelText('LDAP URL'), { target: { value: 'http://wrong' } });
    fireEvent.click(screen.getByRole('button', { name: 'Test connection' }));
    expect(await screen.findByText(SSO_MESSAGES.ldapUrl)).toBeTruthy();
    fireEvent.change(screen.getByLabelText('LDAP URL'), { target: { value: 'ldap://127.0.0.1:3890' } });
    fireEvent.click(screen.getByRole('button', { name: 'Test connection' }));
    expect(await screen.findByText('Could not connect to the directory')).toBeTruthy();
    expect(screen.getByText(/The LDAP directory is not reachable/)).toBeTruthy();
    expect(puts[0]?.body).not.toHaveProperty('bindPassword');
  });
});
