import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Locator } from '@playwright/test';
import { writeOciLayout } from '../../apps/server/src/formats/docker/oci-testing.ts';
import { httpPublish } from '../../apps/server/src/formats/npm/test-support.ts';
import { apiCall, ensureUser, mainAdminPassword, mainBaseURL, signIn } from '../support/console.ts';
import { expect, test } from '../support/fixtures.ts';

/**
 * Issue 22, "What a user sees": each visual fix on the main server, with real content (skopeo for the image,
 * npm's publish document for the package), screenshotted for a person to look at.
 */

const run = promisify(execFile);
const suffix = Date.now().toString(36);
const DOCKER_REPO = `e2e-defects-docker-${suffix}`;
const NPM_REPO = `e2e-defects-npm-${suffix}`;
const IMAGE = `demo-image-${suffix}`;
const LAYERS = [300_000, 750_000];
const USER = `e2e-defects-${suffix}`;
const USER_PASSWORD = 'Defects-pa55word!';

const admin = () => ({ user: 'admin', password: mainAdminPassword() });
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** The gap on screen between two buttons of a region, the first left of the second. */
async function gapBetween(region: Locator, left: string, right: string): Promise<number> {
  const a = await region.locator('button', { hasText: left }).boundingBox();
  const b = await region.locator('button', { hasText: right }).boundingBox();
  if (!a || !b) throw new Error('buttons not on screen');
  return b.x - (a.x + a.width);
}

