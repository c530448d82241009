import { randomUUID } from 'node:crypto';
import { apiCall, mainAdminPassword, signIn } from '../support/console.ts';
import { expect, test } from '../support/fixtures.ts';

/**
 * Issue 15 / spec 000 §2 `proxies/configuration` (list, new, edit/{proxyName}), spec 001 §3 reverse proxy
 * settings: a proxy created in the console against the real server is listed, its password is never shown again
 * (the edit form's field is empty), and the reverse proxy tab shows the nginx configuration the server generates.
 */
test.describe('proxies (issue 15, spec 000 §2 proxies/configuration)', () => {
  test('issue 15: create a proxy, see it listed, edit it with the password field empty; the nginx snippet appears', async ({
    page,
    baseURL,
    saveScreenshot,
    expectAccessible,
  }) => {
    const key = `e2e-proxy-${randomUUID().slice(0, 8)}`;
    await signIn(page, baseURL!, 'admin', mainAdminPassword());

    // Reachable from the admin catalogue card.
    await page.goto('/ui/admin/artifactory/list');
    await page.getByRole('link', { name: 'Proxies' }).click();
    await expect(page).toHaveURL(/\/ui\/admin\/proxies\/configuration$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Proxies' })).toBeVisible();

    await page.getByRole('button', { name: 'New Proxy' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'New Proxy' })).toBeVisible();
    await page.getByRole('button', { name: 'Create' }).click();
    await expect(page.getByText('This field is mandatory')).toHaveCount(3);
    await page.getByLabel('Proxy key').fill(key);
    await page.getByLabel('Host', { exact: true }).fill('proxy.example.com');
    await page.getByLabel('Port', { exact: true }).fill('3128');
    await page.getByLabel('User name').fill('svc-granary');
    await page.getByLabel('Password', { exact: true }).fill('E2e-Proxy-Pa55');
    await saveScreenshot('operations-proxies-form');
    await page.getByRole('button', { name: 'Create' }).click();

    await expect(page).toHaveURL(/\/ui\/admin\/proxies\/configuration$/);
    const row = page.getByRole('row').filter({ hasText: key });
    await expect(row.getByText('proxy.example.com:3128')).toBeVisible();
    await expect(row.getByText('svc-granary')).toBeVisible();
    await saveScreenshot('operations-proxies-list');
    await expectAccessible();

    // Write-only: the edit form never shows the stored password.
    await row.getByRole('button', { name: `Edit ${key}` }).click();
    await expect(page.getByRole('heading', { level: 1, name: `Edit ${key}` })).toBeVisible();
    await expect(page.getByLabel('Password', { exact: true })).toHaveValue('');
    await expect(page.getByText('A password is stored. Leave this empty to keep it.')).toBeVisible();
    await expect(page.getByLabel('Proxy key')).toHaveValue(key);
    await saveScreenshot('operations-proxies-edit');
    const stored = (await apiCall(
      baseURL!,
      { user: 'admin', password: mainAdminPassword() },
      'GET',
      `/api/proxies/${key}`,
    )) as {
      passwordSet: boolean;
      password: string;
    };
    expect(stored).toMatchObject({ passwordSet: true, password: '' });

    // The reverse proxy tab: settings and the generated nginx configuration.
    await page.goto('/ui/admin/proxies/configuration?tab=reverse-proxy');
    await page.getByLabel('Server name').fill('repo.example.com');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Reverse proxy settings saved')).toBeVisible();
    const snippet = page.getByLabel('nginx configuration');
    await expect(snippet).toHaveValue(/server_name repo\.example\.com;/);
    await expect(snippet).toHaveValue(/client_max_body_size 0;/);
    await expect(page.getByRole('button', { name: /Copy/ })).toBeEnabled();
    await saveScreenshot('operations-proxies-reverse');
    await expectAccessible();

    await apiCall(
      baseURL!,
      { user: 'admin', password: mainAdminPassword() },
      'DELETE',
      `/api/proxies/${key}`,
    );
  });
});
