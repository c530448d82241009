import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import yazl from 'yazl';
import { apiCall, signIn } from '../support/console.ts';
import { expect, test } from '../support/fixtures.ts';
import { freePort, ROOT, type RunningServer, startServer } from '../support/server.ts';

/**
 * Issue 17 acceptance (spec 000 §4 quick-start wizard): on a FRESH server, an admin picks a package type in the
 * wizard, the quick repositories are created, and the REAL clients run the commands the page shows, configured with
 * what the page hands out (.npmrc and pip.conf from the page, the identity token from its copy button, settings.xml
 * from its download). Each step's completion message appears on its own (the console polls), and Done lands on
 * /packages with the published package.
 *
 * Nothing needs the internet. The quick remotes' upstreams (GRANARY_ONBOARDING_UPSTREAMS):
 * - npm and docker: a closed loopback port, so the server places its generated trial content (the
 *   jfrog-trial-sum-example package, the hello-world image) in the quick local repository;
 * - pypi: a tiny PEP 503 index served by this test that holds one wheel named `twine` (built here), so
 *   `pip install twine` resolves through the virtual and the remote;
 * - maven: Debian's /usr/share/maven-repo served over loopback HTTP by this test (the plugins mvn needs), with the
 *   trial junit 4.11 placed in the local repository (GRANARY_ONBOARDING_TRIAL_CONTENT=always).
 */

const PASSWORD = 'Onboarding-e2e-Passw0rd!';
const MAVEN_REPO = '/usr/share/maven-repo';
/** Plugin versions Debian's packages install in /usr/share/maven-repo (as in packages-formats.spec.ts). */
const MAVEN_PLUGINS = {
  'maven-resources-plugin': '3.3.0',
  'maven-compiler-plugin': '3.10.1',
  'maven-surefire-plugin': '2.22.3',
  'maven-jar-plugin': '3.3.0',
  'maven-install-plugin': '3.1.0',
  'maven-deploy-plugin': '3.0.0',
};

let server: RunningServer;
let upstreams: Server[] = [];
let work: string;

/** The clients' environment: this run's npm/pip settings removed, HOME in the test's folder. */
function clientEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(npm_|PIP_)/i.test(k)) env[k] = v;
  return {
    ...env,
    HOME: home,
    NO_UPDATE_NOTIFIER: '1',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    npm_config_update_notifier: 'false',
    PIP_DISABLE_PIP_VERSION_CHECK: '1',
    ...extra,
  };
}

/** Runs a client or a shell script of the page's commands; a failure shows the client's output. */
function run(cmd: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      args,
      { ...options, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) =>
        err
          ? reject(new Error(`${cmd} ${args.join(' ')}: ${err.message}\n${stdout}\n${stderr}`.slice(0, 8000)))
          : resolve(`${stdout}\n${stderr}`),
    );
  });
}
/** The page's commands, run as the user would paste them into a terminal. */
const bash = (script: string, cwd: string, env: NodeJS.ProcessEnv) =>
  run('bash', ['-euo', 'pipefail', '-c', script], { cwd, env });

/** An HTTP server on a free loopback port. */
async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const port = await freePort();
  const s = createServer(handler);
  await new Promise<void>((resolve) => s.listen(port, '127.0.0.1', resolve));
  upstreams.push(s);
  return `http://127.0.0.1:${port}`;
}