test.describe
  .serial('issue 22: what a user sees', () => {
    // each test walks three screens with axe on each
    test.describe.configure({ timeout: 120_000 });
    let work: string;
    let configSize = 0;

    test.beforeAll(async () => {
      work = await mkdtemp(path.join(tmpdir(), 'granary-e2e-defects-'));
      const base = mainBaseURL();
      await apiCall(base, admin(), 'PUT', `/api/repositories/${DOCKER_REPO}`, {
        rclass: 'local',
        packageType: 'docker',
      });
      await apiCall(base, admin(), 'PUT', `/api/repositories/${NPM_REPO}`, {
        rclass: 'local',
        packageType: 'npm',
      });
      const layout = path.join(work, 'image');
      const image = await writeOciLayout(layout, '1.0.0', [{ arch: 'amd64', layerSizes: LAYERS }]);
      configSize = JSON.parse(image.top.toString()).config.size;
      await run(
        'skopeo',
        [
          '--insecure-policy',
          'copy',
          '--dest-tls-verify=false',
          '--dest-creds',
          `admin:${mainAdminPassword()}`,
          `oci:${layout}:1.0.0`,
          `docker://${new URL(base).host}/${DOCKER_REPO}/${IMAGE}:1.0.0`,
        ],
        { timeout: 60_000 },
      );
      const published = await httpPublish(
        `${base}/repository/${NPM_REPO}`,
        basic('admin', mainAdminPassword()),
        {
          name: 'widget',
          version: '1.0.0',
          description: 'a widget',
        },
      );
      expect(published.status).toBeLessThan(300);
      await ensureUser(base, mainAdminPassword(), USER, USER_PASSWORD);
    });
    test.afterAll(async () => {
      await rm(work, { recursive: true, force: true });
    });

    test('issue 22: catalogue entries say "Not available on this instance" beside themselves; the docker version shows the image size and a pull command with host and repository; checksums stay on one line; internal folders are hidden', async ({
      page,
      saveScreenshot,
      expectAccessible,
    }) => {
      await signIn(page, mainBaseURL(), 'admin', mainAdminPassword());

      // 1. A licence without projects (OSS), as the licence call answers it: Projects is disabled, with its reason
      // beside it, covering no other entry.
      await page.route(/\/ui\/api\/v1\/system\/licenses$/, async (route) => {
        const response = await route.fetch();
        await route.fulfill({ response, json: { ...(await response.json()), type: 'OSS' } });
      });
      await page.goto('/ui/admin/artifactory/list');
      const reason = page.getByText('Not available on this instance: Projects need a commercial licence');
      await expect(reason).toBeVisible();
      await expect(page.getByText('Arrives with a later issue')).toHaveCount(0);
      // every link of the card stays clickable: nothing lies over "Single sign-on", the entry above Projects
      await page.getByRole('link', { name: 'Single sign-on' }).click({ trial: true, timeout: 2000 });
      await page.mouse.move(0, 0); // not hovered (a hovered link is lighter) for the screenshot and axe
      await saveScreenshot('issue22-catalogue-disabled');
      await expectAccessible();
      await page.unroute(/\/ui\/api\/v1\/system\/licenses$/);

      // 3. The docker version: the image's size (config + layers), and the command that pulls from here.
      await page.goto(`/ui/packages?type=docker&name=${encodeURIComponent(IMAGE)}`);
      await page.getByRole('link', { name: IMAGE, exact: true }).click();
      await page.getByRole('link', { name: '1.0.0', exact: true }).first().click();
      const host = new URL(mainBaseURL()).host;
      await expect(page.getByRole('region', { name: 'Install command' })).toContainText(
        `docker pull ${host}/${DOCKER_REPO}/${IMAGE}:1.0.0`,
      );
      // config + layers = 1,050,000 bytes and the config's few hundred: 1.0 MB (the manifest alone was "5xx B")
      expect(configSize + LAYERS[0]! + LAYERS[1]!).toBeLessThan(1.05 * 1024 * 1024);
      await expect(page.getByText('2 layers', { exact: true })).toBeVisible();
      await expect(page.locator('.ant-descriptions-item-content', { hasText: /^1\.0 MB$/ })).toBeVisible();
      await saveScreenshot('issue22-docker-version');
      await expectAccessible();

      // 4. A file's SHA-256 on one line, monospace and ellipsised, with its copy button; the npm tree without `.npm`.
      await page.goto(`/ui/repos/tree/General/${NPM_REPO}/widget/-/widget-1.0.0.tgz`);
      await expect(page.getByRole('heading', { level: 2, name: 'widget-1.0.0.tgz' })).toBeVisible();
      const sha = page.locator('.artifact-checksums .copyable-value-text').first();
      await expect(sha).toBeVisible();
      const box = await sha.boundingBox();
      expect(box?.height ?? 99).toBeLessThan(30); // one line
      expect(await sha.evaluate((el) => getComputedStyle(el).textOverflow)).toBe('ellipsis');
      await expect(page.getByRole('button', { name: 'Copy SHA256' })).toBeVisible();
      // the value and its copy button inside the details card, not past its edge
      const pane = await page.locator('.artifact-checksums').boundingBox();
      const copySha = await page.getByRole('button', { name: 'Copy SHA256' }).boundingBox();
      expect((copySha?.x ?? 1e4) + (copySha?.width ?? 0)).toBeLessThanOrEqual(
        (pane?.x ?? 0) + (pane?.width ?? 0),
      );
      const tree = page.getByRole('navigation', { name: 'Repository tree' });
      await expect(tree.getByRole('treeitem', { name: /folder widget$/ })).toBeVisible();
      await expect(tree.getByRole('treeitem', { name: /\.npm/ })).toHaveCount(0);
      await saveScreenshot('issue22-artifact-checksums');
      await expectAccessible();
    });

    test('issue 22: a user who can read no repository is told so and whom to ask; the profile spaces its API key buttons, hides Reset authenticator until one is set up, and keeps the MFA key inside its card', async ({
      page,
      saveScreenshot,
      expectAccessible,
    }) => {
      await signIn(page, mainBaseURL(), USER, USER_PASSWORD);

      // 2. Packages: no "No packages found" under a spinner; why the list is empty, and whom to ask.
      await page.goto('/ui/packages');
      await expect(
        page.getByText('No repository is visible to you, so there are no packages to show.'),
      ).toBeVisible();
      await expect(
        page.getByText('Ask an administrator to give you read permission on a repository.'),
      ).toBeVisible();
      await expect(page.getByText('No packages found, please refine your search criteria')).toHaveCount(0);
      await saveScreenshot('issue22-packages-nothing-readable');
      await expectAccessible();

      // 6. Profile: no red Reset authenticator before one is set up; Create a new API key and Revoke apart.
      await page.goto('/ui/admin/artifactory/user_profile');
      await expect(page.getByRole('button', { name: 'Set up authenticator' })).toBeVisible();
      await expect(page.getByRole('button', { name: 'Reset authenticator' })).toHaveCount(0);
      const apiKey = page.locator('.ant-card', { has: page.getByRole('heading', { name: 'API key' }) });
      // (the profile's forms share field ids, so the label would find another card's input)
      await apiKey.locator('input[type="password"]').fill(USER_PASSWORD);
      await apiKey.getByRole('button', { name: 'Create API key' }).click();
      await expect(apiKey.getByText('Your new API key')).toBeVisible();
      await expect(apiKey.getByRole('button', { name: 'Revoke', exact: true })).toBeVisible();
      // antd's small space is 8 px (sub-pixel rounding: 7.86 px seen); polled, as the buttons settle after
      // the key appears (4.3 px measured mid-layout)
      await expect
        .poll(() => gapBetween(apiKey, 'Create a new API key', 'Revoke'))
        .toBeGreaterThanOrEqual(7.5);

      // 5. MFA enrolment: the key wraps inside the card, its copy button on the key's line.
      await page.getByRole('button', { name: 'Set up authenticator' }).click();
      const key = page.locator('.mfa-enrolment-key');
      await expect(key.getByRole('button', { name: 'Copy key' })).toBeVisible();
      const card = await page
        .locator('.ant-card', { has: page.getByRole('heading', { name: 'Two-step verification' }) })
        .boundingBox();
      const keyBox = await key.boundingBox();
      const copyBox = await key.getByRole('button', { name: 'Copy key' }).boundingBox();
      const text = await key.locator('.copyable-value-text').boundingBox();
      if (!card || !keyBox || !copyBox || !text) throw new Error('MFA key not on screen');
      expect(keyBox.x + keyBox.width).toBeLessThanOrEqual(card.x + card.width - 16);
      // the copy button beside the key, not on a line of its own under it
      expect(copyBox.y).toBeLessThan(text.y + text.height);
      await saveScreenshot('issue22-profile');
      await expectAccessible();
    });

    test('issue 22 / spec 000 §8: a screen that fails to load keeps its ChunkLoadError texts, says what happened, and Retry loads it', async ({
      page,
      saveScreenshot,
      expectAccessible,
    }) => {
      await signIn(page, mainBaseURL(), 'admin', mainAdminPassword());
      const chunk = /\/ui\/js\/TeaserPage-[\w-]+\.js$/;
      await page.route(chunk, (route) => route.abort());
      await page.goto('/ui/topology-teaser');
      await expect(page.getByText('Error: failed resolving microfrontend')).toBeVisible();
      await expect(page.getByText('ChunkLoadError: Loading chunk failed')).toBeVisible();
      await expect(page.getByText(/This part of the console could not be downloaded/)).toBeVisible();
      await saveScreenshot('issue22-load-failure');
      await expectAccessible();
      await page.unroute(chunk);
      await page.getByRole('button', { name: 'Retry' }).click();
      await expect(page.getByText('Error: failed resolving microfrontend')).toHaveCount(0);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    });
  });
