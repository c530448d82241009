import { createHash, randomBytes } from 'node:crypto';
import { apiCall, mainAdminPassword, mainBaseURL, signIn } from '../support/console.ts';
import { expect, test } from '../support/fixtures.ts';

/**
 * Issue 19: the builds and release-bundles screens against the real server. A Maven jar and POM are deployed by
 * REST, then a realistic build-info (JFrog CLI style: modules, artifacts with checksums, dependencies with
 * requestedBy chains, env properties, vcs, issues) is PUT to /api/build unchanged. In the browser: builds list →
 * run → promotion dialog (dry run, then copy to a release repository) → the version's Builds tab; then a release
 * bundle made from that build in the create wizard → promoted to an environment → its details.
 */
const suffix = Date.now().toString(36);
const GROUP = `com.acme.e2e${suffix}`;
const ARTIFACT = 'webapp';
const VERSION = '1.0.0';
const LIBS = `e2e-bb-libs-${suffix}`;
const RELEASE = `e2e-bb-release-${suffix}`;
const PROD = `e2e-bb-prod-${suffix}`;
const BUILD = `webapp-maven-${suffix}`;
const BUNDLE = `webapp-${suffix}`;
const KEY = `e2e-release-key-${suffix}`;
const DEV_ENV = `DEV-${suffix}`.toUpperCase(); // the server keeps environment names upper case
const PROD_ENV = `PROD-${suffix}`.toUpperCase();

const admin = () => ({ user: 'admin', password: mainAdminPassword() });
const digests = (bytes: Buffer) => ({
  sha1: createHash('sha1').update(bytes).digest('hex'),
  sha256: createHash('sha256').update(bytes).digest('hex'),
  md5: createHash('md5').update(bytes).digest('hex'),
});

