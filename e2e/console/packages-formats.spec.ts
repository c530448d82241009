import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import yazl from 'yazl';
import { digestOf, tarGzLayer } from '../../apps/server/src/formats/docker/oci-testing.ts';
import { apiCall, mainAdminPassword, mainBaseURL, signIn } from '../support/console.ts';
import { expect, test } from '../support/fixtures.ts';

/**
 * Issue 8 acceptance: packages published by the real clients of every landed format (twine, skopeo, mvn;
 * npm is in packages.spec.ts) appear in the packages list and drill into package and version.
 */

const run = promisify(execFile);
const suffix = Date.now().toString(36);
const PYPI_REPO = `e2e-pypi-${suffix}`;
const DOCKER_REPO = `e2e-docker-${suffix}`;
const MAVEN_REPO = `e2e-maven-${suffix}`;
const PYPI_VIRTUAL = `e2e-pypi-all-${suffix}`;
const PY_NAME = `e2e-pywidget-${suffix}`;
const IMAGE = `e2e-images/app-${suffix}`;
const GROUP = 'org.granary.e2e';
const ARTIFACT = `e2e-mvnlib-${suffix}`;
/** Plugin versions Debian's packages install in /usr/share/maven-repo (there is no Maven Central here). */
const MAVEN_PLUGINS = {
  'maven-resources-plugin': '3.3.0',
  'maven-compiler-plugin': '3.10.1',
  'maven-surefire-plugin': '2.22.3',
  'maven-jar-plugin': '3.3.0',
  'maven-install-plugin': '3.1.0',
  'maven-deploy-plugin': '3.0.0',
};
/** The image's build history (the config's `history`); the CMD made no layer. */
const HISTORY = [
  { created_by: '/bin/sh -c #(nop) ADD file:e2e-rootfs in /' },
  { created_by: '/bin/sh -c #(nop)  CMD ["/bin/sh"]', empty_layer: true },
  { created_by: 'RUN /bin/sh -c echo granary > /data.bin # buildkit' },
];
const LAYER_SIZES = [2048, 4096];

/** Runs a client; a failure names its output (the clients print why on stdout). */
async function loud(cmd: string, args: string[], options: Parameters<typeof run>[2]) {
  try {
    await run(cmd, args, options);
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`.slice(0, 8000));
  }
}

const admin = () => ({ user: 'admin', password: mainAdminPassword() });

/** A pure-Python wheel as the packaging tools lay it out: the module, METADATA (with the readme), WHEEL, RECORD. */
async function wheel(name: string, version: string): Promise<{ filename: string; bytes: Buffer }> {
  const escaped = name.replace(/[-_.]+/g, '_');
  const distInfo = `${escaped}-${version}.dist-info`;
  const files: [string, string][] = [
    [`${escaped}/__init__.py`, `VERSION = ${JSON.stringify(version)}\n`],
    [
      `${distInfo}/METADATA`,
      [
        'Metadata-Version: 2.1',
        `Name: ${name}`,
        `Version: ${version}`,
        'Summary: A widget uploaded by twine in the browser test',
        'License: MIT',
        'Requires-Dist: requests>=2.31',
        'Description-Content-Type: text/markdown',
        '',
        `# ${name}`,
        '',
        'Python widgets, uploaded with **twine**.',
        '',
      ].join('\n'),
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
  return { filename: `${escaped}-${version}-py3-none-any.whl`, bytes: Buffer.concat(chunks) };
}

async function twineUpload(work: string) {
  const built = await wheel(PY_NAME, '0.3.1');
  const file = path.join(work, built.filename);
  await writeFile(file, built.bytes);
  await loud(
    'twine',
    [
      'upload',
      '--non-interactive',
      '--disable-progress-bar',
      '--repository-url',
      `${mainBaseURL()}/repository/${PYPI_REPO}/`,
      '-u',
      'admin',
      '-p',
      mainAdminPassword(),
      file,
    ],
    { cwd: work, env: { ...process.env, HOME: work }, timeout: 60_000 },
  );
}