/** A pure-Python wheel named `twine` (the PyPI flow's download package), laid out as the packaging tools do. */
async function twineWheel(version: string): Promise<{ filename: string; bytes: Buffer }> {
  const distInfo = `twine-${version}.dist-info`;
  const files: [string, string][] = [
    ['twine_offline_standin.py', '"""A stand-in for twine on a machine without internet."""\n'],
    [
      `${distInfo}/METADATA`,
      `Metadata-Version: 2.1\nName: twine\nVersion: ${version}\nSummary: Offline stand-in\n`,
    ],
    [
      `${distInfo}/WHEEL`,
      'Wheel-Version: 1.0\nGenerator: granary-e2e\nRoot-Is-Purelib: true\nTag: py3-none-any\n',
    ],
  ];
  const hash = (text: string) => `sha256=${createHash('sha256').update(text).digest('base64url')}`;
  const record = `${files.map(([n, d]) => `${n},${hash(d)},${Buffer.byteLength(d)}`).join('\n')}\n${distInfo}/RECORD,,\n`;
  files.push([`${distInfo}/RECORD`, record]);
  const zip = new yazl.ZipFile();
  for (const [n, d] of files) zip.addBuffer(Buffer.from(d), n, { mtime: new Date('2024-01-01T00:00:00Z') });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return { filename: `twine-${version}-py3-none-any.whl`, bytes: Buffer.concat(chunks) };
}

/** A PEP 503 simple index holding only the twine stand-in. */
async function pypiUpstream(): Promise<string> {
  const whl = await twineWheel('6.0.0');
  const sha = createHash('sha256').update(whl.bytes).digest('hex');
  return listen((req, res) => {
    const url = (req.url ?? '').split('?')[0];
    if (url === '/simple/twine/' || url === '/simple/twine') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<!DOCTYPE html><html><body><a href="../../packages/${whl.filename}#sha256=${sha}">${whl.filename}</a></body></html>`,
      );
    } else if (url === `/packages/${whl.filename}`) {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': whl.bytes.length });
      res.end(req.method === 'HEAD' ? undefined : whl.bytes);
    } else {
      res.writeHead(404).end();
    }
  });
}

/** Debian's Maven repository (the plugins mvn runs) over loopback HTTP, read-only. */
function mavenUpstream(): Promise<string> {
  return listen(async (req, res) => {
    const rel = decodeURIComponent((req.url ?? '/').split('?')[0]!);
    const file = path.join(MAVEN_REPO, path.normalize(rel));
    if (!file.startsWith(`${MAVEN_REPO}/`)) return void res.writeHead(404).end();
    const info = await stat(file).catch(() => null);
    if (!info?.isFile()) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-length': info.size, 'content-type': 'application/octet-stream' });
    if (req.method === 'HEAD') return void res.end();
    createReadStream(file).pipe(res);
  });
}

test.beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'granary-e2e-onboarding-'));
  const closed = `http://127.0.0.1:${await freePort()}`;
  const [pypi, maven] = await Promise.all([pypiUpstream(), mavenUpstream()]);
  server = await startServer({
    adminPassword: PASSWORD,
    logFile: path.join(ROOT, 'e2e/test-results/onboarding-server.log'),
    env: {
      GRANARY_ONBOARDING_UPSTREAMS: `npm=${closed},docker=${closed},pypi=${pypi},maven=${maven}`,
      GRANARY_ONBOARDING_TRIAL_CONTENT: 'always',
      GRANARY_OUTBOUND_ALLOWLIST: '127.0.0.1',
    },
  });
});

test.afterAll(async () => {
  await server?.stop();
  await Promise.all(upstreams.map((s) => new Promise((resolve) => s.close(resolve))));
  upstreams = [];
  if (work) await rm(work, { recursive: true, force: true });
});

const admin = () => ({ user: 'admin', password: PASSWORD });

/**
 * Signs in on the fresh server, opens the wizard, picks `label` and creates its repositories; continues to the
 * client flow once the quick-start session has started. Screenshots the selection and success screens when asked.
 */
async function createThroughWizard(
  page: Page,
  type: string,
  label: string,
  saveScreenshot?: (name: string) => Promise<void>,
): Promise<void> {
  await signIn(page, server.baseURL, 'admin', PASSWORD);
  await page.goto(`${server.baseURL}/ui/quick-setup?start=wizard`);
  await expect(page.getByTestId(`quick-start-type-${type}`)).toBeVisible();
  const create = page.getByRole('button', { name: `Create ${label} repositories` });
  await page.getByRole('button', { name: label, exact: true }).click();
  await expect(create).toBeEnabled();
  await saveScreenshot?.('onboarding-selection');
  await create.click();
  await expect(page.getByText('Please wait while we prepare your repository')).toBeVisible();
  await expect(page.getByText(`${label} Repository was created successfully!`)).toBeVisible();
  await saveScreenshot?.('onboarding-created');
  const started = page.waitForResponse(
    (r) => r.url().includes('/onboarding/quickstart/start') && r.request().method() === 'POST',
  );
  await page.getByTestId('quick-start-continue').click();
  expect((await started).status()).toBeLessThan(300);
}

/** The repositories quick setup made for `type`, by class (REST API). */
async function reposOf(type: string): Promise<Record<string, string[]>> {
  const all = (await apiCall(server.baseURL, admin(), 'GET', '/api/repositories')) as {
    key: string;
    type: string;
    packageType: string;
  }[];
  const out: Record<string, string[]> = {};
  for (const r of all.filter((x) => x.packageType.toLowerCase() === type)) {
    const rclass = r.type.toLowerCase();
    out[rclass] = [...(out[rclass] ?? []), r.key];
  }
  for (const list of Object.values(out)) list.sort();
  return out;
}

const code = (page: Page, id: string) => page.getByTestId(`quick-start-code-${id}`).innerText();
const doneMessage = (page: Page, text: string) =>
  expect(page.getByTestId('quick-start-done-message').filter({ hasText: text })).toBeVisible({
    timeout: 15_000,
  });

/** Done: the wizard closes on /packages, which lists the published package (found with the name filter). */
async function doneShows(page: Page, name: string, filter = name) {
  await page.getByTestId('quick-start-done').click();
  await expect(page).toHaveURL(/\/ui\/packages/);
  await page.getByPlaceholder('Name (* and ? wildcards)').fill(filter);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('main').getByRole('link', { name, exact: true })).toBeVisible();
}

