import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWheel } from '../../formats/pypi/test-dists.ts';
import { startTestServer, type TestServer } from '../../testing/server-process.ts';
import { DPKG_STATUS, zipOf } from './components/scan-testing.ts';

/**
 * Issue 16, first acceptance bullet, with the real clients against one real server process: an OSV
 * archive the test writes (npm, PyPI, Maven and Debian advisories), a security policy that blocks
 * downloads and a watch over all repositories (Xray's REST paths); then `npm publish`, `twine upload`,
 * a Maven deploy (HTTP PUT, as mvn sends it) and a `skopeo copy` of an image built with umoci each
 * yield their violation within 10 s, and the clients are refused the blocked versions.
 */
const PASSWORD = 'Scan-acceptance-Pa55!';
const CREDS = `admin:${PASSWORD}`;
const VERDICT_MS = 10_000;

interface Run {
  code: number;
  out: string;
}

/** A client run: no npm_/pip settings inherited from the runner, HOME in the work folder. */
function run(cmd: string, args: string[], cwd: string): Promise<Run> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!/^(npm_|PIP_)/i.test(k) && k !== 'PYTHONPATH') env[k] = v;
  Object.assign(env, {
    HOME: cwd,
    NO_UPDATE_NOTIFIER: '1',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    PYTHONDONTWRITEBYTECODE: '1',
    COLUMNS: '400',
    NO_COLOR: '1',
    TERM: 'dumb',
  });
  return new Promise((resolve) =>
    execFile(cmd, args, { cwd, env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({
        code: err ? (typeof err.code === 'number' ? err.code : 1) : 0,
        // rich consoles (twine, pip) wrap lines: one space for any run of blanks
        out: `${stdout}\n${stderr}`.replace(/\s+/g, ' '),
      }),
    ),
  );
}

const osv = (id: string, ecosystem: string, name: string, fixed: string, severity: string) => ({
  id,
  modified: '2026-01-01T00:00:00Z',
  summary: `Test vulnerability in ${name}`,
  database_specific: { severity },
  affected: [
    {
      package: { ecosystem, name },
      ranges: [
        { type: ecosystem === 'npm' ? 'SEMVER' : 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed }] },
      ],
    },
  ],
  references: [{ type: 'ADVISORY', url: `https://example.test/${id}` }],
});

const ADVISORIES = {
  npm: osv('GHSA-acpt-npm0-0001', 'npm', 'acme-vuln', '1.0.1', 'HIGH'),
  pypi: osv('PYSEC-2026-4242', 'PyPI', 'acme-vuln-py', '2.0.1', 'MODERATE'),
  maven: osv('GHSA-acpt-mvn0-0001', 'Maven', 'com.acme:vuln-core', '1.2.1', 'CRITICAL'),
  debian: osv('DSA-9999-1', 'Debian:12', 'openssl', '3.0.11-1~deb12u3', 'LOW'),
};

