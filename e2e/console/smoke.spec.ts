import { mainAdminPassword, signIn } from '../support/console.ts';
import { expect, test } from '../support/fixtures.ts';

interface Version {
  version: string;
  revision: string;
}

test.describe('console smoke', () => {
  test('the home page at /ui/ shows the version and revision the server reports', async ({
    page,
    request,
    saveScreenshot,
    expectAccessible,
  }) => {
    const answer = await request.get('/api/system/version');
    expect(answer.ok()).toBe(true);
    const server = (await answer.json()) as Version;

    const consoleErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    await page.goto('/ui/overview');

    await expect(page).toHaveTitle('Overview - Granary');
    await expect(page.getByRole('heading', { level: 1, name: 'Granary' })).toBeVisible();
    await expect(page.getByText(`v${server.version}`, { exact: true })).toBeVisible();
    const versionRow = page
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: 'Version' }) });
    await expect(versionRow.getByRole('cell')).toHaveText(server.version);
    const revisionRow = page
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: 'Revision' }) });
    await expect(revisionRow.getByRole('cell')).toContainText(server.revision);
    await expect(page.getByRole('alert')).toHaveCount(0);

    await saveScreenshot('home');
    await expectAccessible();
    expect(consoleErrors).toEqual([]);
  });

  test('spec 000 §7 Loader: scripts come from /ui/js/ and stylesheets from /ui/css/', async ({ page }) => {
    const assets: { type: string; path: string }[] = [];
    page.on('response', (response) => {
      const type = response.request().resourceType();
      if (type === 'script' || type === 'stylesheet') {
        assets.push({ type, path: new URL(response.url()).pathname });
        expect(response.status(), response.url()).toBe(200);
      }
    });
    await page.goto('/ui/overview');
    await expect(page.getByRole('heading', { level: 1, name: 'Granary' })).toBeVisible();

    expect(assets.some((a) => a.type === 'script')).toBe(true);
    expect(assets.some((a) => a.type === 'stylesheet')).toBe(true);
    for (const asset of assets) {
      expect(asset.path).toMatch(
        asset.type === 'script' ? /^\/ui\/js\/[\w-]+-[\w-]{8}\.js$/ : /^\/ui\/css\/[\w-]+-[\w-]{8}\.css$/,
      );
    }
  });

  test('spec 000 §1: a deep link under /ui/ survives a reload and shows the in-app not-found page', async ({
    page,
    saveScreenshot,
    expectAccessible,
  }) => {
    const response = await page.goto('/ui/some/unknown/path');
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toContain('text/html');

    const notFound = page.getByRole('heading', { level: 1, name: 'Page not found' });
    await expect(notFound).toBeVisible();
    await expect(page.getByText('/ui/some/unknown/path', { exact: true })).toBeVisible();
    await expect(page).toHaveTitle('Page not found - Granary');

    await page.reload();
    await expect(notFound).toBeVisible();
    await expect(page.getByRole('link', { name: 'Granary home' })).toBeVisible();
    await saveScreenshot('not-found');
    await expectAccessible();

    // spec 000 §2: / redirects to packages; §4: an anonymous visitor arriving at the root goes to login.
    await page.getByRole('button', { name: 'Back to home' }).click();
    const signIn = page.getByRole('heading', { level: 1, name: 'Sign in to Granary' });
    await expect(signIn).toBeVisible();
    await expect(page).toHaveURL(/\/ui\/login$/);
    await page.reload();
    await expect(signIn).toBeVisible();
    await expect(page).toHaveURL(/\/ui\/login$/);
  });

  test('the home page reads well on a phone-sized screen', async ({
    page,
    saveScreenshot,
    expectAccessible,
  }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/ui/overview');
    await expect(page.getByRole('row').filter({ hasText: 'Version' })).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await saveScreenshot('home-mobile');
    await expectAccessible();
  });

  test('issue 12 §22: the console runs under its Content-Security-Policy with no violation', async ({
    page,
    baseURL,
  }) => {
    // every violation the page reports, by its DOM event and by the console line Chromium writes
    const violations: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) violations.push(message.text());
    });
    await page.exposeFunction('reportCspViolation', (text: string) => violations.push(text));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        const report = (window as unknown as { reportCspViolation: (t: string) => void }).reportCspViolation;
        report(`${e.violatedDirective} blocked ${e.blockedURI} (${e.sourceFile}:${e.lineNumber})`);
      });
    });

    const first = await page.goto('/ui/overview');
    const csp = first?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(first?.headers()['x-frame-options']).toBe('DENY');
    await expect(page.getByRole('heading', { level: 1, name: 'Granary' })).toBeVisible();

    await signIn(page, baseURL!, 'admin', mainAdminPassword());
    const screens: [string, () => Promise<void>][] = [
      ['/ui/packages', () => expect(page).toHaveTitle(/^Packages - /)],
      ['/ui/repos/tree/General', () => expect(page).toHaveTitle(/^Artifacts - /)],
      [
        '/ui/admin/repositories/new',
        () => expect(page.getByRole('heading', { name: 'New Repository' })).toBeVisible(),
      ],
      [
        '/ui/admin/management/users',
        () => expect(page.getByRole('heading', { name: 'Users' })).toBeVisible(),
      ],
    ];
    for (const [url, shown] of screens) {
      await page.goto(url);
      await shown();
      await page.waitForLoadState('networkidle');
    }
    expect(violations).toEqual([]);
  });
});
