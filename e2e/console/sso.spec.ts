import { createServer, type RequestListener, type Server } from 'node:http';
import path from 'node:path';
import { startTestIdp, type TestIdp } from '../../apps/server/src/modules/access/sso/saml-test-idp.ts';
import { apiCall, mainAdminPassword, openUserMenu, signIn } from '../support/console.ts';
import { expect, test } from '../support/fixtures.ts';
import { freePort, ROOT, type RunningServer, startServer } from '../support/server.ts';

/**
 * Issue 20 / spec 000 §2, §3, §4, §6: single sign-on in the console against a real OpenID Connect identity provider,
 * `oidc-provider` (apps/server's devDependency, hoisted to the root node_modules; it ships no types) started here on
 * a free loopback port with its own login form. An admin creates the provider (Test sign-in shows the mapped groups
 * in a popup), a fresh browser signs in through the login page's provider link and lands signed in with its
 * groups, then auto-redirect sends visitors straight to the provider while `?local=true` keeps the password form.
 */
const CLIENT_SECRET = 'e2e-oidc-client-secret';
const DIRECTORY: Record<string, string[]> = {
  alice: ['developers', 'release-managers'],
  bob: ['developers', 'qa'],
};

type OidcProvider = new (issuer: string, config: Record<string, unknown>) => { callback(): RequestListener };

let granary: RunningServer;
let idp: Server;
let samlIdp: TestIdp;
let issuer = '';

async function startIdp(callback: string): Promise<void> {
  const moduleName = 'oidc-provider';
  const { default: Provider } = (await import(moduleName)) as { default: OidcProvider };
  const port = await freePort();
  issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'granary',
        client_secret: CLIENT_SECRET,
        redirect_uris: [callback],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    cookies: { keys: ['e2e-oidc-cookie-key'] },
    claims: { openid: ['sub'], profile: ['preferred_username'], email: ['email'], groups: ['groups'] },
    scopes: ['openid', 'profile', 'email', 'groups'],
    conformIdTokenClaims: false,
    findAccount: async (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: async () => ({
        sub: id,
        preferred_username: id,
        email: `${id}@corp.example`,
        groups: DIRECTORY[id] ?? [],
      }),
    }),
  });
  idp = createServer(provider.callback());
  await new Promise<void>((resolve) => idp.listen(port, '127.0.0.1', resolve));
}