/** An OCI image layout of two gzipped-tar layers whose config carries a build history; copied with skopeo. */
async function skopeoCopy(work: string) {
  const dir = path.join(work, 'layout');
  const blobs = path.join(dir, 'blobs', 'sha256');
  await mkdir(blobs, { recursive: true });
  const put = async (bytes: Buffer) => {
    const digest = digestOf(bytes);
    await writeFile(path.join(blobs, digest.slice(7)), bytes);
    return { digest, size: bytes.length };
  };
  const layers = [];
  const diffIds = [];
  for (const size of LAYER_SIZES) {
    const layer = await tarGzLayer(size);
    layers.push({ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', ...(await put(layer.gz)) });
    diffIds.push(layer.diffId);
  }
  const config = await put(
    Buffer.from(
      JSON.stringify({
        architecture: 'amd64',
        os: 'linux',
        config: { Cmd: ['/bin/sh'] },
        rootfs: { type: 'layers', diff_ids: diffIds },
        history: HISTORY,
      }),
    ),
  );
  const manifest = await put(
    Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...config },
        layers,
      }),
    ),
  );
  await writeFile(path.join(dir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  await writeFile(
    path.join(dir, 'index.json'),
    JSON.stringify({
      schemaVersion: 2,
      manifests: [
        {
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          ...manifest,
          annotations: { 'org.opencontainers.image.ref.name': '1.0' },
        },
      ],
    }),
  );
  const host = new URL(mainBaseURL()).host;
  await loud(
    'skopeo',
    [
      '--insecure-policy',
      'copy',
      '--dest-tls-verify=false',
      '--dest-creds',
      `admin:${mainAdminPassword()}`,
      `oci:${dir}:1.0`,
      `docker://${host}/${DOCKER_REPO}/${IMAGE}:1.0`,
    ],
    { timeout: 60_000 },
  );
}

/** `mvn deploy` of a jar project (a resource, no sources to compile) with Debian's plugins. */
async function mvnDeploy(work: string) {
  const project = path.join(work, 'mvn');
  await mkdir(path.join(project, 'src/main/resources'), { recursive: true });
  await writeFile(path.join(project, 'src/main/resources/granary.txt'), `built for ${suffix}\n`);
  const plugins = Object.entries(MAVEN_PLUGINS)
    .map(
      ([a, v]) =>
        `<plugin><groupId>org.apache.maven.plugins</groupId><artifactId>${a}</artifactId><version>${v}</version></plugin>`,
    )
    .join('');
  await writeFile(
    path.join(project, 'pom.xml'),
    `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>${GROUP}</groupId>
  <artifactId>${ARTIFACT}</artifactId>
  <version>2.4.0</version>
  <packaging>jar</packaging>
  <description>A library deployed by mvn in the browser test</description>
  <licenses><license><name>Apache-2.0</name></license></licenses>
  <properties><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
  <dependencies>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId><version>1.7.32</version><scope>provided</scope></dependency>
  </dependencies>
  <distributionManagement>
    <repository><id>granary</id><url>${mainBaseURL()}/repository/${MAVEN_REPO}</url></repository>
  </distributionManagement>
  <build><plugins>${plugins}</plugins></build>
</project>
`,
  );
  const settings = path.join(work, 'settings.xml');
  // Plugins come from Debian's repository; only the deployment goes to the server.
  await writeFile(
    settings,
    `<settings>
  <servers><server><id>granary</id><username>admin</username><password>${mainAdminPassword()}</password></server></servers>
  <mirrors><mirror><id>debian</id><mirrorOf>*,!granary</mirrorOf><url>file:///usr/share/maven-repo</url></mirror></mirrors>
</settings>
`,
  );
  await loud(
    'mvn',
    [
      '-B',
      '-q',
      '-s',
      settings,
      `-Dmaven.repo.local=${path.join(project, '.m2')}`,
      '-Dmaven.test.skip=true',
      'deploy',
    ],
    { cwd: project, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
  );
}

test.describe
  .serial('packages: twine, skopeo and mvn publishes in the packages screen (issue 8)', () => {
    let work: string;

    test.beforeAll(async () => {
      test.setTimeout(150_000);
      work = await mkdtemp(path.join(tmpdir(), 'granary-e2e-formats-'));
      for (const [key, packageType] of [
        [PYPI_REPO, 'pypi'],
        [DOCKER_REPO, 'docker'],
        [MAVEN_REPO, 'maven'],
      ])
        await apiCall(mainBaseURL(), admin(), 'PUT', `/api/repositories/${key}`, {
          rclass: 'local',
          packageType,
        });
      await apiCall(mainBaseURL(), admin(), 'PUT', `/api/repositories/${PYPI_VIRTUAL}`, {
        rclass: 'virtual',
        packageType: 'pypi',
        repositories: [PYPI_REPO],
      });
      // The three clients at once: the slowest (mvn) sets the time.
      await Promise.all([twineUpload(work), skopeoCopy(work), mvnDeploy(work)]);
    });
    test.afterAll(async () => {
      if (work) await rm(work, { recursive: true, force: true });
    });

    test('spec 001 §2: a wheel uploaded by twine is listed; its version opens on the readme (whl lead file) with the pip install command', async ({
      page,
      saveScreenshot,
      expectAccessible,
    }) => {
      await signIn(page, mainBaseURL(), 'admin', mainAdminPassword());
      // The newest packages first: the three just published.
      await page.goto('/ui/packages?sort=modified&order=desc');
      for (const name of [PY_NAME, IMAGE, `${GROUP}:${ARTIFACT}`])
        await expect(page.getByRole('link', { name, exact: true })).toBeVisible();
      await page.getByRole('combobox', { name: 'Package type' }).click();
      await page.locator('.ant-select-item-option[title="pypi"]').click();
      await page.keyboard.press('Escape');
      await expect(page.getByRole('link', { name: IMAGE, exact: true })).toHaveCount(0);
      // A virtual repository in the repositories filter stands for its members.
      await page.getByRole('combobox', { name: 'Repositories' }).click();
      await page.locator(`.ant-select-item-option[title="${PYPI_VIRTUAL} (virtual)"]`).click();
      await page.keyboard.press('Escape');
      await expect(page).toHaveURL(new RegExp(`repo=${PYPI_VIRTUAL}`));
      const row = page.getByRole('row', { name: new RegExp(PY_NAME) });
      await expect(row).toContainText(PYPI_REPO);
      await saveScreenshot('packages-formats-list');

      await row.getByRole('link', { name: PY_NAME }).click();
      await expect(page.getByRole('heading', { level: 1, name: PY_NAME })).toBeVisible();
      await expect(page.getByText('A widget uploaded by twine in the browser test').first()).toBeVisible();
      await page.getByRole('link', { name: '0.3.1', exact: true }).first().click();
      await expect(page.getByRole('tab', { name: 'Readme', selected: true })).toBeVisible();
      await expect(page.getByTestId('readme')).toContainText('Python widgets, uploaded with twine.');
      await expect(page.getByRole('region', { name: 'Install command' })).toContainText(
        `pip install ${PY_NAME}==0.3.1`,
      );
      // Not an image: no Docker Layers tab. Builds: none produced this version.
      await expect(page.getByRole('tab', { name: 'Docker Layers' })).toHaveCount(0);
      await page.getByRole('tab', { name: 'Builds' }).click();
      await expect(page.getByText('No builds produced this version')).toBeVisible();
      await page.getByRole('tab', { name: /Files/ }).click();
      await expect(page.getByRole('cell', { name: /\.whl lead$/ })).toBeVisible();
      await saveScreenshot('packages-pypi-version');
      await expectAccessible();
    });

    test('spec 001 §7 docker layers: an image copied by skopeo is listed; its version shows the Docker Layers tab with each layer and its command', async ({
      page,
      saveScreenshot,
      expectAccessible,
    }) => {
      await signIn(page, mainBaseURL(), 'admin', mainAdminPassword());
      await page.goto(`/ui/packages?type=docker&name=${encodeURIComponent(IMAGE)}`);
      await page.getByRole('link', { name: IMAGE, exact: true }).click();
      await expect(page.getByRole('heading', { level: 1, name: IMAGE })).toBeVisible();
      // issue 22: the command names this registry and the repository, so it pulls from here
      await expect(page.getByRole('region', { name: 'Install command' })).toContainText(
        `docker pull ${new URL(mainBaseURL()).host}/${DOCKER_REPO}/${IMAGE}`,
      );
      await page.getByRole('link', { name: '1.0', exact: true }).first().click();
      // manifest.json lead file: properties first (spec 001 §2).
      await expect(page.getByRole('tab', { name: 'Properties', selected: true })).toBeVisible();
      await page.getByRole('tab', { name: 'Docker Layers' }).click();
      const layers = page.getByRole('tabpanel', { name: 'Docker Layers' });
      await expect(layers.getByRole('row')).toHaveCount(1 + LAYER_SIZES.length);
      await expect(layers).toContainText('2 layers, total size');
      await expect(layers).toContainText('ADD file:e2e-rootfs in /');
      await expect(layers).toContainText('echo granary > /data.bin');
      await expect(layers).not.toContainText('CMD');
      await expect(
        layers.getByRole('cell', { name: 'application/vnd.oci.image.layer.v1.tar+gzip' }),
      ).toHaveCount(2);
      await saveScreenshot('packages-docker-layers');
      await expectAccessible();
    });

    test('spec 001 §2: a jar deployed by mvn is listed as groupId:artifactId; its version (POM lead file) opens on properties, with the POM dependencies', async ({
      page,
      saveScreenshot,
    }) => {
      await signIn(page, mainBaseURL(), 'admin', mainAdminPassword());
      await page.goto(`/ui/packages?type=maven&name=${GROUP}`);
      await page.getByRole('link', { name: `${GROUP}:${ARTIFACT}`, exact: true }).click();
      await expect(page.getByText('A library deployed by mvn in the browser test').first()).toBeVisible();
      await page.getByRole('link', { name: '2.4.0', exact: true }).first().click();
      await expect(page.getByRole('tab', { name: 'Properties', selected: true })).toBeVisible();
      await expect(page.getByText('Apache-2.0')).toBeVisible();
      await page.getByRole('tab', { name: /Files/ }).click();
      await expect(page.getByRole('cell', { name: `${ARTIFACT}-2.4.0.pom lead` })).toBeVisible();
      await page.getByRole('tab', { name: 'Dependencies' }).click();
      await expect(page.getByRole('cell', { name: 'org.slf4j:slf4j-api' })).toBeVisible();
      await expect(page.getByRole('cell', { name: 'provided' })).toBeVisible();
      await saveScreenshot('packages-maven-version');
    });
  });
