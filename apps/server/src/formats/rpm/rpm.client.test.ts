import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as openpgp from 'openpgp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/server-process.ts';

/**
 * Acceptance (issue 23, RPM / YUM): a package built by `rpmbuild` (Debian's `rpm`), uploaded with a
 * PUT through a virtual repository, then installed by the real `dnf` (Debian's `dnf`) into a temporary
 * `--installroot`, with the metadata signature checked (`repo_gpgcheck=1`) against the key the
 * repository serves at `repodata/repomd.xml.key`, and the credentials as dnf's repository options.
 * With another key, dnf refuses the repository.
 */
const PASSWORD = 'Rpm-acceptance-Pa55!';
const NAME = 'granary-client-hello';

interface Run {
  code: number;
  out: string;
}

const exec = (cmd: string, args: string[], cwd?: string) =>
  new Promise<Run>((resolve) => {
    execFile(
      cmd,
      args,
      { cwd, timeout: 120_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, LC_ALL: 'C.UTF-8' } },
      (err, stdout, stderr) =>
        resolve({
          code: err ? (typeof err.code === 'number' ? err.code : 1) : 0,
          out: `${stdout}\n${stderr}`,
        }),
    );
  });

describe('issue 23 RPM: dnf and rpmbuild acceptance', () => {
  let work: string;
  let server: TestServer | undefined;
  let token: string;

  /** dnf on a fresh install root of the test's folder, the repository from the command line only. */
  const dnf = async (root: string, keyFile: string, args: string[]) => {
    await mkdir(root, { recursive: true });
    return exec('dnf', [
      '-y',
      `--installroot=${root}`,
      '--releasever=1',
      '--setopt=reposdir=/dev/null',
      '--setopt=install_weak_deps=False',
      `--repofrompath=granary,${server!.url}/repository/rpm`,
      '--repo=granary',
      // The package is not signed (rpmbuild did not sign it); the repository's metadata is.
      '--setopt=granary.gpgcheck=0',
      '--setopt=granary.repo_gpgcheck=1',
      `--setopt=granary.gpgkey=file://${keyFile}`,
      '--setopt=granary.username=admin',
      `--setopt=granary.password=${token}`,
      ...args,
    ]);
  };

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'granary-rpm-client-'));
    server = await startTestServer(PASSWORD);
    await server.createRepository('rpm-local', { rclass: 'local', packageType: 'rpm' });
    await server.createRepository('rpm', {
      rclass: 'virtual',
      packageType: 'yum',
      repositories: ['rpm-local'],
      defaultDeploymentRepo: 'rpm-local',
    });
    const res = await fetch(`${server.url}/api/security/tokens`, {
      method: 'POST',
      headers: { authorization: server.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ description: 'dnf acceptance', scope: 'applied-permissions/admin' }),
    });
    expect(res.status).toBe(200);
    token = ((await res.json()) as { access_token: string }).access_token;
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('issue 23 RPM: dnf --installroot installs a package rpmbuild made, uploaded with PUT, with the repository metadata signature checked; another key makes dnf refuse the repository', async () => {
    const top = path.join(work, 'rpmbuild');
    await writeFile(
      path.join(work, `${NAME}.spec`),
      [
        `Name: ${NAME}`,
        'Version: 1.0',
        'Release: 1',
        'Summary: Says hello from Granary',
        'License: MIT',
        'BuildArch: noarch',
        'AutoReqProv: no',
        '%description',
        'The RPM acceptance test package.',
        '%install',
        `mkdir -p %{buildroot}/usr/share/${NAME}`,
        `echo hello from granary > %{buildroot}/usr/share/${NAME}/hello.txt`,
        '%files',
        `/usr/share/${NAME}/hello.txt`,
        '',
      ].join('\n'),
    );
    const built = await exec('rpmbuild', ['-bb', '--define', `_topdir ${top}`, `${NAME}.spec`], work);
    expect(built.code, built.out).toBe(0);
    const file = `${NAME}-1.0-1.noarch.rpm`;
    const rpm = await readFile(path.join(top, 'RPMS', 'noarch', file));
    const up = await fetch(`${server!.url}/repository/rpm/Packages/${file}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}` },
      body: rpm,
    });
    expect(up.status, await up.text()).toBe(201);

    // The key Set Me Up names, fetched as a user would.
    const key = await fetch(`${server!.url}/repository/rpm/repodata/repomd.xml.key`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(key.status).toBe(200);
    const keyFile = path.join(work, 'RPM-GPG-KEY-granary');
    await writeFile(keyFile, await key.text());

    const root = path.join(work, 'root');
    const installed = await dnf(root, keyFile, ['install', NAME]);
    expect(installed.code, installed.out).toBe(0);
    expect(await readFile(path.join(root, `usr/share/${NAME}/hello.txt`), 'utf8')).toBe(
      'hello from granary\n',
    );
    const q = await exec('rpm', ['--root', root, '-q', NAME]);
    expect(q.out).toContain(`${NAME}-1.0-1.noarch`);

    // A key that did not sign repomd.xml: dnf refuses the repository's metadata.
    const other = await openpgp.generateKey({ userIDs: [{ name: 'Not Granary' }], format: 'armored' });
    const wrongKey = path.join(work, 'RPM-GPG-KEY-other');
    await writeFile(wrongKey, other.publicKey);
    const refused = await dnf(path.join(work, 'root-wrong'), wrongKey, ['install', NAME]);
    expect(refused.code, refused.out).not.toBe(0);
    expect(refused.out).toMatch(/repomd\.xml GPG signature verification error/);
    expect(existsSync(path.join(work, `root-wrong/usr/share/${NAME}/hello.txt`))).toBe(false);
  }, 240_000);
});
