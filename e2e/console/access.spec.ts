import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Page } from '@playwright/test';
import { expect, test } from '../support/fixtures.ts';
import { ROOT } from '../support/server.ts';

const adminPassword = () => {
  const password = process.env.GRANARY_E2E_ADMIN_PASSWORD;
  if (!password) throw new Error('GRANARY_E2E_ADMIN_PASSWORD is not set: the global setup did not run');
  return password;
};

async function signIn(page: Page, user: string, password: string) {
  await page.getByLabel('Username').fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

test.describe('access: login, admin users, logout', () => {
  // The wrong-password flow is covered by the console's unit tests (LoginPage.test.tsx) but left out here: the
  // server answers a failed console login with `WWW-Authenticate: Basic`, which makes a browser open its own
  // credentials dialog (headless Chromium waits on it) instead of handing the 401 to the page.
  test('spec 000 §4: an anonymous admin is sent to login (with the not-authorized notice), then lands where they came from, notice gone', async ({
    page,
    saveScreenshot,
    expectAccessible,
  }) => {
    await page.goto('/ui/admin/management/users');

    await expect(page).toHaveURL(/\/ui\/login\?redirectTo=%2Fadmin%2Fmanagement%2Fusers$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Sign in to Granary' })).toBeVisible();
    await expect(page).toHaveTitle('Sign in - Granary');
    await expect(page.getByRole('checkbox', { name: 'Remember me' })).toBeChecked();
    await expect(page.getByRole('link', { name: 'Forgot password?' })).toBeVisible();
    await saveScreenshot('login');
    await expectAccessible();

    await signIn(page, 'admin', adminPassword());
    await expect(page).toHaveURL(/\/ui\/admin\/management\/users$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Users' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'admin', exact: true })).toBeVisible();
    await expect(page.getByRole('banner').getByRole('button', { name: /admin/ }).first()).toBeVisible();
    // The notice that sent the visitor to sign in no longer applies once they have.
    await expect(page.getByText('You are not authorized to view this page')).toHaveCount(0);
    await saveScreenshot('admin-users');
    await expectAccessible();

    // The session survives a reload (HTTP-only cookie), and login now sends a signed-in user on.
    await page.reload();
    await expect(page.getByRole('heading', { level: 1, name: 'Users' })).toBeVisible();
    await page.goto('/ui/login?redirectTo=%2Fadmin%2Fmanagement%2Fgroups');
    await expect(page.getByRole('heading', { level: 1, name: 'Groups' })).toBeVisible();
  });

  test('an admin creates user u1 from the user menu, finds it in the list, and signs out', async ({
    page,
    saveScreenshot,
    expectAccessible,
  }) => {
    await page.goto('/ui/login');
    await signIn(page, 'admin', adminPassword());
    await expect(page).toHaveURL(/\/ui\/packages$/);

    await page.getByRole('banner').getByRole('button', { name: /admin/ }).click();
    await page.getByRole('menuitem', { name: 'New User' }).click();
    await expect(page).toHaveURL(/\/ui\/admin\/management\/users\/new$/);
    await expect(page.getByRole('heading', { level: 1, name: 'New User' })).toBeVisible();

    await page.getByRole('button', { name: 'Create User' }).click();
    await expect(page.getByText('This field is mandatory')).toHaveCount(2);
    await page.getByLabel('User name').fill('u1');
    await page.getByLabel('Email address').fill('u1@example.com');
    await page.getByLabel('Password', { exact: true }).fill('U1-Str0ng-Passw0rd');
    await page.getByLabel('Confirm password').fill('U1-Str0ng-Passw0rd');
    await saveScreenshot('admin-user-new');
    await expectAccessible();
    await page.getByRole('button', { name: 'Create User' }).click();

    await expect(page).toHaveURL(/\/ui\/admin\/management\/users$/);
    await expect(page.getByText('User u1 created')).toBeVisible();
    await page.getByRole('searchbox', { name: 'Search users' }).fill('u1');
    await expect(page.getByRole('link', { name: 'u1', exact: true })).toBeVisible();
    await expect(page.getByRole('link', { name: 'admin', exact: true })).toHaveCount(0);

    await page.getByRole('link', { name: 'u1', exact: true }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Edit u1' })).toBeVisible();
    await expect(page.getByLabel('Email address')).toHaveValue('u1@example.com');
    await saveScreenshot('admin-user-edit');
    await expectAccessible();
    await page.getByLabel('Email address').fill('u1@corp.example');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('User u1 saved')).toBeVisible();
    const saved = (await (await page.request.get('/api/security/users/u1')).json()) as { email: string };
    expect(saved.email).toBe('u1@corp.example');

    await page.getByRole('banner').getByRole('button', { name: /admin/ }).click();
    // The menu opens with an animation: click once it has settled where the user sees it.
    const logout = page.getByRole('menuitem', { name: 'Logout' });
    await expect(logout).toBeVisible();
    await expect(logout).toBeInViewport();
    await logout.click();
    await expect(page.getByRole('heading', { level: 1, name: 'Sign in to Granary' })).toBeVisible();
    await expect(page).toHaveURL(/\/ui\/login$/);

    // Signed out for real: the server no longer knows the session.
    const current = await page.request.get('/ui/api/v1/ui/auth/current');
    expect(((await current.json()) as { anonymous: boolean }).anonymous).toBe(true);
    await page.goto('/ui/admin/management/users');
    await expect(page).toHaveURL(/\/ui\/login\?redirectTo=/);

    // The new user signs in with the password the admin set: the admin-only path is not followed (spec 000 §4),
    // and opening an admin page says so.
    await signIn(page, 'u1', 'U1-Str0ng-Passw0rd');
    await expect(page).toHaveURL(/\/ui\/packages$/);
    await expect(page.getByRole('banner').getByRole('button', { name: /u1/ })).toBeVisible();
    await page.goto('/ui/admin/management/users');
    await expect(page.getByText('You are not authorized to view this page')).toBeVisible();
    await expect(page).toHaveURL(/\/ui\/packages$/);
    await saveScreenshot('not-authorized');
  });

  test('groups and permissions screens: a permission with a users × actions matrix', async ({
    page,
    saveScreenshot,
    expectAccessible,
  }) => {
    await page.goto('/ui/login?redirectTo=%2Fadmin%2Fmanagement%2Fgroups%2Fnew');
    await signIn(page, 'admin', adminPassword());
    await expect(page.getByRole('heading', { level: 1, name: 'New Group' })).toBeVisible();
    await page.getByLabel('Group name').fill('developers');
    await page.getByLabel('Description').fill('Everyone who builds');
    await page.getByRole('button', { name: 'Create Group' }).click();
    await expect(page.getByRole('link', { name: 'developers' })).toBeVisible();
    await saveScreenshot('admin-groups');
    await expectAccessible();

    await page.goto('/ui/admin/management/permissions/create');
    await page.getByLabel('Permission name').fill('dev-deploy');
    await page.getByRole('tab', { name: 'Groups' }).click();
    await page.getByRole('combobox', { name: 'Add a group' }).click();
    await page.getByTitle('developers').click();
    await page.getByRole('checkbox', { name: 'Deploy/Cache for developers' }).check();
    await saveScreenshot('admin-permission-matrix');
    await expectAccessible();
    await page.getByRole('tab', { name: 'Resources' }).click();
    await saveScreenshot('admin-permission-resources');
    await page.getByRole('button', { name: 'Create Permission' }).click();
    await expect(page).toHaveURL(/\/ui\/admin\/management\/permissions$/);
    await expect(page.getByRole('link', { name: 'dev-deploy' })).toBeVisible();

    const stored = await page.request.get('/api/security/permissions/dev-deploy');
    expect(stored.ok()).toBe(true);
    const target = (await stored.json()) as { repo: { actions: { groups: Record<string, string[]> } } };
    expect(target.repo.actions.groups.developers).toEqual(['read', 'write']);
  });

  test('edit profile: the identity token is generated and copied', async ({
    page,
    context,
    saveScreenshot,
    expectAccessible,
  }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.goto('/ui/admin/artifactory/user_profile');
    await expect(page).toHaveURL(/\/ui\/login\?redirectTo=%2Fadmin%2Fartifactory%2Fuser_profile/);
    await signIn(page, 'admin', adminPassword());
    await expect(page.getByRole('heading', { level: 1, name: 'Edit Profile' })).toBeVisible();
    await expect(page).toHaveTitle('Edit Profile - Granary');
    await page.getByLabel('Token description').fill('e2e laptop');
    await page.getByRole('button', { name: 'Generate and copy' }).click();
    await expect(page.getByText('Copied to clipboard')).toBeVisible();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied.length).toBeGreaterThan(20);
    await expect(page.getByText(copied, { exact: true })).toBeVisible();

    // The copied token works as the password of the REST API.
    const basic = Buffer.from(`admin:${copied}`).toString('base64');
    const answer = await page.request.get('/api/security/users/admin', {
      headers: { authorization: `Basic ${basic}` },
    });
    expect(answer.status()).toBe(200);
    await saveScreenshot('profile');
    await expectAccessible();
  });

  test('spec 001 §5: projects are created with a key that starts with a lowercase character', async ({
    page,
    saveScreenshot,
    expectAccessible,
  }) => {
    await page.goto('/ui/login?redirectTo=%2Fadmin%2Fprojects%2Flist');
    await signIn(page, 'admin', adminPassword());
    await expect(page.getByRole('heading', { level: 1, name: 'Projects' })).toBeVisible();
    await page.getByRole('button', { name: /New Project/ }).click();
    const dialog = page.getByRole('dialog', { name: 'New Project' });
    await dialog.getByLabel('Project name').fill('Team A');
    await dialog.getByLabel('Project key').fill('Team-a');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect(dialog.getByText('Project key must start with a lowercase character')).toBeVisible();
    await saveScreenshot('admin-project-key-rule');
    await expectAccessible();
    await dialog.getByLabel('Project key').fill('team-a');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('cell', { name: 'team-a', exact: true })).toBeVisible();
    await saveScreenshot('admin-projects');
    await expectAccessible();
  });

  test('spec 000 §8: a reset link with an unknown key says "Failed to reset the password"; forgot password shows the answer', async ({
    page,
    saveScreenshot,
    expectAccessible,
  }) => {
    await page.goto('/ui/auth/reset-password?key=not-a-real-key');
    await expect(page.getByText('Failed to reset the password')).toBeVisible();
    await expect(page.getByText('The reset link is invalid or has expired')).toBeVisible();
    await saveScreenshot('reset-password-invalid-key');
    await expectAccessible();

    await page.getByRole('link', { name: 'Ask for a new link' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Forgot your password?' })).toBeVisible();
    await page.getByLabel('Username').fill('admin');
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Password reset requested' })).toBeVisible();
    await saveScreenshot('forgot-password-sent');
    await expectAccessible();
  });

  test('the login route loads less than 300 KB of JavaScript (gzip)', async ({ page }) => {
    const scripts = new Set<string>();
    page.on('response', (response) => {
      if (response.request().resourceType() === 'script') scripts.add(new URL(response.url()).pathname);
    });
    await page.goto('/ui/login');
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await page.waitForLoadState('networkidle');

    let total = 0;
    for (const script of scripts) {
      const file = path.join(ROOT, 'apps/console/dist', script.replace(/^\/ui\//, ''));
      total += gzipSync(readFileSync(file)).length;
    }
    test.info().annotations.push({ type: 'login-js-gzip-bytes', description: String(total) });
    console.log(`login route: ${scripts.size} scripts, ${(total / 1024).toFixed(1)} KB gzip`);
    expect(total).toBeLessThan(300 * 1024);
  });
});