async function deploy(repo: string, path: string, bytes: Buffer): Promise<void> {
  const { user, password } = admin();
  const response = await fetch(`${mainBaseURL()}/repository/${repo}/${path}`, {
    method: 'PUT',
    headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` },
    body: new Uint8Array(bytes),
  });
  if (!response.ok) throw new Error(`PUT ${repo}/${path}: ${response.status} ${await response.text()}`);
}

const pom = Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>${GROUP}</groupId>
  <artifactId>${ARTIFACT}</artifactId>
  <version>${VERSION}</version>
  <packaging>jar</packaging>
  <description>The web application the builds test publishes</description>
  <dependencies>
    <dependency><groupId>org.apache.commons</groupId><artifactId>commons-lang3</artifactId><version>3.14.0</version></dependency>
  </dependencies>
</project>
`);
const jar = randomBytes(4096);
const groupPath = GROUP.replaceAll('.', '/');
const POM_PATH = `${groupPath}/${ARTIFACT}/${VERSION}/${ARTIFACT}-${VERSION}.pom`;
const JAR_PATH = `${groupPath}/${ARTIFACT}/${VERSION}/${ARTIFACT}-${VERSION}.jar`;
const dep = (seed: string) => digests(Buffer.from(seed));

/** A build-info as the JFrog CLI (`jf mvn … --build-name --build-number`, then `jf rt bp`) publishes it. */
function buildInfo(number: string, started: string) {
  const moduleId = `${GROUP}:${ARTIFACT}:${VERSION}`;
  return {
    version: '1.0.1',
    name: BUILD,
    number,
    type: 'MAVEN',
    buildAgent: { name: 'Maven', version: '3.8.7' },
    agent: { name: 'jfrog-cli-go', version: '2.52.8' },
    started,
    durationMillis: 83_412,
    principal: 'ci-bot',
    url: `https://ci.example.com/job/webapp/${number}/`,
    vcs: [
      {
        url: 'https://git.example.com/acme/webapp.git',
        revision: 'd3adb33fd3adb33fd3adb33fd3adb33fd3adb33f',
        branch: 'main',
        message: 'Release 1.0.0',
      },
    ],
    properties: {
      'buildInfo.env.CI': 'true',
      'buildInfo.env.JAVA_HOME': '/usr/lib/jvm/java-17-openjdk-amd64',
      'buildInfo.env.GIT_BRANCH': 'main',
    },
    modules: [
      {
        properties: { 'maven.compiler.target': '17' },
        type: 'maven',
        id: moduleId,
        repository: LIBS,
        artifacts: [
          {
            type: 'jar',
            name: `${ARTIFACT}-${VERSION}.jar`,
            path: JAR_PATH,
            originalDeploymentRepo: LIBS,
            ...digests(jar),
          },
          {
            type: 'pom',
            name: `${ARTIFACT}-${VERSION}.pom`,
            path: POM_PATH,
            originalDeploymentRepo: LIBS,
            ...digests(pom),
          },
        ],
        dependencies: [
          {
            type: 'jar',
            id: 'org.apache.commons:commons-lang3:3.14.0',
            scopes: ['compile'],
            requestedBy: [[moduleId]],
            ...dep('commons-lang3-3.14.0'),
          },
          {
            type: 'jar',
            id: 'org.hamcrest:hamcrest-core:1.3',
            scopes: ['test'],
            requestedBy: [['junit:junit:4.13.2', moduleId]],
            ...dep('hamcrest-core-1.3'),
          },
          {
            type: 'jar',
            id: 'junit:junit:4.13.2',
            scopes: ['test'],
            requestedBy: [[moduleId]],
            ...dep('junit-4.13.2'),
          },
        ],
      },
    ],
    issues: {
      tracker: { name: 'JIRA', version: '' },
      aggregateBuildIssues: false,
      affectedIssues: [
        {
          key: 'WEB-101',
          url: 'https://jira.example.com/browse/WEB-101',
          summary: 'Sign-in fails',
          aggregated: false,
        },
      ],
    },
  };
}

test.describe
  .serial('builds and release bundles (issue 19)', () => {
    test.beforeAll(async () => {
      test.setTimeout(60_000);
      const base = mainBaseURL();
      for (const key of [LIBS, RELEASE, PROD])
        await apiCall(base, admin(), 'PUT', `/api/repositories/${key}`, {
          rclass: 'local',
          packageType: 'maven',
        });
      await deploy(LIBS, POM_PATH, pom);
      await deploy(LIBS, JAR_PATH, jar);
      await apiCall(base, admin(), 'PUT', '/api/build', buildInfo('41', '2030-03-01T09:00:00.000+0000'));
      await apiCall(base, admin(), 'PUT', '/api/build', buildInfo('42', '2030-03-02T09:00:00.000+0000'));
      await apiCall(base, admin(), 'POST', '/api/security/keypair', {
        pairName: KEY,
        algorithm: 'curve25519',
      });
      await apiCall(base, admin(), 'POST', '/access/api/v1/environments', {
        name: DEV_ENV,
        rank: 1,
        repositories: [RELEASE],
      });
      await apiCall(base, admin(), 'POST', '/access/api/v1/environments', {
        name: PROD_ENV,
        rank: 2,
        repositories: [PROD],
      });
    });

    test('issue 19: builds list → run details → promotion dialog (dry run, then copy) → the version Builds tab', async ({
      page,
      saveScreenshot,
    }) => {
      test.setTimeout(120_000);
      await signIn(page, mainBaseURL(), 'admin', mainAdminPassword());
      await page.goto(`/ui/builds?q=${encodeURIComponent(BUILD)}`);
      await expect(page.getByRole('link', { name: BUILD })).toBeVisible({ timeout: 20_000 });
      const row = page.getByRole('row', { name: new RegExp(BUILD) });
      await expect(row.getByRole('link', { name: '#42' })).toBeVisible();
      await saveScreenshot('builds-list');
      await row.getByRole('link', { name: BUILD }).click();
      await expect(page.getByRole('heading', { level: 1, name: BUILD })).toBeVisible();
      await page.getByRole('link', { name: '#42' }).click();
      await expect(page.getByRole('heading', { level: 1, name: `${BUILD} #42` })).toBeVisible();
      await expect(page.getByRole('link', { name: `${LIBS}/${JAR_PATH}` })).toBeVisible();

      await page.getByRole('tab', { name: 'Dependencies' }).click();
      const hamcrest = page.getByRole('row', { name: /hamcrest-core/ });
      await expect(hamcrest.getByText(`junit:junit:4.13.2 ← ${GROUP}:${ARTIFACT}:${VERSION}`)).toBeVisible();
      await saveScreenshot('builds-run-dependencies');

      await page.getByRole('button', { name: 'Promote' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Comment').fill('QA signed off');
      const target = dialog.getByRole('combobox', { name: 'Target repository' });
      await target.fill(RELEASE);
      await target.press('Enter');
      await dialog.getByRole('button', { name: /Dry run$/ }).click();
      await expect(dialog.getByText('Dry run passed: the promotion can be made')).toBeVisible();
      await expect(dialog.getByRole('list', { name: 'Promotion messages' })).toBeVisible();
      await saveScreenshot('builds-promote-dry-run');
      await dialog.getByRole('checkbox', { name: /Dry run/ }).uncheck();
      await dialog.getByRole('button', { name: /Promote$/ }).click();
      await expect(dialog.getByText('Promotion done')).toBeVisible();
      await dialog.getByRole('button', { name: 'Close' }).first().click();
      await page.getByRole('tab', { name: 'Release History' }).click();
      await expect(page.getByText('QA signed off')).toBeVisible();

      await page.goto(`/ui/packages/${encodeURIComponent(`maven://${GROUP}:${ARTIFACT}`)}/${VERSION}`);
      await page.getByRole('tab', { name: 'Builds' }).click();
      const produced = page.getByRole('row', { name: new RegExp(`${BUILD}.*42`) });
      await expect(produced.getByText('Produced')).toBeVisible();
      await saveScreenshot('builds-version-tab');
      await produced.getByRole('link', { name: BUILD }).click();
      await expect(page).toHaveURL(new RegExp(`/ui/builds/${BUILD}/42$`));
    });

    test('issue 19: create a release bundle from the build → promote it to an environment → bundle details', async ({
      page,
      saveScreenshot,
    }) => {
      test.setTimeout(120_000);
      await signIn(page, mainBaseURL(), 'admin', mainAdminPassword());
      await page.goto('/ui/bundles/source');
      await expect(page.getByRole('tab', { name: 'Source', selected: true })).toBeVisible();
      await page.getByRole('button', { name: /Create Release Bundle/ }).click();
      const wizard = page.getByRole('dialog');
      await wizard.getByLabel('Name').fill(BUNDLE);
      await wizard.getByLabel('Version').fill('1.0 beta');
      await wizard.getByRole('combobox', { name: 'Signing key' }).click();
      await page.locator(`.ant-select-item-option[title^="${KEY} "]`).click();
      await wizard.getByRole('button', { name: 'Next' }).click();
      await expect(wizard.getByText('Only letters, digits, "_", "." and "-"')).toBeVisible();
      await wizard.getByLabel('Version').fill('1.0.0');
      await wizard.getByRole('button', { name: 'Next' }).click();
      await wizard.getByText('Builds', { exact: true }).click();
      await wizard.getByRole('combobox', { name: 'Build name' }).click();
      await page.locator(`.ant-select-item-option[title="${BUILD}"]`).click();
      await wizard.getByRole('combobox', { name: 'Build number' }).click();
      await page.locator('.ant-select-item-option[title="#42"]').click();
      await wizard.getByRole('button', { name: 'Add build' }).click();
      await expect(wizard.getByText(`${BUILD} #42`)).toBeVisible();
      await saveScreenshot('bundles-wizard-source');
      await wizard.getByRole('button', { name: 'Next' }).click();
      await wizard.getByRole('button', { name: /Create$/ }).click();

      await expect(page).toHaveURL(new RegExp(`/ui/bundles/source/${BUNDLE}/1\\.0\\.0$`));
      await expect(page.getByRole('heading', { name: `${BUNDLE} 1.0.0` })).toBeVisible();
      await expect(page.getByRole('cell', { name: JAR_PATH })).toBeVisible();

      await page.getByRole('button', { name: 'Promote' }).click();
      const promote = page.getByRole('dialog');
      await promote.getByRole('combobox', { name: 'Environment' }).click();
      // The option in the open list, not the selected value (which carries the same title once chosen).
      await page.locator(`.ant-select-item-option[title="${DEV_ENV}"]`).click();
      await expect(promote.getByRole('combobox', { name: 'Environment' }).locator('..')).toContainText(
        DEV_ENV,
      );
      await promote.getByRole('button', { name: /Promote$/ }).click();
      await expect(promote).toBeHidden();
      await page.getByRole('tab', { name: 'Promotions' }).click();
      const promotion = page.getByRole('row', { name: new RegExp(DEV_ENV) });
      await expect(promotion.getByText('COMPLETED')).toBeVisible();
      await saveScreenshot('bundles-details-promotions');
      await page.getByRole('tab', { name: 'Signature' }).click();
      await expect(page.getByText(KEY, { exact: true })).toBeVisible();
      await saveScreenshot('bundles-details-signature');
    });
  });