/** oidc-provider's own login form, then its consent form. */
async function signInAtIdp(page: import('@playwright/test').Page, login: string): Promise<void> {
  await expect(page).toHaveURL(new RegExp(`^${issuer}/interaction/`));
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

test.describe
  .serial('single sign-on (issue 20, spec 000 §2 sso-login, §3 oauthProviders, §4 auto-redirect)', () => {
    test.beforeAll(async () => {
      test.setTimeout(120_000);
      // A server of its own that may reach the identity provider on loopback (the outbound allow-list).
      granary = await startServer({
        adminPassword: mainAdminPassword(),
        logFile: path.join(ROOT, 'e2e/test-results/server-sso.log'),
        env: { GRANARY_OUTBOUND_ALLOWLIST: '127.0.0.1' },
      });
      await startIdp(`${granary.baseURL}/ui/api/v1/sso/corp/callback`);
      samlIdp = await startTestIdp();
    });
    test.afterAll(async () => {
      await granary?.stop();
      await samlIdp?.close();
      if (idp) await new Promise((resolve) => idp.close(resolve));
    });

    test('issue 20: an admin creates an OpenID Connect provider; Test sign-in shows the mapped user and groups', async ({
      page,
      saveScreenshot,
    }) => {
      test.setTimeout(120_000);
      await signIn(page, granary.baseURL, 'admin', mainAdminPassword());
      await page.goto(`${granary.baseURL}/ui/admin/artifactory/list`);
      await page.getByRole('link', { name: 'Single sign-on' }).click();
      await expect(page.getByRole('heading', { level: 1, name: 'Single sign-on' })).toBeVisible();
      await page.getByRole('button', { name: /New provider/ }).click();
      await page.getByRole('menuitem', { name: 'OpenID Connect' }).click();
      await expect(
        page.getByRole('heading', { level: 1, name: 'New OpenID Connect provider' }),
      ).toBeVisible();

      await page.getByRole('button', { name: 'Create' }).click();
      await expect(page.getByText('This field is mandatory').first()).toBeVisible();
      await page.getByLabel('Provider key').fill('corp');
      await page.getByLabel('Display name').fill('Corp ID');
      await page.getByLabel('Issuer URL').fill(issuer);
      await page.getByLabel('Client ID').fill('granary');
      await page.getByLabel('Client secret').fill(CLIENT_SECRET);
      const scopes = page.getByRole('combobox', { name: 'Scopes' });
      await scopes.fill('groups');
      await scopes.press('Enter');
      await page.getByRole('switch', { name: 'Create missing groups' }).click();
      await expect(page.getByText(`${granary.baseURL}/ui/api/v1/sso/corp/callback`)).toBeVisible();

      const popupOpened = page.waitForEvent('popup');
      await page.getByRole('button', { name: 'Test sign-in' }).click();
      const popup = await popupOpened;
      await signInAtIdp(popup, 'alice');
      await expect(popup.getByRole('heading', { name: 'Test sign-in: corp' })).toBeVisible();
      await popup.close();

      await expect(
        page.getByText('Test sign-in succeeded: this is the user Granary would sign in'),
      ).toBeVisible();
      const groups = page.getByLabel('Mapped groups');
      await expect(groups.getByText('developers')).toBeVisible();
      await expect(groups.getByText('release-managers')).toBeVisible();
      await expect(page.getByText('alice@corp.example', { exact: true })).toBeVisible();
      // Test sign-in stored the provider: the page now edits it.
      await expect(page.getByRole('heading', { level: 1, name: 'Edit Corp ID' })).toBeVisible();
      // The secret is stored now: write-only, the field says so.
      await expect(page.getByLabel('Client secret')).toHaveAttribute(
        'placeholder',
        'Stored — type to replace',
      );
      await saveScreenshot('sso-provider-test-sign-in');

      await page.getByRole('switch', { name: 'Enabled' }).click();
      await page.getByRole('button', { name: 'Save' }).click();
      const row = page.getByRole('row', { name: /Corp ID/ });
      await expect(row.getByRole('switch', { name: 'Corp ID enabled' })).toBeChecked();
      await expect(row.getByText('OpenID Connect')).toBeVisible();
    });

    test("spec 000 §2, §3: a fresh browser signs in through the login page's provider link and lands with its groups; §6 API key without a password", async ({
      browser,
      saveScreenshot,
    }) => {
      test.setTimeout(120_000);
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(
        `${granary.baseURL}/ui/login?redirectTo=${encodeURIComponent('/admin/artifactory/user_profile')}`,
      );
      const link = page.getByRole('link', { name: 'Sign in with Corp ID' });
      await expect(link).toBeVisible();
      await expect(link.locator('[data-icon="openid"]')).toHaveCount(1);
      await saveScreenshot('sso-login-provider-link', page);

      await link.click();
      await signInAtIdp(page, 'bob');
      await expect(page).toHaveURL(/\/ui\/admin\/artifactory\/user_profile$/);
      await expect(page.getByRole('heading', { level: 1, name: 'Edit Profile' })).toBeVisible();
      await expect(page.getByText('developers, qa')).toBeVisible();
      await expect(page.getByText('oauth', { exact: true })).toBeVisible();

      // spec 000 §6: an OAuth user gets an API key without typing a password (there is none).
      await expect(page.getByLabel('Current password')).toHaveCount(0);
      await page.getByRole('button', { name: 'Create API key' }).click();
      await expect(page.getByText('Your new API key')).toBeVisible();
      await saveScreenshot('sso-signed-in-profile', page);
      await context.close();
    });

    test("issue 20 SAML 2.0: a browser signs in through the login page's SAML link (signed AuthnRequest, signed assertion); §4 signing out goes through the IdP's single logout", async ({
      browser,
      saveScreenshot,
    }) => {
      test.setTimeout(120_000);
      // The SAML provider (IdP metadata read by URL); its SP metadata is what the IdP trusts.
      await apiCall(
        granary.baseURL,
        { user: 'admin', password: mainAdminPassword() },
        'PUT',
        '/ui/api/v1/sso/providers/corp-saml',
        {
          type: 'saml',
          name: 'Corp SAML',
          enabled: true,
          idpMetadataUrl: samlIdp.metadataUrl,
          autoCreateUsers: true,
          mapping: {
            usernameClaim: 'uid',
            emailClaim: 'mail',
            groupsClaim: 'groups',
            createMissingGroups: true,
            adminGroups: [],
          },
        },
      );
      const spMetadata = await (
        await fetch(`${granary.baseURL}/ui/api/v1/sso/corp-saml/saml/metadata`)
      ).text();
      samlIdp.serveBrowser(spMetadata, {
        carol: { uid: 'carol', mail: 'carol@corp.example', groups: ['auditors'] },
      });

      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(
        `${granary.baseURL}/ui/login?redirectTo=${encodeURIComponent('/admin/artifactory/user_profile')}`,
      );
      const link = page.getByRole('link', { name: 'Sign in with SAML SSO' });
      await expect(link).toBeVisible();
      await link.click();
      // At the identity provider, which has checked the AuthnRequest's signature before showing its form.
      await expect(page).toHaveURL(
        new RegExp(`^${samlIdp.entityId.replace('/metadata', '/sso')}\\?SAMLRequest=`),
      );
      await page.getByLabel('User name').fill('carol');
      await page.getByRole('button', { name: 'Sign in at the IdP' }).click();
      // The signed assertion is posted to the ACS; the RelayState brings the user back where they were going.
      await expect(page).toHaveURL(/\/ui\/admin\/artifactory\/user_profile$/);
      await expect(page.getByRole('heading', { level: 1, name: 'Edit Profile' })).toBeVisible();
      await expect(page.getByText('saml', { exact: true })).toBeVisible();
      await expect(page.getByText('auditors')).toBeVisible();
      await saveScreenshot('sso-saml-signed-in-profile', page);

      // Signing out: the console session ends, the browser goes through the IdP's single logout with a
      // LogoutRequest for this user, and comes back to the login form.
      expect(await openUserMenu(page, 'carol')).toContain('Logout');
      await page.getByRole('banner').getByRole('button', { name: /carol/ }).click();
      const logout = page.getByRole('menuitem', { name: 'Logout' });
      await expect(logout).toBeInViewport();
      await logout.click();
      await expect(page).toHaveURL(/\/ui\/login$/);
      await expect(page.getByRole('heading', { level: 1, name: 'Sign in to Granary' })).toBeVisible();
      const [logoutRequest] = samlIdp.logoutRequests.slice(-1);
      expect(logoutRequest?.get('SAMLRequest')).toBeTruthy();
      const current = await page.request.get(`${granary.baseURL}/ui/api/v1/ui/auth/current`);
      expect(current.status() === 401 || ((await current.json()) as { anonymous: boolean }).anonymous).toBe(
        true,
      );
      await context.close();
    });

    test('spec 000 §4: auto-redirect sends visitors to the default provider; ?local=true keeps the password form', async ({
      page,
      browser,
      saveScreenshot,
    }) => {
      test.setTimeout(120_000);
      await signIn(page, granary.baseURL, 'admin', mainAdminPassword());
      await page.goto(`${granary.baseURL}/ui/admin/configuration/sso`);
      await page
        .getByRole('row', { name: /Corp ID/ })
        .getByRole('button', { name: 'Make default' })
        .click();
      await page.getByRole('switch', { name: 'Send visitors straight to the default provider' }).click();
      await expect(page.getByRole('row', { name: /Corp ID/ }).getByText('Auto-redirect')).toBeVisible();
      await saveScreenshot('sso-providers-list');

      const context = await browser.newContext();
      const visitor = await context.newPage();
      await visitor.goto(`${granary.baseURL}/ui/login`);
      await expect(visitor).toHaveURL(new RegExp(`^${issuer}/interaction/`));

      // The escape hatch: an administrator still signs in with a password when the provider is down.
      await visitor.goto(`${granary.baseURL}/ui/login?local=true`);
      await expect(visitor.getByRole('heading', { name: 'Sign in to Granary' })).toBeVisible();
      await expect(visitor.getByRole('link', { name: 'Sign in with Corp ID' })).toBeVisible();
      await saveScreenshot('sso-login-escape-hatch', visitor);
      await visitor.getByLabel('Username').fill('admin');
      await visitor.getByLabel('Password').fill(mainAdminPassword());
      await visitor.getByRole('button', { name: 'Sign in', exact: true }).click();
      await expect(visitor).toHaveURL(/\/ui\/(?!login)/);
      await context.close();
    });
  });