test('issue 17 / spec 000 §4 Npm: the wizard creates npm local, remote and virtual; the real npm installs and publishes with the .npmrc copied from the page; each completion message appears without a reload; Done shows the package in /packages', async ({
  page,
  context,
  saveScreenshot,
}) => {
  test.setTimeout(120_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseURL });
  await createThroughWizard(page, 'npm', 'Npm', saveScreenshot);
  expect(await reposOf('npm')).toEqual({ local: ['npm-local'], remote: ['npm-remote'], virtual: ['npm'] });

  await expect(page.getByTestId('quick-start-code-npmrc')).toContainText('always-auth=true');
  await saveScreenshot('onboarding-npm-configure');
  // Configure: the .npmrc comes from the copy button (the clipboard), the same text the block shows.
  await page.getByTestId('quick-start-copy-npmrc').click();
  await expect(page.getByTestId('quick-start-copy-npmrc')).toHaveText('Copied');
  const npmrc = await page.evaluate(() => navigator.clipboard.readText());
  expect(npmrc.trim()).toBe((await code(page, 'npmrc')).trim());
  const home = path.join(work, 'npm');
  await mkdir(home, { recursive: true });
  await writeFile(path.join(home, '.npmrc'), npmrc);
  const env = clientEnv(home, { npm_config_cache: path.join(home, 'cache') });

  await page.getByTestId('quick-start-next').click();
  await bash(await code(page, 'npm-install'), home, env);
  await doneMessage(page, 'Package Installed and Cached Successfully');
  const trial = JSON.parse(
    await readFile(
      path.join(home, 'jfrog-npm-trial/node_modules/jfrog-trial-sum-example/package.json'),
      'utf8',
    ),
  );
  expect(trial.version).toBe('1.0.0');

  await page.getByTestId('quick-start-next').click();
  await bash(await code(page, 'npm-publish'), path.join(home, 'jfrog-npm-trial'), env);
  await doneMessage(page, 'Package Published Successfully');
  await saveScreenshot('onboarding-npm-published');
  await doneShows(page, 'jfrog-npm-trial');
});

