import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { apiCall, ensureUser, mainAdminPassword, mainBaseURL, signIn } from '../support/console.ts';
import { expect, test } from '../support/fixtures.ts';

const suffix = Date.now().toString(36);
const REPO = `e2e-npm-${suffix}`;
const PKG = `e2e-widget-${suffix}`;
const READER = `pkg-reader-${suffix}`;
const READER_PASSWORD = 'Reader-passw0rd!';

/** Publishes a real package with the real npm CLI (temp userconfig with basic auth against the e2e server). */
function npmPublish(version: string, readme: string) {
  const dir = mkdtempSync(path.join(tmpdir(), 'granary-npm-'));
  try {
    const base = mainBaseURL();
    const registry = `${base}/repository/${REPO}/`;
    const host = registry.replace(/^https?:/, '');
    const auth = Buffer.from(`admin:${mainAdminPassword()}`).toString('base64');
    writeFileSync(
      path.join(dir, '.npmrc'),
      `registry=${registry}\n${host}:_auth=${auth}\n${host}:always-auth=true\n`,
    );
    const pkg = path.join(dir, 'pkg');
    mkdirSync(pkg);
    writeFileSync(
      path.join(pkg, 'package.json'),
      JSON.stringify({
        name: PKG,
        version,
        description: 'A widget published by the packages browser test',
        license: 'MIT',
        keywords: ['e2e', 'widget'],
        main: 'index.js',
        dependencies: { 'left-pad': '^1.3.0' },
      }),
    );
    writeFileSync(path.join(pkg, 'index.js'), 'module.exports = 42;\n');
    writeFileSync(path.join(pkg, 'README.md'), readme);
    execFileSync(
      'npm',
      ['publish', '--userconfig', path.join(dir, '.npmrc'), '--registry', registry, '--ignore-scripts'],
      { cwd: pkg, stdio: 'pipe', env: { ...process.env, npm_config_cache: path.join(dir, 'cache') } },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test.describe
  .serial('packages: published npm packages in the packages screen', () => {
    test.beforeAll(async () => {
      const admin = { user: 'admin', password: mainAdminPassword() };
      await apiCall(mainBaseURL(), admin, 'PUT', `/api/repositories/${REPO}`, {
        rclass: 'local',
        packageType: 'npm',
      });
      npmPublish('1.0.0', `# ${PKG}\n\nThe first widget.\n`);
      npmPublish('1.1.0', `# ${PKG}\n\nWidgets for everyone. <script>window.pwned = true</script>\n`);
      await ensureUser(mainBaseURL(), mainAdminPassword(), READER, READER_PASSWORD);
    });

    test('spec 001 §2: the list shows the published package; drill into package and version (readme first for a tgz lead file); install command copied', async ({
      page,
      context,
      saveScreenshot,
      expectAccessible,
    }) => {
      await context.grantPermissions(['clipboard-read', 'clipboard-write']);
      await signIn(page, mainBaseURL(), 'admin', mainAdminPassword());
      await page.goto('/ui/packages');
      await expect(page.getByRole('heading', { level: 1, name: 'Packages' })).toBeVisible();
      const row = page.getByRole('row', { name: new RegExp(PKG) });
      await expect(row).toBeVisible();
      await expect(row.getByRole('link', { name: '1.1.0' })).toBeVisible();
      await saveScreenshot('packages-list');
      await expectAccessible();

      // Name filter (trailing * added by the server) and the §8 empty message.
      await page.getByRole('searchbox', { name: 'Package name' }).fill('no-such-package-xyz');
      await page.getByRole('searchbox', { name: 'Package name' }).press('Enter');
      await expect(page.getByText('No packages found, please refine your search criteria')).toBeVisible();
      await page.getByRole('searchbox', { name: 'Package name' }).fill(PKG.slice(0, 12));
      await page.getByRole('searchbox', { name: 'Package name' }).press('Enter');
      await expect(page.getByRole('link', { name: PKG })).toBeVisible();

      await page.getByRole('link', { name: PKG }).click();
      await expect(page.getByRole('heading', { level: 1, name: PKG })).toBeVisible();
      await expect(page.getByText('A widget published by the packages browser test')).toBeVisible();
      await expect(page.getByRole('link', { name: '1.0.0' })).toBeVisible();
      // issue 16: scanning runs here; the version is scanned on deploy (no advisories imported in this run yet).
      await expect(page.getByText(/^(Not Scanned|No vulnerabilities)$/).first()).toBeVisible();
      await saveScreenshot('packages-package');
      await expectAccessible();

      await page.getByRole('link', { name: '1.1.0', exact: true }).last().click();
      await expect(page).toHaveURL(/\/ui\/packages\/npm%3A%2F%2F.+\/1\.1\.0$/);
      await expect(page.getByRole('tab', { name: 'Readme', selected: true })).toBeVisible();
      const readme = page.getByTestId('readme');
      await expect(readme).toContainText('Widgets for everyone.');
      // Sanitised: the script is text, never run.
      await expect(readme).toContainText('<script>');
      expect(await page.evaluate(() => (window as { pwned?: boolean }).pwned)).toBeUndefined();

      const install = page.getByRole('region', { name: 'Install command' });
      await expect(install).toContainText(`npm install ${PKG}@1.1.0`);
      await install.getByRole('button', { name: 'Copy install command' }).click();
      await expect(install.getByRole('button', { name: 'Copy install command' })).toContainText('Copied');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`npm install ${PKG}@1.1.0`);
      await saveScreenshot('packages-version-readme');
      await expectAccessible();

      await page.getByRole('tab', { name: /Files/ }).click();
      await expect(page.getByRole('cell', { name: `${PKG}-1.1.0.tgz lead` })).toBeVisible();
      await expect(page.getByText('SHA-256')).toBeVisible();
      await page.getByRole('tab', { name: 'Dependencies' }).click();
      await expect(page.getByRole('cell', { name: 'left-pad' })).toBeVisible();
      await saveScreenshot('packages-version-deps');
    });

    test('spec 001 §4: toolbar search goes to the packages list and is kept in recent searches', async ({
      page,
    }) => {
      await signIn(page, mainBaseURL(), 'admin', mainAdminPassword());
      const box = page.getByRole('textbox', { name: 'Search' });
      await box.fill('e2');
      await box.press('Enter');
      await expect(page).not.toHaveURL(/\/packages\?q=/);
      await box.fill(`${PKG.slice(0, 10)} pkg:npm`);
      await box.press('Enter');
      await expect(page).toHaveURL(/\/ui\/packages\?q=/);
      await expect(page.getByRole('link', { name: PKG })).toBeVisible();
      await page.getByRole('button', { name: 'Recent searches' }).click();
      await expect(
        page.getByRole('menuitem', { name: new RegExp(`${PKG.slice(0, 10)} pkg:npm`) }),
      ).toBeVisible();
    });

    test('spec 001 §6: a user without read permission on the repository never sees its packages (API and screen)', async ({
      page,
      saveScreenshot,
    }) => {
      const answer = (await apiCall(
        mainBaseURL(),
        { user: READER, password: READER_PASSWORD },
        'POST',
        '/ui/api/v1/packages',
        { query: `{ packages(name: "${PKG}") { edges { node { name } } } }` },
      )) as { data: { packages: { edges: unknown[] } } };
      expect(answer.data.packages.edges).toEqual([]);
      await signIn(page, mainBaseURL(), READER, READER_PASSWORD);
      await page.goto(`/ui/packages?name=${PKG}`);
      // Empty either way: no package found, or (issue 22) no repository visible to this user at all.
      await expect(
        page.getByText(
          /No packages found, please refine your search criteria|No repository is visible to you/,
        ),
      ).toBeVisible();
      await expect(page.getByRole('link', { name: PKG })).toHaveCount(0);
      await saveScreenshot('packages-reader-empty');
    });
  });
