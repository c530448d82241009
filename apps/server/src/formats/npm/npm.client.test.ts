import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SESSION_COOKIE } from '@granary/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/server-process.ts';
import { basicAuth } from '../../testing/test-app.ts';
import { httpPublish } from './test-support.ts';

/**
 * Acceptance (issue 6, npm): the real npm client (npm 11 on this machine) against two Granary
 * processes on loopback — the second one the upstream of the first's remote repository.
 */
const PASSWORD = 'Npm-acceptance-Pa55!';
const ADMIN = basicAuth('admin', PASSWORD);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment npm runs in: no npm_config_* inherited from the test runner, HOME in a temp folder. */
function npmEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  return {
    ...env,
    HOME: home,
    NO_UPDATE_NOTIFIER: '1',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
  };
}

describe('npm client acceptance (issue 6)', () => {
  let work: string;
  let upstream: TestServer | undefined;
  let main: TestServer | undefined;
  let up: string;
  let base: string;
  let registry: string;
  let userconfig: string;

  const npm = (args: string[], opts: { cwd?: string; config?: string; cache?: string } = {}) =>
    new Promise<Run>((resolve) => {
      execFile(
        'npm',
        [
          ...args,
          '--userconfig',
          opts.config ?? userconfig,
          '--cache',
          opts.cache ?? path.join(work, 'cache'),
          '--registry',
          registry,
          '--loglevel',
          'warn',
        ],
        { cwd: opts.cwd ?? work, env: npmEnv(work), timeout: 180_000, maxBuffer: 16 * 1024 * 1024 },
        (err, stdout, stderr) =>
          resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
      );
    });
  const ok = async (args: string[], opts?: Parameters<typeof npm>[1]) => {
    const run = await npm(args, opts);
    expect(run.code, `npm ${args.join(' ')}\n${run.stdout}\n${run.stderr}`).toBe(0);
    return run;
  };

  const api = (server: string, method: string, url: string, body?: unknown) =>
    fetch(`${server}${url}`, {
      method,
      headers: { authorization: ADMIN, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  async function writePackage(dir: string, manifest: Record<string, unknown>, readme: string) {
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
    await writeFile(path.join(dir, 'README.md'), readme);
    await writeFile(path.join(dir, 'index.js'), `module.exports = ${JSON.stringify(manifest.version)};\n`);
  }

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'granary-npm-client-'));
    [upstream, main] = await Promise.all([
      startTestServer(PASSWORD),
      startTestServer(PASSWORD, { GRANARY_OUTBOUND_ALLOWLIST: '127.0.0.1' }),
    ]);
    up = upstream.url;
    base = main.url;
    registry = `${base}/repository/npm/`;

    expect(
      (await api(up, 'PUT', '/api/repositories/up-local', { rclass: 'local', packageType: 'npm' })).status,
    ).toBe(201);
    for (const [key, body] of [
      ['npm-local', { rclass: 'local', packageType: 'npm' }],
      [
        'npm-remote',
        {
          rclass: 'remote',
          packageType: 'npm',
          url: `${up}/repository/up-local/`,
          username: 'admin',
          password: PASSWORD,
        },
      ],
      [
        'npm',
        {
          rclass: 'virtual',
          packageType: 'npm',
          repositories: ['npm-local', 'npm-remote'],
          defaultDeploymentRepo: 'npm-local',
        },
      ],
    ] as const) {
      const res = await api(base, 'PUT', `/api/repositories/${key}`, body);
      expect(res.status, await res.text()).toBe(201);
    }

    // The upstream serves a dependency tree of 26 packages: a root, 5 branches, 20 leaves.
    const upRegistry = `${up}/repository/up-local`;
    const leaves = Array.from({ length: 20 }, (_, i) => `tree-leaf-${i}`);
    const branches = Array.from({ length: 5 }, (_, i) => `tree-branch-${i}`);
    const publishes: Promise<Response>[] = [];
    // Each leaf's versions in order (the last publish takes `latest`), the leaves in parallel.
    for (const leaf of leaves)
      publishes.push(
        (async () => {
          const first = await httpPublish(upRegistry, ADMIN, {
            name: leaf,
            version: '1.0.0',
            description: `leaf ${leaf}`,
          });
          if (first.status !== 201) return first;
          return httpPublish(upRegistry, ADMIN, {
            name: leaf,
            version: '1.1.0',
            description: `leaf ${leaf}`,
          });
        })(),
      );
    for (const [i, branch] of branches.entries())
      publishes.push(
        httpPublish(upRegistry, ADMIN, {
          name: branch,
          version: '2.0.0',
          dependencies: Object.fromEntries(leaves.slice(i * 4, i * 4 + 4).map((l) => [l, '^1.0.0'])),
        }),
      );
    publishes.push(
      httpPublish(upRegistry, ADMIN, {
        name: 'tree-root',
        version: '3.0.0',
        dependencies: Object.fromEntries(branches.map((b) => [b, '^2.0.0'])),
      }),
    );
    publishes.push(httpPublish(upRegistry, ADMIN, { name: 'shared-name', version: '99.0.0' }));
    for (const res of await Promise.all(publishes)) expect(res.status, await res.text()).toBe(201);

    userconfig = path.join(work, 'npmrc');
    const auth = Buffer.from(`admin:${PASSWORD}`).toString('base64');
    await writeFile(userconfig, `${registry.replace(/^http:/, '')}:_auth=${auth}\n`);
  }, 240_000);

  afterAll(async () => {
    await Promise.all([main?.stop(), upstream?.stop()]);
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('publishes three versions of a scoped and an unscoped package (README, --tag) through the virtual repository', async () => {
    for (const name of ['@acme/lib', 'acme-tool'])
      for (const version of ['1.0.0', '1.1.0', '1.2.0']) {
        const dir = path.join(work, 'src', name.replace('/', '__'), version);
        await writePackage(
          dir,
          { name, version, description: `${name} for tests`, main: 'index.js', license: 'MIT' },
          `# ${name}\n\nVersion ${version}.\n`,
        );
        await ok(['publish', ...(name.startsWith('@') ? ['--access', 'public'] : [])], { cwd: dir });
      }
    const shared = path.join(work, 'src', 'shared-name');
    await writePackage(shared, { name: 'shared-name', version: '1.2.0' }, '# local shared-name\n');
    // npm itself refuses an implicit `latest` below the upstream's 99.0.0 it sees through the virtual repository.
    await ok(['publish', '--tag', 'latest'], { cwd: shared });
    const beta = path.join(work, 'src', 'acme-tool-beta');
    await writePackage(beta, { name: 'acme-tool', version: '2.0.0-beta.1' }, '# beta\n');
    await ok(['publish', '--tag', 'beta'], { cwd: beta });

    const view = await ok(['view', '@acme/lib', '--json']);
    const info = JSON.parse(view.stdout);
    expect(info.versions).toEqual(['1.0.0', '1.1.0', '1.2.0']);
    expect(info['dist-tags'].latest).toBe('1.2.0');
    expect((await ok(['view', '@acme/lib', 'readme'])).stdout).toContain('Version 1.2.0');
    expect(info.dist.tarball).toBe(`${registry}@acme/lib/-/lib-1.2.0.tgz`);
    expect(info.dist.integrity).toMatch(/^sha512-/);
    const tool = JSON.parse((await ok(['view', 'acme-tool', 'dist-tags', '--json'])).stdout);
    expect(tool).toEqual({ latest: '1.2.0', beta: '2.0.0-beta.1' });
  }, 180_000);

  it("refuses to publish over a published version with npm's message", async () => {
    const run = await npm(['publish'], { cwd: path.join(work, 'src', 'acme-tool', '1.1.0') });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('You cannot publish over the previously published versions: 1.1.0.');
  }, 60_000);

  it('installs through the virtual repository: the local packages and a 26-package tree from the remote; a name local at 1.2.0 and upstream at 99.0.0 installs 1.2.0', async () => {
    const project = path.join(work, 'project');
    await mkdir(project, { recursive: true });
    await writeFile(
      path.join(project, 'package.json'),
      JSON.stringify({
        name: 'acceptance-project',
        version: '1.0.0',
        private: true,
        dependencies: {
          'tree-root': '^3.0.0',
          '@acme/lib': '^1.0.0',
          'acme-tool': '1.1.0',
          'shared-name': '*',
        },
      }),
    );
    await ok(['install', '--no-fund'], { cwd: project, cache: path.join(work, 'cache-install') });
    const installed = async (name: string) =>
      JSON.parse(await readFile(path.join(project, 'node_modules', name, 'package.json'), 'utf8')).version;
    expect(await installed('@acme/lib')).toBe('1.2.0');
    expect(await installed('acme-tool')).toBe('1.1.0');
    expect(await installed('shared-name')).toBe('1.2.0');
    expect(await installed('tree-root')).toBe('3.0.0');
    for (let i = 0; i < 20; i++) expect(await installed(`tree-leaf-${i}`)).toBe('1.1.0');
    const lock = JSON.parse(await readFile(path.join(project, 'package-lock.json'), 'utf8'));
    const entries = Object.entries(
      lock.packages as Record<string, { resolved?: string; integrity?: string }>,
    ).filter(([k]) => k);
    expect(entries.length).toBe(29); // 26 tree packages, @acme/lib, acme-tool, shared-name
    for (const [, e] of entries) {
      expect(e.resolved?.startsWith(registry)).toBe(true);
      expect(e.integrity).toMatch(/^sha512-/);
    }
    const view = JSON.parse((await ok(['view', 'shared-name', 'versions', '--json'])).stdout);
    expect(view).toEqual(['1.2.0']);
    // Not even by its tarball URL: the upstream's 99.0.0 stays out of the virtual repository.
    const confused = await fetch(`${registry}shared-name/-/shared-name-99.0.0.tgz`, {
      headers: { authorization: ADMIN },
    });
    expect(confused.status).toBe(404);

    // The remote: packuments rewritten to point at this server, tarballs cached byte-identical.
    const remoteRes = await fetch(`${base}/repository/npm-remote/tree-leaf-0`, {
      headers: { authorization: ADMIN },
    });
    const remote = (await remoteRes.json()) as { versions: Record<string, { dist: { tarball: string } }> };
    expect(remote.versions['1.1.0']?.dist.tarball).toBe(
      `${base}/repository/npm-remote/tree-leaf-0/-/tree-leaf-0-1.1.0.tgz`,
    );
    const cached = Buffer.from(
      await (
        await fetch(`${base}/repository/npm-remote-cache/tree-leaf-0/-/tree-leaf-0-1.1.0.tgz`, {
          headers: { authorization: ADMIN },
        })
      ).arrayBuffer(),
    );
    const original = Buffer.from(
      await (
        await fetch(`${up}/repository/up-local/tree-leaf-0/-/tree-leaf-0-1.1.0.tgz`, {
          headers: { authorization: ADMIN },
        })
      ).arrayBuffer(),
    );
    expect(cached.length).toBeGreaterThan(0);
    expect(Buffer.compare(cached, original)).toBe(0);
  }, 240_000);

  it('npm ci installs from the lockfile with a cold cache', async () => {
    const project = path.join(work, 'project');
    await ok(['ci', '--no-fund'], { cwd: project, cache: path.join(work, 'cache-ci') });
    expect(
      JSON.parse(await readFile(path.join(project, 'node_modules', 'tree-leaf-7', 'package.json'), 'utf8'))
        .version,
    ).toBe('1.1.0');
  }, 240_000);

  it('npm ci refuses a tarball whose integrity does not match the lockfile', async () => {
    const project = path.join(work, 'project');

    const tampered = path.join(work, 'tampered');
    await mkdir(tampered, { recursive: true });
    await writeFile(path.join(tampered, 'package.json'), await readFile(path.join(project, 'package.json')));
    const lock = JSON.parse(await readFile(path.join(project, 'package-lock.json'), 'utf8'));
    lock.packages['node_modules/tree-leaf-3'].integrity = `sha512-${Buffer.alloc(64, 7).toString('base64')}`;
    await writeFile(path.join(tampered, 'package-lock.json'), JSON.stringify(lock));
    const run = await npm(['ci', '--no-fund', '--fetch-retries', '0'], {
      cwd: tampered,
      cache: path.join(work, 'cache-tampered'),
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/EINTEGRITY|integrity/);
  }, 240_000);

  it('a remote serves its cached packument for the metadata retrieval period, then revalidates with the upstream', async () => {
    const published = await httpPublish(`${up}/repository/up-local`, ADMIN, {
      name: 'tree-leaf-0',
      version: '1.2.0',
    });
    expect(published.status).toBe(201);
    const versions = async () =>
      JSON.parse((await ok(['view', 'tree-leaf-0', 'versions', '--json', '--prefer-online'])).stdout);
    expect(await versions()).toEqual(['1.0.0', '1.1.0']); // cached: the default period is 7200 s
    const changed = await api(base, 'POST', '/api/repositories/npm-remote', { retrievalCachePeriodSecs: 0 });
    expect(changed.status, await changed.text()).toBeLessThan(300);
    expect(await versions()).toEqual(['1.0.0', '1.1.0', '1.2.0']);
  }, 60_000);

  it('dist-tag add, ls and rm', async () => {
    await ok(['dist-tag', 'add', '@acme/lib@1.0.0', 'legacy']);
    const ls = await ok(['dist-tag', 'ls', '@acme/lib']);
    expect(ls.stdout).toContain('legacy: 1.0.0');
    expect(ls.stdout).toContain('latest: 1.2.0');
    await ok(['dist-tag', 'rm', '@acme/lib', 'legacy']);
    expect((await ok(['dist-tag', 'ls', '@acme/lib'])).stdout).not.toContain('legacy');
  }, 120_000);

  it('deprecate a version; npm view shows it', async () => {
    await ok(['deprecate', 'acme-tool@1.0.0', 'use 1.2.0']);
    const doc = JSON.parse((await ok(['view', 'acme-tool@1.0.0', '--json'])).stdout);
    expect(doc.deprecated).toBe('use 1.2.0');
  }, 120_000);

  it('unpublish a version, then a whole package', async () => {
    await ok(['unpublish', 'acme-tool@1.0.0']);
    const versions = JSON.parse((await ok(['view', 'acme-tool', 'versions', '--json'])).stdout);
    expect(versions).toEqual(['1.1.0', '1.2.0', '2.0.0-beta.1']);
    await ok(['unpublish', '@acme/lib', '--force']);
    const gone = await npm(['view', '@acme/lib']);
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain('E404');
  }, 120_000);

  it("a wrong password gets npm's 401 message", async () => {
    const bad = path.join(work, 'npmrc-bad');
    await writeFile(
      bad,
      `${registry.replace(/^http:/, '')}:_auth=${Buffer.from('admin:wrong-password').toString('base64')}\n`,
    );
    const run = await npm(['view', 'acme-tool'], { config: bad });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('E401');
    expect(run.stderr).toContain('Incorrect or missing password.');
  }, 60_000);

  it('whoami, ping and search', async () => {
    expect((await ok(['whoami'])).stdout.trim()).toBe('admin');
    await ok(['ping']);
    const found = await ok(['search', 'acme-tool', '--json']);
    expect(JSON.parse(found.stdout).map((o: { name: string }) => o.name)).toContain('acme-tool');
  }, 60_000);

  /** `npm login` as an interactive process: its output so far, its exit, and a wait for a line. */
  const npmLogin = (authType: 'legacy' | 'web', config: string, interactive: boolean) => {
    const child: ChildProcess = spawn(
      'npm',
      [
        'login',
        `--auth-type=${authType}`,
        '--userconfig',
        config,
        '--registry',
        registry,
        '--cache',
        path.join(work, `cache-${authType}`),
      ],
      { cwd: work, env: npmEnv(work), stdio: [interactive ? 'pipe' : 'ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
    });
    child.stderr!.on('data', (d) => {
      out += d;
    });
    const exited = new Promise<number | null>((r) => child.on('exit', r));
    /** The first match of `re` in the output, waiting up to `ms`; fails the test when it never comes. */
    const waitFor = async (re: RegExp, ms = 20_000) => {
      const deadline = Date.now() + ms;
      while (!re.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(out).toMatch(re);
      return re.exec(out)!;
    };
    return { child, exited, waitFor, output: () => out };
  };

  it('npm login (legacy): name and password at the prompts, npm saves the token and whoami answers; npm logout revokes it', async () => {
    const config = path.join(work, 'npmrc-legacy');
    await writeFile(config, '');
    const { child, exited, waitFor, output } = npmLogin('legacy', config, true);
    await waitFor(/Username:/i);
    child.stdin!.write('admin\n');
    await waitFor(/Password:/i);
    child.stdin!.write(`${PASSWORD}\n`);
    const email = await Promise.race([
      (async () => {
        await waitFor(/Email:/i);
        return true;
      })().catch(() => false),
      exited.then(() => false),
    ]);
    if (email) child.stdin!.write('admin@example.com\n');
    child.stdin!.end();
    expect(await exited, output()).toBe(0);
    expect(await readFile(config, 'utf8')).toMatch(/:_authToken=/);
    expect((await ok(['whoami'], { config })).stdout.trim()).toBe('admin');
    // npm logout revokes the token on the server too
    const token = /:_authToken=(\S+)/.exec(await readFile(config, 'utf8'))![1]!;
    await ok(['logout'], { config });
    const revoked = await fetch(`${registry}-/whoami`, { headers: { authorization: `Bearer ${token}` } });
    expect(revoked.status).toBe(401);
  }, 60_000);

  it('npm login (web): the user confirms in the console, npm saves the token and whoami answers', async () => {
    const config = path.join(work, 'npmrc-login');
    await writeFile(config, '');
    const { exited, waitFor, output } = npmLogin('web', config, false);
    const loginUrl = (await waitFor(/(http:\/\/\S+\/ui\/login\/cli-registration\?session=\S+)/, 30_000))[1];
    const session = new URL(loginUrl!).searchParams.get('session')!;
    const signIn = await fetch(`${base}/ui/api/v1/ui/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: 'admin', password: PASSWORD }),
    });
    const cookie = new RegExp(`${SESSION_COOKIE}=[^;]*`).exec(signIn.headers.get('set-cookie') ?? '')![0];
    const confirm = await fetch(`${base}/ui/api/v1/access/cli-registration/${session}/confirm`, {
      method: 'POST',
      headers: { cookie, 'x-granary-csrf': '1' },
    });
    expect(confirm.status).toBe(204);
    expect(await exited, output()).toBe(0);
    expect(await readFile(config, 'utf8')).toMatch(/:_authToken=/);
    expect((await ok(['whoami'], { config })).stdout.trim()).toBe('admin');
  }, 90_000);
});