test('issue 17 / spec 000 §4 Pypi: pip installs twine with the pip.conf from the page and twine uploads the trial project; Done shows hello-jfrog in /packages', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await createThroughWizard(page, 'pypi', 'Pypi');
  expect(await reposOf('pypi')).toEqual({
    local: ['pypi-local'],
    remote: ['pypi-remote'],
    virtual: ['pypi'],
  });
  const home = path.join(work, 'pypi');
  await mkdir(path.join(home, '.config/pip'), { recursive: true });
  const pipConf = path.join(home, '.config/pip/pip.conf');
  await writeFile(pipConf, await code(page, 'pip-conf'));
  // A virtual environment stands for the user's Python: pip installs the twine stand-in there, where it does not
  // hide the machine's real twine, which uploads (a stand-in's dist-info in the user site would: tried).
  await run('python3', ['-m', 'venv', path.join(home, 'venv')], { cwd: home, env: clientEnv(home) });
  const env = clientEnv(home, {
    PATH: `${path.join(home, 'venv/bin')}:${process.env.PATH}`,
    PIP_CONFIG_FILE: pipConf,
  });

  await page.getByTestId('quick-start-next').click();
  expect(await bash(await code(page, 'pypi-install'), home, env)).toContain(
    'Successfully installed twine-6.0.0',
  );
  await doneMessage(page, 'Package Installed and Cached Successfully');

  await page.getByTestId('quick-start-next').click();
  await bash(
    `${await code(page, 'pypi-publish')} --non-interactive --disable-progress-bar`,
    path.join(home, 'hello-jfrog'),
    env,
  );
  await doneMessage(page, 'Package Published Successfully');
  await doneShows(page, 'hello-jfrog');
});

test('issue 17 / spec 000 §4 Docker (skopeo stands for docker): login with the page’s user and identity token, copy of hello-world:latest from the virtual, push of 1.0.0; Done shows hello-world in /packages', async ({
  page,
  context,
  saveScreenshot,
}) => {
  test.setTimeout(120_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseURL });
  await createThroughWizard(page, 'docker', 'Docker');
  expect(await reposOf('docker')).toEqual({
    local: ['docker-local'],
    remote: ['docker-remote'],
    virtual: ['docker'],
  });
  const home = path.join(work, 'docker');
  await mkdir(home, { recursive: true });
  const env = clientEnv(home);
  const authfile = path.join(home, 'auth.json');
  const skopeo = (args: string[]) => run('skopeo', ['--insecure-policy', ...args], { cwd: home, env });

  // `docker login HOST -u admin`, the password being the identity token from the page's copy button.
  const [, , host, , user] = (await code(page, 'docker-login')).trim().split(/\s+/);
  await page.getByTestId('quick-start-copy-identity-token').click();
  const token = await page.evaluate(() => navigator.clipboard.readText());
  expect(token.length).toBeGreaterThan(20);
  await skopeo(['login', '--tls-verify=false', '--authfile', authfile, '-u', user!, '-p', token, host!]);
  await doneMessage(page, "You're Logged In");

  await page.getByTestId('quick-start-next').click();
  const pulled = (await code(page, 'docker-pull')).trim().split(/\s+/)[2]!; // docker pull IMAGE:latest
  const dir = path.join(home, 'hello-world');
  await skopeo([
    'copy',
    '--src-tls-verify=false',
    '--authfile',
    authfile,
    `docker://${pulled}`,
    `dir:${dir}`,
  ]);
  await doneMessage(page, 'Image Pulled Successfully');

  await page.getByTestId('quick-start-next').click();
  const pushed = (await code(page, 'docker-push')).trim().split(/\s+/)[2]!; // docker push IMAGE:1.0.0
  expect(pushed).toMatch(/\/docker\/hello-world:1\.0\.0$/);
  await skopeo([
    'copy',
    '--dest-tls-verify=false',
    '--authfile',
    authfile,
    `dir:${dir}`,
    `docker://${pushed}`,
  ]);
  await doneMessage(page, 'Image Pushed Successfully');
  await saveScreenshot('onboarding-docker-pushed');
  await doneShows(page, 'hello-world');
});

