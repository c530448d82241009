import { execFile } from 'node:child_process';
import { access, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/server-process.ts';
import { buildDeb } from './test-debs.ts';

const run = promisify(execFile);
const PASSWORD = 'Debian-client-pa55!';

/** Uploads a .deb as curl would: `PUT …/pool/….deb;deb.distribution=…;deb.component=…;deb.architecture=…`. */
async function upload(server: TestServer, key: string, file: string, deb: Buffer, arch = 'amd64') {
  const res = await fetch(
    `${server.url}/repository/${key}/pool/main/${file};deb.distribution=stable;deb.component=main;deb.architecture=${arch}`,
    { method: 'PUT', headers: { authorization: server.auth }, body: deb },
  );
  if (res.status !== 201) throw new Error(`upload ${file}: ${res.status} ${await res.text()}`);
}

/**
 * apt on its own root (no chroot): every directory, the sources list, auth.conf and dpkg's database
 * under `root`, dpkg told `--root` so packages unpack there.
 */
async function aptRoot(work: string, name: string, sources: string, authConf: string) {
  const root = path.join(work, name);
  for (const d of [
    'etc/apt/apt.conf.d',
    'etc/apt/preferences.d',
    'etc/apt/sources.list.d',
    'etc/apt/trusted.gpg.d',
    'etc/apt/auth.conf.d',
    'var/lib/apt/lists/partial',
    'var/cache/apt/archives/partial',
    'var/lib/dpkg/info',
    'var/lib/dpkg/updates',
    'var/log/apt',
  ])
    await mkdir(path.join(root, d), { recursive: true });
  await writeFile(path.join(root, 'var/lib/dpkg/status'), '');
  await writeFile(path.join(root, 'etc/apt/sources.list'), sources);
  await writeFile(path.join(root, 'etc/apt/auth.conf'), authConf, { mode: 0o600 });
  const conf = path.join(root, 'apt.conf');
  await writeFile(
    conf,
    [
      `Dir "${root}/";`,
      `Dir::State::status "${root}/var/lib/dpkg/status";`,
      `Dir::Etc::netrc "${root}/etc/apt/auth.conf";`,
      'Debug::NoLocking "1";',
      'APT::Architecture "amd64";',
      'APT::Architectures { "amd64"; };',
      'APT::Sandbox::User "root";',
      'Acquire::Retries "0";',
      `DPkg::Options { "--root=${root}"; "--admindir=${root}/var/lib/dpkg"; "--force-not-root"; "--force-bad-path"; "--log=${root}/var/log/dpkg.log"; };`,
      '',
    ].join('\n'),
  );
  const env = { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin', APT_CONFIG: conf, LC_ALL: 'C' };
  const apt = async (args: string[]) => {
    try {
      return await run('apt-get', args, { env, timeout: 120_000 });
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; code?: number };
      throw Object.assign(
        new Error(`apt-get ${args.join(' ')} failed (${e.code}):\n${e.stdout}\n${e.stderr}`),
        e,
      );
    }
  };
  return { root, apt };
}

/** A proxy on loopback that alters the signed text of every InRelease it passes (one letter). */
async function startTamperingProxy(port: number) {
  const front = http.createServer((req, res) => {
    const up = http.request(
      { host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          let body = Buffer.concat(chunks);
          const headers = { ...answer.headers };
          if (req.url?.endsWith('/InRelease')) {
            body = Buffer.from(body.toString('utf8').replace('Components: main', 'Components: mainx'));
            headers['content-length'] = String(body.length);
            delete headers.etag;
          }
          res.writeHead(answer.statusCode ?? 502, headers);
          res.end(body);
        });
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  return { front, url: `http://127.0.0.1:${(front.address() as AddressInfo).port}` };
}

/**
 * issue 23 Debian acceptance: Debian's own apt-get updates from a local and a virtual repository with
 * signature verification on (the repository's KEY.gpg in `signed-by`, credentials in auth.conf) and
 * installs packages built by dpkg-deb into its own root; a Release altered on the way, or the wrong
 * key, makes apt refuse.
 */
describe('issue 23 Debian: the real apt-get installs from a signed repository', () => {
  let server: TestServer;
  let work: string;
  let tamper: Awaited<ReturnType<typeof startTamperingProxy>>;
  let authConf: string;

  beforeAll(async () => {
    server = await startTestServer(PASSWORD, { GRANARY_OUTBOUND_ALLOWLIST: '127.0.0.1' });
    await server.createRepository('deb-local', { packageType: 'debian', rclass: 'local' });
    await server.createRepository('deb-up', { packageType: 'debian', rclass: 'local' });
    await server.createRepository('deb-remote', {
      packageType: 'debian',
      rclass: 'remote',
      url: `${server.url}/repository/deb-up/`,
      username: 'admin',
      password: PASSWORD,
    });
    await server.createRepository('deb-virtual', {
      packageType: 'debian',
      rclass: 'virtual',
      repositories: ['deb-local', 'deb-remote'],
    });
    const lib = await buildDeb({
      name: 'granary-lib',
      version: '1.0-1',
      arch: 'amd64',
      files: { 'usr/share/granary-lib/lib.txt': 'the library\n' },
    });
    const tool = await buildDeb({
      name: 'granary-tool',
      version: '2.1-1',
      arch: 'amd64',
      depends: 'granary-lib (>= 1.0)',
      files: { 'usr/share/granary-tool/tool.txt': 'the tool\n' },
    });
    const remote = await buildDeb({
      name: 'granary-remote',
      version: '0.5',
      files: { 'usr/share/granary-remote/remote.txt': 'from the upstream\n' },
    });
    await upload(server, 'deb-local', 'granary-lib_1.0-1_amd64.deb', lib);
    await upload(server, 'deb-local', 'granary-tool_2.1-1_amd64.deb', tool);
    await upload(server, 'deb-up', 'granary-remote_0.5_all.deb', remote, 'all');
    work = await mkdtemp(path.join(os.tmpdir(), 'granary-apt-'));
    for (const key of ['deb-local', 'deb-virtual', 'deb-up']) {
      const res = await fetch(`${server.url}/repository/${key}/KEY.gpg`, {
        headers: { authorization: server.auth },
      });
      expect(res.status).toBe(200);
      await writeFile(path.join(work, `${key}.gpg`), Buffer.from(await res.arrayBuffer()));
    }
    tamper = await startTamperingProxy(server.port);
    authConf = [server.url, tamper.url]
      .map((u) => `machine ${u}/repository/\nlogin admin\npassword ${PASSWORD}\n`)
      .join('');
  }, 300_000);

  afterAll(async () => {
    await new Promise((resolve) => (tamper ? tamper.front.close(resolve) : resolve(undefined)));
    await server?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('issue 23 Debian: apt-get update && apt-get install from a local repository, InRelease verified with the repository key (signed-by), the dependency resolved from the same repository; the flat layout (`URL flat/`) too', async () => {
    const { root, apt } = await aptRoot(
      work,
      'local',
      `deb [signed-by=${work}/deb-local.gpg] ${server.url}/repository/deb-local stable main\n`,
      authConf,
    );
    // anonymous apt would get nothing: the credentials come from auth.conf
    expect((await fetch(`${server.url}/repository/deb-local/dists/stable/InRelease`)).status).toBe(401);
    const update = await apt(['update']);
    expect(update.stdout).toMatch(/Get:\d+ \S+ stable InRelease/);
    await apt(['install', '-y', '--no-install-recommends', 'granary-tool']);
    expect(await readFile(path.join(root, 'usr/share/granary-tool/tool.txt'), 'utf8')).toBe('the tool\n');
    expect(await readFile(path.join(root, 'usr/share/granary-lib/lib.txt'), 'utf8')).toBe('the library\n');
    const status = await readFile(path.join(root, 'var/lib/dpkg/status'), 'utf8');
    expect(status).toMatch(/Package: granary-tool\nStatus: install ok installed/);

    // the flat layout: every package of the repository at its root
    const flat = await aptRoot(
      work,
      'flat',
      `deb [signed-by=${work}/deb-local.gpg] ${server.url}/repository/deb-local flat/\n`,
      authConf,
    );
    await flat.apt(['update']);
    await flat.apt(['install', '-y', 'granary-lib']);
    expect(await readFile(path.join(flat.root, 'usr/share/granary-lib/lib.txt'), 'utf8')).toBe(
      'the library\n',
    );
  }, 240_000);

  it('issue 23 Debian: through a virtual repository (its own key) apt installs a package its remote member fetched from the upstream', async () => {
    const { root, apt } = await aptRoot(
      work,
      'virtual',
      `deb [signed-by=${work}/deb-virtual.gpg] ${server.url}/repository/deb-virtual stable main\n`,
      authConf,
    );
    await apt(['update']);
    await apt(['install', '-y', 'granary-remote', 'granary-lib']);
    expect(await readFile(path.join(root, 'usr/share/granary-remote/remote.txt'), 'utf8')).toBe(
      'from the upstream\n',
    );
    await access(path.join(root, 'usr/share/granary-lib/lib.txt'));
  }, 240_000);

  it('issue 23 Debian: apt refuses a Release altered on the way (BADSIG) and a repository signed by another key than signed-by names', async () => {
    const tampered = await aptRoot(
      work,
      'tampered',
      `deb [signed-by=${work}/deb-local.gpg] ${tamper.url}/repository/deb-local stable main\n`,
      authConf,
    );
    const bad = await tampered.apt(['update']).then(
      () => null,
      (err: Error) => err,
    );
    expect(bad?.message).toMatch(/signatures were invalid: BADSIG/);
    await expect(tampered.apt(['install', '-y', 'granary-tool'])).rejects.toThrow(/Unable to locate package/);

    const wrongKey = await aptRoot(
      work,
      'wrong-key',
      `deb [signed-by=${work}/deb-up.gpg] ${server.url}/repository/deb-local stable main\n`,
      authConf,
    );
    const refused = await wrongKey.apt(['update']).then(
      () => null,
      (err: Error) => err,
    );
    expect(refused?.message).toMatch(/NO_PUBKEY/);
    await expect(wrongKey.apt(['install', '-y', 'granary-tool'])).rejects.toThrow(/Unable to locate package/);
  }, 240_000);
});
