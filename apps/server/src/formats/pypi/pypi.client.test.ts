import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/server-process.ts';
import { makeWheel } from './test-dists.ts';

/**
 * Acceptance with the real clients (issue 6): Debian's twine uploads and Debian's pip installs, against
 * two real servers on loopback — A serves local, remote and virtual PyPI repositories; B is A's upstream.
 */

const PASSWORD = 'Client-test-Pa55word!';
const FIXTURES = path.join(import.meta.dirname, '__fixtures__');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface Run {
  code: number;
  out: string;
}

function run(cmd: string, args: string[], cwd: string): Promise<Run> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: cwd,
    PYTHONDONTWRITEBYTECODE: '1',
    COLUMNS: '400',
    NO_COLOR: '1',
    TERM: 'dumb',
  };
  delete env.PIP_FIND_LINKS;
  delete env.PIP_INDEX_URL;
  delete env.PIP_EXTRA_INDEX_URL;
  delete env.PYTHONPATH;
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { cwd, env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        // twine's rich console wraps lines: one space for any run of blanks.
        resolve({ code, out: `${stdout}\n${stderr}`.replace(/\s+/g, ' ') });
      },
    );
  });
}

describe('pypi with the real twine and pip (two servers on loopback)', () => {
  let work: string;
  const servers: TestServer[] = [];
  let a: string;
  let b: string;
  const files: Record<string, { filename: string; path: string; bytes: Buffer }> = {};

  const api = async (base: string, method: string, url: string, body?: object) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: {
        authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    return res;
  };
  const twine = (repoUrl: string, paths: string[], password = PASSWORD) =>
    run(
      'twine',
      [
        'upload',
        '--non-interactive',
        '--disable-progress-bar',
        '--repository-url',
        repoUrl,
        '-u',
        'admin',
        '-p',
        password,
        ...paths,
      ],
      work,
    );
  const indexUrl = (base: string, key: string) =>
    `${base.replace('http://', `http://admin:${encodeURIComponent(PASSWORD)}@`)}/repository/${key}/simple/`;
  const pip = (args: string[]) =>
    run(
      '/usr/bin/python3',
      [
        '-m',
        'pip',
        'install',
        '--isolated',
        '--no-cache-dir',
        '--disable-pip-version-check',
        '--no-input',
        ...args,
      ],
      work,
    );

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'granary-pypi-client-'));
    // B is the upstream of A's remote repository.
    const [serverB, serverA] = await Promise.all([
      startTestServer(PASSWORD),
      startTestServer(PASSWORD, { GRANARY_OUTBOUND_ALLOWLIST: '127.0.0.1' }),
    ]);
    servers.push(serverB, serverA);
    a = serverA.url;
    b = serverB.url;
    const create = async (base: string, key: string, body: object) =>
      expect(
        (await api(base, 'PUT', `/api/repositories/${key}`, { packageType: 'pypi', ...body })).status,
      ).toBe(201);
    await create(b, 'up-local', { rclass: 'local' });
    await create(a, 'py-local', { rclass: 'local' });
    await create(a, 'py-remote', {
      rclass: 'remote',
      url: `${b}/repository/up-local`,
      username: 'admin',
      password: PASSWORD,
    });
    await create(a, 'py', {
      rclass: 'virtual',
      repositories: ['py-local', 'py-remote'],
      defaultDeploymentRepo: 'py-local',
    });

    const write = async (key: string, dist: { filename: string; bytes: Buffer }) => {
      const dir = path.join(work, key);
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir, { recursive: true });
      const p = path.join(dir, dist.filename);
      await writeFile(p, dist.bytes);
      files[key] = { ...dist, path: p };
    };
    await write(
      'app',
      await makeWheel({
        name: 'granary-app',
        version: '1.0.0',
        requires: ['granary-dep>=2.0'],
        requiresPython: '>=3.7',
      }),
    );
    await write('dep', await makeWheel({ name: 'granary-dep', version: '2.0.0' }));
    await write('localConfused', await makeWheel({ name: 'confused-pkg', version: '1.2.0' }));
    await write('upstreamConfused', await makeWheel({ name: 'confused-pkg', version: '99.0.0' }));
    await write(
      'broken',
      await makeWheel({ name: 'broken-pkg', version: '1.0.0', metadataName: 'someone-else' }),
    );
    for (const name of ['Hello_Granary-1.0.0-py3-none-any.whl', 'Hello_Granary-1.0.0.tar.gz']) {
      const bytes = await readFile(path.join(FIXTURES, name));
      await copyFile(path.join(FIXTURES, name), path.join(work, name));
      files[name] = { filename: name, path: path.join(work, name), bytes };
    }
  }, 300_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('twine uploads a wheel and an sdist (built by python -m build) through the virtual repository to its local member', async () => {
    const up = await twine(`${a}/repository/py/`, [
      files['Hello_Granary-1.0.0-py3-none-any.whl']!.path,
      files['Hello_Granary-1.0.0.tar.gz']!.path,
    ]);
    expect(up.out).toContain('Uploading Hello_Granary-1.0.0-py3-none-any.whl');
    expect(up.code, up.out).toBe(0);
    const page = await (await api(a, 'GET', '/repository/py-local/simple/hello-granary/')).text();
    expect(page).toContain(`#sha256=${sha256(files['Hello_Granary-1.0.0-py3-none-any.whl']!.bytes)}`);
    expect(page).toContain(`#sha256=${sha256(files['Hello_Granary-1.0.0.tar.gz']!.bytes)}`);
    // The upstream gets its packages the same way.
    const upstream = await twine(`${b}/repository/up-local/`, [
      files.dep!.path,
      files.upstreamConfused!.path,
    ]);
    expect(upstream.code, upstream.out).toBe(0);
    const local = await twine(`${a}/repository/py-local/`, [files.app!.path, files.localConfused!.path]);
    expect(local.code, local.out).toBe(0);
  });

  it('pip installs through the virtual repository, resolving a dependency from the remote; the cached file is byte-identical', async () => {
    const target = path.join(work, 'site-virtual');
    const res = await pip(['--index-url', indexUrl(a, 'py'), '--target', target, 'granary-app']);
    expect(res.code, res.out.slice(-2500)).toBe(0);
    expect(res.out).toMatch(/Successfully installed granary-app-1\.0\.0 granary-dep-2\.0\.0/);
    expect(await readdir(target)).toEqual(expect.arrayContaining(['granary_app', 'granary_dep']));
    const cached = await api(
      a,
      'GET',
      '/repository/py-remote-cache/packages/granary-dep/2.0.0/granary_dep-2.0.0-py3-none-any.whl',
    );
    expect(cached.status).toBe(200);
    expect(sha256(Buffer.from(await cached.arrayBuffer()))).toBe(sha256(files.dep!.bytes));
  });

  it('dependency confusion: local 1.2.0 and upstream 99.0.0 of one name install the local 1.2.0 through the virtual repository', async () => {
    const target = path.join(work, 'site-confused');
    const res = await pip(['--index-url', indexUrl(a, 'py'), '--target', target, 'confused-pkg']);
    expect(res.code, res.out.slice(-2500)).toBe(0);
    expect(res.out).toContain('Successfully installed confused-pkg-1.2.0');
    expect(await readdir(target)).toContain('confused_pkg-1.2.0.dist-info');
    // The remote alone would have offered 99.0.0.
    const remote = await (await api(a, 'GET', '/repository/py-remote/simple/confused-pkg/')).text();
    expect(remote).toContain('confused_pkg-99.0.0-py3-none-any.whl');
  });

  it('pip install --require-hashes installs with the right hashes and refuses a wrong one', async () => {
    const req = path.join(work, 'requirements.txt');
    await writeFile(
      req,
      `granary-app==1.0.0 --hash=sha256:${sha256(files.app!.bytes)}\ngranary-dep==2.0.0 --hash=sha256:${sha256(files.dep!.bytes)}\n`,
    );
    const ok = await pip([
      '--index-url',
      indexUrl(a, 'py'),
      '--target',
      path.join(work, 'site-hashes'),
      '--require-hashes',
      '-r',
      req,
    ]);
    expect(ok.code, ok.out).toBe(0);
    expect(ok.out).toMatch(/Successfully installed granary-app-1\.0\.0 granary-dep-2\.0\.0/);
    await writeFile(req, `granary-dep==2.0.0 --hash=sha256:${'0'.repeat(64)}\n`);
    const bad = await pip([
      '--index-url',
      indexUrl(a, 'py'),
      '--target',
      path.join(work, 'site-bad'),
      '--require-hashes',
      '-r',
      req,
    ]);
    expect(bad.code).not.toBe(0);
    expect(bad.out).toContain('THESE PACKAGES DO NOT MATCH THE HASHES');
  });

  it('re-uploading an existing file is refused: twine shows the server’s message and the stored file is unchanged', async () => {
    const again = await twine(`${a}/repository/py-local/`, [files.app!.path]);
    expect(again.code).not.toBe(0);
    expect(again.out).toMatch(
      /HTTPError: 400 Bad Request from http:\/\/127\.0\.0\.1:\d+\/repository\/py-local\//,
    );
    expect(again.out).toContain(
      "File already exists: 'granary_app-1.0.0-py3-none-any.whl' is in repository 'py-local'",
    );
    const stored = await api(
      a,
      'GET',
      '/repository/py-local/packages/granary-app/1.0.0/granary_app-1.0.0-py3-none-any.whl',
    );
    expect(sha256(Buffer.from(await stored.arrayBuffer()))).toBe(sha256(files.app!.bytes));
  });

  it('a broken wheel (METADATA names another project) is refused: twine shows why, nothing is stored', async () => {
    const res = await twine(`${a}/repository/py-local/`, [files.broken!.path]);
    expect(res.code).not.toBe(0);
    expect(res.out).toContain(
      "Invalid distribution file 'broken_pkg-1.0.0-py3-none-any.whl': METADATA says someone-else 1.0.0 but the file name says broken_pkg 1.0.0",
    );
    for (const project of ['broken-pkg', 'someone-else'])
      expect((await api(a, 'GET', `/repository/py-local/simple/${project}/`)).status).toBe(404);
    expect((await api(a, 'GET', '/api/storage/py-local/packages/broken-pkg')).status).toBe(404);
  });

  it('a wrong password: twine shows 401 and nothing is stored', async () => {
    const res = await twine(`${a}/repository/py-local/`, [files.dep!.path], 'wrong-password-1A');
    expect(res.code).not.toBe(0);
    expect(res.out).toMatch(/HTTPError: 401 Unauthorized/);
    expect((await api(a, 'GET', '/api/storage/py-local/packages/granary-dep')).status).toBe(404);
  });
});