describe('issue 16 acceptance: real clients against one Granary process', () => {
  let server: TestServer;
  let work: string;

  const api = (method: string, url: string, body?: unknown, type = 'application/json') =>
    fetch(`${server.url}${url}`, {
      method,
      headers: { authorization: server.auth, ...(body === undefined ? {} : { 'content-type': type }) },
      body: body === undefined ? undefined : Buffer.isBuffer(body) ? body : JSON.stringify(body),
    });

  /**
   * Polls Xray's violations (filtered to the artifact) until the advisory's violation is there; fails
   * past 10 s. Then the console's call lists it too.
   */
  async function violationWithin10s(repo: string, artifactPath: string, issueId: string) {
    const started = Date.now();
    let seen: unknown;
    for (;;) {
      const res = await api('POST', '/xray/api/v1/violations', {
        filters: { resources: { artifacts: [{ repo, path: artifactPath }] } },
        pagination: { limit: 10, offset: 0 },
      });
      expect(res.status).toBe(200);
      seen = await res.json();
      const found = (seen as { violations: { issue_id: string }[] }).violations.find(
        (v) => v.issue_id === issueId,
      );
      if (found) break;
      if (Date.now() - started > VERDICT_MS) {
        const scan = await (await api('GET', `/ui/api/v1/xray/ui/scan/${repo}/${artifactPath}`)).text();
        throw new Error(
          `no violation of ${issueId} on ${repo}/${artifactPath} in 10 s: ${JSON.stringify(seen)}; scan: ${scan}`,
        );
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    const console = (await (
      await api('POST', '/ui/api/v1/xray/ui/violations', { search: issueId })
    ).json()) as { rows: { issueId: string; repoKey: string; blocking: boolean }[] };
    expect(console.rows).toContainEqual(expect.objectContaining({ issueId, repoKey: repo, blocking: true }));
    return Date.now() - started;
  }

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'granary-scan-acceptance-'));
    server = await startTestServer(PASSWORD);
    for (const [key, packageType] of [
      ['npm-local', 'npm'],
      ['pypi-local', 'pypi'],
      ['maven-local', 'maven'],
      ['docker-local', 'docker'],
    ])
      await server.createRepository(key!, { rclass: 'local', packageType });

    const archive = await zipOf(
      Object.values(ADVISORIES).map((a) => ({ name: `${a.id}.json`, content: JSON.stringify(a) })),
    );
    const imported = await api('POST', '/api/scanning/advisories/import', archive, 'application/zip');
    expect(imported.status, await imported.clone().text()).toBe(200);
    expect(await imported.json()).toMatchObject({
      imported: 4,
      ecosystems: { npm: 1, PyPI: 1, Maven: 1, Debian: 1 },
    });

    const policy = await api('POST', '/xray/api/v2/policies', {
      name: 'block-vulnerable',
      type: 'security',
      rules: [
        {
          name: 'low-and-up',
          priority: 1,
          criteria: { min_severity: 'Low' },
          actions: { block_download: { active: true, unscanned: false } },
        },
      ],
    });
    expect(policy.status, await policy.clone().text()).toBe(201);
    const watch = await api('POST', '/xray/api/v2/watches', {
      general_data: { name: 'everything', active: true },
      project_resources: { resources: [{ type: 'all-repos', name: 'All Repositories' }] },
      assigned_policies: [{ name: 'block-vulnerable', type: 'security' }],
    });
    expect(watch.status, await watch.clone().text()).toBe(201);
  }, 240_000);

  afterAll(async () => {
    await server?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('issue 16 acceptance: npm publish of an affected version yields the violation within 10 s; npm install of it fails naming the advisory; the fixed version installs', async () => {
    const registry = `${server.url}/repository/npm-local/`;
    const npmrc = path.join(work, 'npmrc');
    await writeFile(
      npmrc,
      `registry=${registry}\n${registry.replace(/^http:/, '')}:_auth=${Buffer.from(CREDS).toString('base64')}\n`,
    );
    // publishing and installing from two caches, as two machines would (npm keeps what it packs)
    const npm = (args: string[], cwd = work, cache = 'npm-cache') =>
      run(
        'npm',
        [...args, '--userconfig', npmrc, '--cache', path.join(work, cache), '--loglevel', 'warn'],
        cwd,
      );
    for (const version of ['1.0.0', '1.0.1']) {
      const dir = path.join(work, 'src', version);
      await mkdir(dir, { recursive: true });
      await writeFile(
        path.join(dir, 'package.json'),
        JSON.stringify({ name: 'acme-vuln', version, license: 'MIT', main: 'index.js' }),
      );
      await writeFile(path.join(dir, 'index.js'), `module.exports = ${JSON.stringify(version)};\n`);
      const published = await npm(['publish'], dir);
      expect(published.code, published.out).toBe(0);
    }
    await violationWithin10s('npm-local', 'acme-vuln/-/acme-vuln-1.0.0.tgz', ADVISORIES.npm.id);

    const app = path.join(work, 'npm-app');
    await mkdir(app, { recursive: true });
    await writeFile(
      path.join(app, 'package.json'),
      JSON.stringify({ name: 'app', version: '1.0.0', private: true }),
    );
    const blocked = await npm(['install', 'acme-vuln@1.0.0'], app, 'install-cache');
    expect(blocked.code).not.toBe(0);
    expect(blocked.out).toContain('403');
    expect(blocked.out).toContain(
      `blocked by policy 'block-vulnerable' of watch 'everything' (${ADVISORIES.npm.id} in acme-vuln 1.0.0)`,
    );
    const fixed = await npm(['install', 'acme-vuln@1.0.1'], app, 'install-cache');
    expect(fixed.code, fixed.out).toBe(0);
    const installed = JSON.parse(
      await readFile(path.join(app, 'node_modules', 'acme-vuln', 'package.json'), 'utf8'),
    );
    expect(installed.version).toBe('1.0.1');
  }, 180_000);

  it('issue 16 acceptance: twine upload of an affected wheel yields the violation within 10 s; pip download of it is refused with 403', async () => {
    const wheel = await makeWheel({ name: 'acme-vuln-py', version: '2.0.0' });
    const file = path.join(work, wheel.filename);
    await writeFile(file, wheel.bytes);
    const uploaded = await run(
      'twine',
      [
        'upload',
        '--non-interactive',
        '--disable-progress-bar',
        '--repository-url',
        `${server.url}/repository/pypi-local/`,
        '-u',
        'admin',
        '-p',
        PASSWORD,
        file,
      ],
      work,
    );
    expect(uploaded.code, uploaded.out).toBe(0);
    await violationWithin10s(
      'pypi-local',
      `packages/acme-vuln-py/2.0.0/${wheel.filename}`,
      ADVISORIES.pypi.id,
    );
    const index = `http://${CREDS}@${server.host}/repository/pypi-local/simple/`;
    const download = await run(
      'python3',
      [
        '-m',
        'pip',
        'download',
        '--isolated',
        '--no-cache-dir',
        '--disable-pip-version-check',
        '--no-input',
        '--no-deps',
        '--index-url',
        index,
        '--dest',
        path.join(work, 'pip-dl'),
        'acme-vuln-py==2.0.0',
      ],
      work,
    );
    expect(download.code).not.toBe(0);
    expect(download.out).toMatch(/403/);
  }, 180_000);

  it('issue 16 acceptance: a jar and its pom deployed with HTTP PUT (as mvn deploys) yield the violation within 10 s', async () => {
    const base = 'com/acme/vuln-core/1.2.0';
    const pom = `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.acme</groupId>
  <artifactId>vuln-core</artifactId>
  <version>1.2.0</version>
  <packaging>jar</packaging>
</project>
`;
    const jar = await zipOf([
      { name: 'META-INF/MANIFEST.MF', content: 'Manifest-Version: 1.0\r\n\r\n' },
      {
        name: 'META-INF/maven/com.acme/vuln-core/pom.properties',
        content: 'groupId=com.acme\nartifactId=vuln-core\nversion=1.2.0\n',
      },
      { name: 'META-INF/maven/com.acme/vuln-core/pom.xml', content: pom },
      { name: 'com/acme/Core.class', content: Buffer.from([0xca, 0xfe, 0xba, 0xbe]) },
    ]);
    for (const [name, bytes] of [
      ['vuln-core-1.2.0.jar', jar],
      ['vuln-core-1.2.0.pom', Buffer.from(pom)],
    ] as const) {
      const put = await api(
        'PUT',
        `/repository/maven-local/${base}/${name}`,
        bytes,
        'application/octet-stream',
      );
      expect(put.status, name).toBe(201);
    }
    // The version's POM leads it: the violation names it, and blocks the jar beside it.
    await violationWithin10s('maven-local', `${base}/vuln-core-1.2.0.pom`, ADVISORIES.maven.id);
    const blocked = await api('GET', `/repository/maven-local/${base}/vuln-core-1.2.0.jar`);
    expect(blocked.status).toBe(403);
    expect(await blocked.text()).toContain(ADVISORIES.maven.id);
  }, 120_000);

  it('issue 16 acceptance: an image with an affected Debian package (built with umoci, pushed with skopeo) yields the violation within 10 s; skopeo is DENIED it; its CycloneDX SBOM is a referrer', async () => {
    // umoci builds the image: an empty one, unpacked, the Debian files written into its rootfs, and
    // repacked as a layer (umoci 0.4.7's `insert` writes layers without the tar's end blocks, which
    // GNU tar and the scanner both refuse).
    const layout = path.join(work, 'oci');
    const bundle = path.join(work, 'bundle');
    for (const args of [
      ['init', '--layout', layout],
      ['new', '--image', `${layout}:1.0`],
      ['unpack', '--image', `${layout}:1.0`, bundle],
    ]) {
      const r = await run('umoci', args, work);
      expect(r.code, `umoci ${args.join(' ')}: ${r.out}`).toBe(0);
    }
    const rootfs = path.join(bundle, 'rootfs');
    await mkdir(path.join(rootfs, 'var', 'lib', 'dpkg'), { recursive: true });
    await mkdir(path.join(rootfs, 'etc'), { recursive: true });
    await writeFile(path.join(rootfs, 'var', 'lib', 'dpkg', 'status'), DPKG_STATUS);
    await writeFile(
      path.join(rootfs, 'etc', 'os-release'),
      'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\nVERSION_CODENAME=bookworm\n',
    );
    const repacked = await run('umoci', ['repack', '--image', `${layout}:1.0`, bundle], work);
    expect(repacked.code, repacked.out).toBe(0);
    const index = JSON.parse(await readFile(path.join(layout, 'index.json'), 'utf8'));
    const digest = (index.manifests as { digest: string; annotations?: Record<string, string> }[]).find(
      (m) => m.annotations?.['org.opencontainers.image.ref.name'] === '1.0',
    )!.digest;

    const skopeo = (...args: string[]) => run('skopeo', ['--insecure-policy', ...args], work);
    const pushed = await skopeo(
      'copy',
      `oci:${layout}:1.0`,
      '--dest-tls-verify=false',
      '--dest-creds',
      CREDS,
      `docker://${server.host}/docker-local/debian-app:1.0`,
    );
    expect(pushed.code, pushed.out).toBe(0);
    await violationWithin10s('docker-local', 'debian-app/1.0/manifest.json', ADVISORIES.debian.id);

    const inspect = await skopeo(
      'inspect',
      '--raw',
      '--tls-verify=false',
      '--creds',
      CREDS,
      `docker://${server.host}/docker-local/debian-app:1.0`,
    );
    expect(inspect.code).not.toBe(0);
    expect(inspect.out).toMatch(/denied/i);
    expect(inspect.out).toContain(ADVISORIES.debian.id);

    // The SBOM is attached right after the verdict (the scan's last step): wait for it as for the verdict.
    const started = Date.now();
    let listed: { manifests: { artifactType: string }[] } = { manifests: [] };
    while (listed.manifests.length === 0 && Date.now() - started < VERDICT_MS) {
      const referrers = await api(
        'GET',
        `/v2/docker-local/debian-app/referrers/${digest}?artifactType=application/vnd.cyclonedx%2Bjson`,
      );
      expect(referrers.status).toBe(200);
      listed = (await referrers.json()) as typeof listed;
      if (listed.manifests.length === 0) await new Promise((r) => setTimeout(r, 200));
    }
    expect(listed.manifests).toEqual([
      expect.objectContaining({ artifactType: 'application/vnd.cyclonedx+json' }),
    ]);
  }, 180_000);
});
