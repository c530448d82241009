import type { APIRequestContext, Page } from '@playwright/test';
import { expect, test } from '../support/fixtures.ts';
import { type Mailbox, startMailbox } from '../support/mailbox.ts';

/**
 * Accounts walk: an invitation mailed through a real loopback SMTP server, self-registration, a CLI signing
 * in through the console (the test plays the CLI with fetch), and a non-admin changing their own email.
 */

const adminPassword = () => {
  const password = process.env.GRANARY_E2E_ADMIN_PASSWORD;
  if (!password) throw new Error('GRANARY_E2E_ADMIN_PASSWORD is not set: the global setup did not run');
  return password;
};
const adminAuth = () => ({
  authorization: `Basic ${Buffer.from(`admin:${adminPassword()}`).toString('base64')}`,
});
const PASSWORD = 'Accounts-Str0ng-Pw!';

async function createUser(request: APIRequestContext, name: string) {
  await request.delete(`/api/security/users/${name}`, { headers: adminAuth() });
  const res = await request.put(`/api/security/users/${name}`, {
    headers: adminAuth(),
    data: { email: `${name}@example.com`, password: PASSWORD },
  });
  expect(res.status(), await res.text()).toBe(201);
}

async function signIn(page: Page, user: string, password: string) {
  await page.getByLabel('Username').fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function currentUser(page: Page): Promise<{ name?: string; email?: string | null }> {
  return (await page.request.get('/ui/api/v1/ui/auth/current')).json();
}

test.describe('accounts', () => {
  test.describe('invitation through a real mail', () => {
    let mailbox: Mailbox;
    test.beforeAll(async ({ request }) => {
      mailbox = await startMailbox();
      const res = await request.patch('/api/security/configuration', {
        headers: adminAuth(),
        data: {
          mail: { enabled: true, host: mailbox.host, port: mailbox.port, from: 'granary@example.com' },
        },
      });
      expect(res.status(), await res.text()).toBe(200);
    });
    test.afterAll(async ({ request }) => {
      await request.patch('/api/security/configuration', {
        headers: adminAuth(),
        data: { mail: { enabled: false } },
      });
      await mailbox?.close();
    });

    test('spec 000 §2 invitation: the admin invites, the mailed link opens the set-password form, the new user is signed in', async ({
      page,
      request,
      saveScreenshot,
      expectAccessible,
    }) => {
      await request.delete('/api/security/users/invitee', { headers: adminAuth() });
      const invite = await request.post('/api/security/invitations', {
        headers: adminAuth(),
        data: { email: 'invitee@example.com' },
      });
      expect(invite.status(), await invite.text()).toBe(201);
      const mail = await mailbox.waitFor('invitee@example.com');
      const link = /https?:\/\/\S+\/ui\/login\/invitation\?token=[A-Za-z0-9_-]{43}/.exec(mail.text)?.[0];
      expect(link, mail.text).toBeDefined();

      await page.goto(link!);
      await expect(page.getByText('invitee@example.com')).toBeVisible();
      await expect(page.getByLabel('Username')).toHaveValue('invitee');
      await saveScreenshot('invitation');
      await expectAccessible();
      await page.getByLabel('New password', { exact: true }).fill(PASSWORD);
      await page.getByLabel('Confirm new password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Create account' }).click();
      await expect(page).not.toHaveURL(/\/login/);
      await expect.poll(async () => (await currentUser(page)).name).toBe('invitee');
      expect((await currentUser(page)).email).toBe('invitee@example.com');

      // The link works once: a second visit says so.
      await page.context().clearCookies();
      await page.goto(link!);
      await expect(page.getByText('The invitation is invalid or has expired')).toBeVisible();

      // A token of the wrong format goes back to sign in.
      await page.goto('/ui/login/invitation?token=nope');
      await expect(page).toHaveURL(/\/ui\/login$/);
      await expect(page.getByRole('heading', { name: 'Sign in to Granary' })).toBeVisible();
    });
  });

  test('spec 000 §2 registration: shown from login only while the admin allows it; a visitor creates an account and is signed in', async ({
    page,
    request,
    saveScreenshot,
    expectAccessible,
  }) => {
    const toggle = (selfRegistration: boolean) =>
      request.patch('/api/security/configuration', { headers: adminAuth(), data: { selfRegistration } });
    await request.delete('/api/security/users/newcomer', { headers: adminAuth() });
    await page.goto('/ui/login');
    await expect(page.getByRole('heading', { name: 'Sign in to Granary' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Create an account' })).toHaveCount(0);
    expect((await toggle(true)).status()).toBe(200);
    try {
      await page.goto('/ui/login');
      await page.getByRole('link', { name: 'Create an account' }).click();
      await expect(page).toHaveURL(/\/ui\/login\/registration/);
      // The URL changes at once, but the sign-in form (with its own Username field) stays until the
      // registration page's chunk has loaded: filling before the heading shows typed into the old form.
      await expect(page.getByRole('heading', { name: 'Create an account' })).toBeVisible();
      await page.getByLabel('Username').fill('newcomer');
      await page.getByLabel('Email address').fill('newcomer@example.com');
      await page.getByLabel('New password', { exact: true }).fill(PASSWORD);
      await page.getByLabel('Confirm new password').fill(PASSWORD);
      await saveScreenshot('registration');
      await expectAccessible();
      await page.getByRole('button', { name: 'Create account' }).click();
      await expect(page).not.toHaveURL(/\/login/);
      await expect.poll(async () => (await currentUser(page)).name).toBe('newcomer');
    } finally {
      await toggle(false);
    }
  });

  test('spec 000 §2 cli-registration: the CLI opens a session, the user signs in and confirms, the CLI receives a token once', async ({
    page,
    request,
    baseURL,
    saveScreenshot,
    expectAccessible,
  }) => {
    await createUser(request, 'cli-user');
    // The CLI: plain fetch, no browser.
    const opened = await fetch(`${baseURL}/api/security/cli-registrations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client: 'granary-cli e2e' }),
    });
    expect(opened.status).toBe(201);
    const { session, code, url } = (await opened.json()) as { session: string; code: string; url: string };
    const poll = () => fetch(`${baseURL}/api/security/cli-registrations/${session}`);
    expect((await poll()).status).toBe(202);

    await page.goto(url);
    await expect(page).toHaveURL(/\/ui\/login\?redirectTo=/);
    await signIn(page, 'cli-user', PASSWORD);
    await expect(page).toHaveURL(/\/ui\/login\/cli-registration\?session=/);
    await expect(page.getByText(code)).toBeVisible();
    await expect(page.getByText('granary-cli e2e')).toBeVisible();
    await saveScreenshot('cli-registration');
    await expectAccessible();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect(page.getByText('The command-line client is signed in')).toBeVisible();
    await saveScreenshot('cli-registration-done');

    const delivered = await poll();
    expect(delivered.status).toBe(200);
    const body = (await delivered.json()) as { username: string; access_token: string };
    expect(body.username).toBe('cli-user');
    const asCli = await fetch(`${baseURL}/ui/api/v1/ui/auth/current`, {
      headers: { authorization: `Bearer ${body.access_token}` },
    });
    expect(((await asCli.json()) as { name: string }).name).toBe('cli-user');
    expect((await poll()).status).toBe(404);
  });

  test('profile: a non-admin changes their own email with the current password', async ({
    page,
    request,
    saveScreenshot,
    expectAccessible,
  }) => {
    await createUser(request, 'selfserve');
    await page.goto('/ui/login');
    await signIn(page, 'selfserve', PASSWORD);
    await expect.poll(async () => (await currentUser(page)).name).toBe('selfserve');
    await page.goto('/ui/admin/artifactory/user_profile');
    const personal = page
      .locator('.ant-card')
      .filter({ has: page.getByRole('heading', { name: 'Personal information' }) });
    await personal.getByLabel('Email address').fill('selfserve@new.example.com');
    await personal.getByLabel('Current password').fill(PASSWORD);
    await personal.getByRole('button', { name: 'Save email' }).click();
    await expect(page.getByText('Email address saved')).toBeVisible();
    await saveScreenshot('profile-self-service');
    await expectAccessible();
    const stored = await request.get('/api/security/users/selfserve', { headers: adminAuth() });
    expect((await stored.json()).email).toBe('selfserve@new.example.com');
  });

  test('spec 000 §2 sso-login and my-jfrog-redirect: with nothing configured, clear pages', async ({
    page,
    saveScreenshot,
    expectAccessible,
  }) => {
    await page.goto('/ui/login/sso/saml');
    await expect(page.getByText('Single sign-on is not configured for saml')).toBeVisible();
    await saveScreenshot('sso-not-configured');
    await expectAccessible();
    await page.getByRole('link', { name: /Sign in with a user name and password/ }).click();
    await expect(page.getByRole('heading', { name: 'Sign in to Granary' })).toBeVisible();
    await page.goto('/ui/user/my-jfrog-redirect');
    await expect(page.getByText('No account portal is configured for this server')).toBeVisible();
  });
});