test('issue 17 / spec 000 §4 Maven: mvn installs and deploys a tiny project with the settings.xml downloaded from the page (project files written by the test: the archetype is not available offline); Done shows my-app in /packages', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await createThroughWizard(page, 'maven', 'Maven');
  expect(await reposOf('maven')).toEqual({
    local: ['maven-local', 'maven-snapshot-local'],
    remote: ['maven-remote'],
    virtual: ['maven', 'maven-snapshot'],
  });
  const home = path.join(work, 'maven');
  await mkdir(home, { recursive: true });
  const downloading = page.waitForEvent('download');
  await page.getByTestId('quick-start-maven-settings').click();
  const settings = path.join(home, 'settings.xml');
  await (await downloading).saveAs(settings);
  expect(await readFile(settings, 'utf8')).toMatch(/<password>[^<$]{20,}<\/password>/);

  // What `mvn archetype:generate … maven-archetype-quickstart 1.4` makes (junit 4.11 for tests), written here
  // because the archetype cannot be had offline; plugin versions pinned to Debian's.
  await page.getByTestId('quick-start-next').click();
  const project = path.join(home, 'my-app');
  await mkdir(path.join(project, 'src/main/java/com/mycompany/app'), { recursive: true });
  const plugins = Object.entries(MAVEN_PLUGINS)
    .map(
      ([a, v]) =>
        `<plugin><groupId>org.apache.maven.plugins</groupId><artifactId>${a}</artifactId><version>${v}</version></plugin>`,
    )
    .join('\n');
  const pom = (distribution: string) => `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.mycompany.app</groupId>
  <artifactId>my-app</artifactId>
  <version>1.0-SNAPSHOT</version>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.source>11</maven.compiler.source>
    <maven.compiler.target>11</maven.compiler.target>
  </properties>
  <dependencies>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.11</version><scope>test</scope></dependency>
  </dependencies>
  ${distribution}
  <build><plugins>${plugins}</plugins></build>
</project>
`;
  await writeFile(path.join(project, 'pom.xml'), pom(''));
  await writeFile(
    path.join(project, 'src/main/java/com/mycompany/app/App.java'),
    'package com.mycompany.app; public class App { public static void main(String[] a) { System.out.println("Hello World!"); } }\n',
  );
  // `cd my-app && mvn install`, with the downloaded settings and a local repository of its own.
  const install = (await code(page, 'maven-install')).replace(
    /\bmvn\b/g,
    `mvn -B -s ${settings} -Dmaven.repo.local=${path.join(home, 'm2')}`,
  );
  const env = clientEnv(home);
  await bash(install, home, env);
  await doneMessage(page, 'Your Maven project dependencies have been cached successfully');

  await page.getByTestId('quick-start-next').click();
  // Deploy: the page's <distributionManagement> snippet goes into the pom, then `mvn deploy`.
  const distribution = await code(page, 'maven-distribution');
  expect(distribution).toContain('<distributionManagement>');
  await writeFile(path.join(project, 'pom.xml'), pom(distribution));
  const deploy = (await code(page, 'maven-deploy')).replace(
    /\bmvn\b/g,
    `mvn -B -s ${settings} -Dmaven.repo.local=${path.join(home, 'm2')}`,
  );
  await bash(deploy, project, env);
  await doneMessage(page, 'Package Deployed Successfully');
  await doneShows(page, 'com.mycompany.app:my-app', '*my-app');
});
