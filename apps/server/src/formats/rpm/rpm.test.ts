import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { eq } from 'drizzle-orm';
import * as openpgp from 'openpgp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packages, packageVersions } from '../../modules/packages/packages.schema.ts';
import { ADMIN_AUTH, describeFormatProtocolConformance } from '../../testing/format-protocol-conformance.ts';
import { createTestApp, TEST_ADMIN_PASSWORD, type TestApp, testEngine } from '../../testing/index.ts';
import { freePort } from '../../testing/server-process.ts';
import { describeFormatConformance } from '../sdk/conformance.ts';
import { rpmFormat } from './index.ts';
import { gunzipBounded, parseRepodata, parseRepomd, type RepoPackage } from './repodata.ts';
import { RPM_LIMITS, readRpmPackage } from './rpm-header.ts';
import { makeRpm, SENSE } from './test-support.ts';

const run = promisify(execFile);
const FIXTURES = path.join(import.meta.dirname, '__fixtures__');
const HELLO = 'granary-hello-1.2.3-1.noarch.rpm';
const TOOLS = 'granary-tools-0.9-3.gr.noarch.rpm';
const fixture = (name: string) => readFile(path.join(FIXTURES, name));
const stored = (p: string, bytes: Buffer) => ({
  path: p,
  size: bytes.length,
  sha256: '0'.repeat(64),
  open: async () => Readable.from([bytes]),
});

describeFormatConformance(rpmFormat, [
  {
    file: stored(`Packages/${HELLO}`, await fixture(HELLO)),
    expected: { name: 'granary-hello', version: '1.2.3-1' },
  },
  { file: stored(TOOLS, await fixture(TOOLS)), expected: { name: 'granary-tools', version: '2:0.9-3.gr' } },
  // a package stored under a name that is not its own is not indexed as one
  { file: stored('renamed.rpm', await fixture(HELLO)), expected: null },
  { file: stored('docs/README.md', Buffer.from('# hello')), expected: null },
]);

const get = (t: TestApp, url: string) => t.app.inject({ url, headers: { authorization: ADMIN_AUTH } });
const put = (t: TestApp, url: string, payload: Buffer) =>
  t.app.inject({
    method: 'PUT',
    url,
    headers: { authorization: ADMIN_AUTH, 'content-type': 'application/octet-stream' },
    payload,
  });

/** A repository's packages as dnf reads them: repomd.xml, then the files it names, checked against it. */
async function readRepo(
  t: TestApp,
  repoKey: string,
): Promise<{ repomd: string; pkgs: RepoPackage[] } | null> {
  const res = await get(t, `/repository/${repoKey}/repodata/repomd.xml`);
  if (res.statusCode === 404) return null;
  expect(res.statusCode, res.body).toBe(200);
  const docs: Record<string, Buffer> = {};
  for (const e of parseRepomd(res.rawPayload)) {
    const file = await get(t, `/repository/${repoKey}/${e.href}`);
    expect(file.statusCode, `${e.href}: ${file.body}`).toBe(200);
    expect(createHash('sha256').update(file.rawPayload).digest('hex')).toBe(e.checksum?.value);
    docs[e.type] = gunzipBounded(file.rawPayload, e.href);
  }
  return {
    repomd: res.body,
    pkgs: parseRepodata(docs.primary as Buffer, docs.filelists, docs.other),
  };
}

/** issue 23 RPM: the YUM protocol as dnf speaks it — PUT of the .rpm, repomd.xml, primary.xml.gz, the package. */
describeFormatProtocolConformance(rpmFormat, {
  name: 'conformance-rpm',
  remoteSettings: { username: 'admin', password: TEST_ADMIN_PASSWORD },
  indexVersion: (v) => `${v}-1`,
  async publish(t, repoKey, name, version) {
    const res = await put(
      t,
      `/repository/${repoKey}/Packages/${name}-${version}-1.noarch.rpm`,
      makeRpm(name, version),
    );
    if (res.statusCode !== 201) throw new Error(`upload ${name}-${version}: ${res.statusCode} ${res.body}`);
  },
  async read(t, repoKey, name) {
    const repo = await readRepo(t, repoKey);
    const mine = repo?.pkgs.filter((p) => p.name === name) ?? [];
    if (!mine.length) return null;
    return {
      versions: mine.map((p) => p.version),
      fileUrls: mine.map((p) => `http://localhost/repository/${repoKey}/${p.location}`),
    };
  },
});

describe('issue 23 RPM: the header reader', () => {
  it('issue 23 RPM: name, epoch, version, release, summary, description, dependencies with flags, files, changelog and header range come from the lead and headers', async () => {
    const bytes = await fixture(TOOLS);
    const info = await readRpmPackage(bytes, bytes.length);
    expect(info).toMatchObject({
      name: 'granary-tools',
      epoch: '2',
      version: '0.9',
      release: '3.gr',
      arch: 'noarch',
      summary: "Tools & <things> for Granary's RPM tests",
      description: 'Tools for "Granary".\nSecond line with <angle> & ampersand.',
      license: 'Apache-2.0 OR MIT',
      vendor: 'Granary',
      group: 'Development/Tools',
      sourcerpm: 'granary-tools-0.9-3.gr.src.rpm',
      headerRange: { start: 4504, end: 7757 },
      conflicts: [{ name: 'granary-old', flags: 'LT', epoch: '0', ver: '0.5' }],
      obsoletes: [{ name: 'granary-legacy', flags: 'LE', epoch: '0', ver: '0.8' }],
      recommends: [{ name: 'granary-docs' }],
      suggests: [{ name: 'granary-extras', flags: 'GT', epoch: '0', ver: '1' }],
    });
    expect(info.requires).toEqual([
      { name: '/bin/sh', pre: true },
      { name: '/bin/sh' },
      { name: 'coreutils' },
      { name: 'granary-hello', flags: 'GE', epoch: '0', ver: '1.2' },
    ]);
    expect(info.files).toContainEqual({ path: '/var/log/granary-tools.log', type: 'ghost' });
    expect(info.files).toContainEqual({ path: '/etc/granary', type: 'dir' });
    expect(info.changelogs.map((c) => c.text)).toEqual([
      '- First\n  multi-line entry',
      '- Second',
      '- Third & <last>',
    ]);
  });

  it('issue 23 RPM: a header larger than the cap is refused before it is read', async () => {
    const bytes = makeRpm('big', '1.0');
    // the main header's data length, after lead (96) and the padded signature header
    const sigLen = 16 + 2 * 16 + bytes.readUInt32BE(96 + 12);
    const at = 96 + sigLen + ((8 - (sigLen % 8)) % 8);
    bytes.writeUInt32BE(RPM_LIMITS.headerBytes + 1, at + 12);
    await expect(readRpmPackage(bytes)).rejects.toThrow(/too large/);
  });
});

describe('issue 23 RPM: Set Me Up and install command', () => {
  it('issue 23 RPM: Set Me Up gives a .repo file with baseurl, repo_gpgcheck=1 and the key URL, and the upload for local repositories', () => {
    const repository = { key: 'rpm-local', rclass: 'local' as const, packageType: 'rpm' };
    const snippets = rpmFormat.snippets({
      baseUrl: 'https://granary.example',
      repository,
      username: 'alice',
    });
    const repoFile = snippets[0]!;
    expect(repoFile.language).toBe('ini');
    expect(repoFile.code).toContain('[rpm-local]');
    expect(repoFile.code).toContain('baseurl=https://granary.example/repository/rpm-local');
    expect(repoFile.code).toContain('repo_gpgcheck=1');
    expect(repoFile.code).toContain(
      'gpgkey=https://granary.example/repository/rpm-local/repodata/repomd.xml.key',
    );
    expect(repoFile.code).toContain('username=alice');
    expect(snippets.some((s) => s.code.includes('curl -u alice -T'))).toBe(true);
    const remote = rpmFormat.snippets({
      baseUrl: 'https://granary.example',
      repository: { ...repository, rclass: 'remote' },
    });
    expect(remote.some((s) => s.code.includes('curl -u'))).toBe(false);
  });

  it('issue 23 RPM: spec 001 §3 install command is yum install NAME[-VERSION]', () => {
    expect(rpmFormat.installCommand?.({ name: 'granary-tools' })).toBe('yum install granary-tools');
    expect(rpmFormat.installCommand?.({ name: 'granary-tools', version: '2:0.9-3.gr' })).toBe(
      'yum install granary-tools-2:0.9-3.gr',
    );
  });
});

describe(`issue 23 RPM: a local YUM repository (${testEngine})`, () => {
  let t: TestApp;
  let work: string;
  const listing = async (repoKey: string) => (await readRepo(t, repoKey))?.pkgs ?? [];

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'granary-rpm-test-'));
    t = await createTestApp({ outboundAllowlist: '127.0.0.1' });
    const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    for (const [key, body] of [
      ['rpms', { rclass: 'local' }],
      ['rpms-b', { rclass: 'local' }],
      ['rpms-cmp', { rclass: 'local' }],
      ['rpms-bad', { rclass: 'local' }],
      ['rpms-empty', { rclass: 'local' }],
      ['rpms-many', { rclass: 'local' }],
      [
        'rpms-remote',
        {
          rclass: 'remote',
          url: `${base}/repository/rpms/`,
          username: 'admin',
          password: TEST_ADMIN_PASSWORD,
        },
      ],
      ['rpms-virtual', { rclass: 'virtual', repositories: ['rpms-b', 'rpms-remote'] }],
      // an upstream nobody answers on (a closed loopback port)
      ['rpms-dead', { rclass: 'remote', url: `http://127.0.0.1:${await freePort()}/` }],
      ['rpms-p', { rclass: 'local' }],
      ['rpms-partial', { rclass: 'virtual', repositories: ['rpms-dead', 'rpms-p'] }],
    ] as const) {
      const res = await t.app.inject({
        method: 'PUT',
        url: `/api/repositories/${key}`,
        headers: { authorization: ADMIN_AUTH },
        payload: { packageType: key === 'rpms-b' ? 'yum' : 'rpm', ...body },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('issue 23 RPM: the repodata Granary writes lists each package as createrepo_c lists it (primary, filelists and other compared entry by entry)', async () => {
    const dir = path.join(work, 'createrepo');
    await run('mkdir', ['-p', dir]);
    for (const f of [HELLO, TOOLS]) {
      await copyFile(path.join(FIXTURES, f), path.join(dir, f));
      expect((await put(t, `/repository/rpms-cmp/${f}`, await fixture(f))).statusCode).toBe(201);
    }
    await run('createrepo_c', ['--quiet', '--no-database', dir]);
    const names = await readdir(path.join(dir, 'repodata'));
    const doc = async (type: string) =>
      gunzipBounded(
        await readFile(
          path.join(dir, 'repodata', names.find((n) => n.endsWith(`-${type}.xml.gz`)) as string),
        ),
        type,
      );
    const theirs = parseRepodata(await doc('primary'), await doc('filelists'), await doc('other'));
    const ours = await listing('rpms-cmp');
    const norm = (p: RepoPackage) => {
      const sortDeps = (l: RepoPackage['requires']) => [...l].map((d) => JSON.stringify(d)).sort();
      return {
        ...p,
        // the file's time is when it was stored (Granary) or its mtime (createrepo_c)
        fileTime: 0,
        provides: sortDeps(p.provides),
        requires: sortDeps(p.requires),
        conflicts: sortDeps(p.conflicts),
        obsoletes: sortDeps(p.obsoletes),
        recommends: sortDeps(p.recommends),
        suggests: sortDeps(p.suggests),
        supplements: sortDeps(p.supplements),
        enhances: sortDeps(p.enhances),
        files: [...p.files].sort((a, b) => a.path.localeCompare(b.path)),
        primaryFiles: [...p.primaryFiles].sort((a, b) => a.path.localeCompare(b.path)),
      };
    };
    expect(theirs).toHaveLength(2);
    expect(ours.map(norm).sort((a, b) => a.name.localeCompare(b.name))).toEqual(
      theirs.map(norm).sort((a, b) => a.name.localeCompare(b.name)),
    );
  });

  it('issue 23 RPM: an upload is listed in repodata at once and in the packages index with version-release (epoch: when not 0), summary, licence and requirements', async () => {
    const rpm = makeRpm('granary-lib', '3.1', {
      epoch: 1,
      release: '2.el9',
      arch: 'x86_64',
      summary: 'a library',
      description: 'A library.\nWith a longer text.',
      license: 'GPL-2.0-or-later',
      requires: [
        { name: 'glibc', flags: SENSE.GE, version: '2.34' },
        { name: 'rpmlib(CompressedFileNames)', flags: SENSE.LE | (1 << 24), version: '3.0.4-1' },
        { name: 'zlib' },
      ],
    });
    const res = await put(t, '/repository/rpms/Packages/g/granary-lib-3.1-2.el9.x86_64.rpm', rpm);
    expect(res.statusCode, res.body).toBe(201);
    const listed = (await listing('rpms')).find((p) => p.name === 'granary-lib');
    expect(listed).toMatchObject({
      epoch: '1',
      version: '3.1',
      release: '2.el9',
      arch: 'x86_64',
      location: 'Packages/g/granary-lib-3.1-2.el9.x86_64.rpm',
      packageSize: rpm.length,
      requires: [{ name: 'glibc', flags: 'GE', epoch: '0', ver: '2.34' }, { name: 'zlib' }],
    });
    const rows = await t.app.granary.database.db
      .select({
        version: packageVersions.version,
        description: packageVersions.description,
        licenses: packageVersions.licenses,
        dependencies: packageVersions.dependencies,
        readme: packageVersions.readme,
        type: packages.packageType,
      })
      .from(packageVersions)
      .innerJoin(packages, eq(packages.id, packageVersions.packageId))
      .where(eq(packages.name, 'granary-lib'));
    expect(rows).toEqual([
      {
        version: '1:3.1-2.el9',
        description: 'a library',
        licenses: ['GPL-2.0-or-later'],
        dependencies: [{ name: 'glibc', range: '>= 2.34' }, { name: 'zlib' }],
        readme: 'A library.\nWith a longer text.',
        type: 'rpm',
      },
    ]);
    // Artifactory's YUM properties
    const props = await get(t, '/api/storage/rpms/Packages/g/granary-lib-3.1-2.el9.x86_64.rpm?properties');
    expect(props.json()).toMatchObject({
      properties: { 'rpm.metadata.name': ['granary-lib'], 'rpm.metadata.epoch': ['1'] },
    });
  });

  it('issue 23 RPM: a local repository nothing was uploaded to answers empty repodata (dnf reads an empty repository, not a 404)', async () => {
    const repo = await readRepo(t, 'rpms-empty');
    expect(repo?.pkgs).toEqual([]);
    expect(repo?.repomd).toMatch(/<data type="primary">/);
  });

  it('issue 23 RPM: an anonymous client is asked for credentials (401, plain text) while anonymous access is off', async () => {
    const res = await t.app.inject({ url: '/repository/rpms-empty/repodata/repomd.xml' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.headers['www-authenticate']).toMatch(/^Basic/);
  });

  it('issue 23 RPM: concurrent uploads are all listed (repodata is regenerated under the repository lock)', async () => {
    const names = ['c-one', 'c-two', 'c-three', 'c-four', 'c-five'];
    const results = await Promise.all(
      names.map((n) => put(t, `/repository/rpms-many/${n}-1.0-1.noarch.rpm`, makeRpm(n, '1.0'))),
    );
    for (const r of results) expect(r.statusCode, r.body).toBe(201);
    expect((await listing('rpms-many')).map((p) => p.name).sort()).toEqual([...names].sort());
  });

  it('issue 23 RPM: repomd.xml gives each metadata file its sha256, open-checksum, sizes and timestamp; the files are named by their checksum', async () => {
    const res = await get(t, '/repository/rpms/repodata/repomd.xml');
    expect(res.headers['content-type']).toMatch(/xml/);
    for (const type of ['primary', 'filelists', 'other']) {
      const m = new RegExp(
        `<data type="${type}">\\s*<checksum type="sha256">([0-9a-f]{64})</checksum>\\s*<open-checksum type="sha256">([0-9a-f]{64})</open-checksum>\\s*<location href="(repodata/\\1-${type}.xml.gz)"/>\\s*<timestamp>(\\d+)</timestamp>\\s*<size>(\\d+)</size>\\s*<open-size>(\\d+)</open-size>`,
      ).exec(res.body);
      expect(m, type).not.toBeNull();
      const file = await get(t, `/repository/rpms/${m![3]}`);
      const open = gunzipBounded(file.rawPayload, type);
      expect(createHash('sha256').update(open).digest('hex')).toBe(m![2]);
      expect(file.rawPayload.length).toBe(Number(m![5]));
      expect(open.length).toBe(Number(m![6]));
    }
  });

  it('issue 23 RPM: a package removed other than through YUM (the generic DELETE) leaves repodata at once', async () => {
    const rpm = makeRpm('granary-gone', '1.0');
    expect((await put(t, '/repository/rpms/granary-gone-1.0-1.noarch.rpm', rpm)).statusCode).toBe(201);
    expect((await listing('rpms')).map((p) => p.name)).toContain('granary-gone');
    const del = await t.app.inject({
      method: 'DELETE',
      url: '/repository/rpms/granary-gone-1.0-1.noarch.rpm',
      headers: { authorization: ADMIN_AUTH },
    });
    expect(del.statusCode, del.body).toBeLessThan(300);
    expect((await listing('rpms')).map((p) => p.name)).not.toContain('granary-gone');
  });

  it('issue 23 RPM: repodata is written by Granary only — a PUT under repodata/ is refused and changes nothing', async () => {
    const before = (await get(t, '/repository/rpms/repodata/repomd.xml')).body;
    const res = await put(t, '/repository/rpms/repodata/repomd.xml', Buffer.from('<repomd/>'));
    expect(res.statusCode).toBe(405);
    expect(res.body).toMatch(/generated by Granary/);
    expect((await get(t, '/repository/rpms/repodata/repomd.xml')).body).toBe(before);
  });

  it('issue 23 RPM: the same bytes again are accepted and change nothing; other bytes under the same name are refused (409)', async () => {
    const rpm = makeRpm('granary-same', '1.0');
    expect((await put(t, '/repository/rpms/granary-same-1.0-1.noarch.rpm', rpm)).statusCode).toBe(201);
    expect((await put(t, '/repository/rpms/granary-same-1.0-1.noarch.rpm', rpm)).statusCode).toBe(200);
    const other = await put(
      t,
      '/repository/rpms/granary-same-1.0-1.noarch.rpm',
      makeRpm('granary-same', '1.0', { summary: 'changed' }),
    );
    expect(other.statusCode).toBe(409);
    expect(other.body).toMatch(/already exists/);
  });

  describe('issue 23 RPM: bad input is refused in plain text and leaves nothing (no file, repodata unchanged)', () => {
    const cases: [string, string, () => Buffer, number, RegExp][] = [
      [
        'not an RPM',
        'junk-1.0-1.noarch.rpm',
        () => Buffer.from('<html>not a package</html>'),
        400,
        /not an RPM package/,
      ],
      [
        'a name/version mismatch between the file name and the header',
        'granary-liar-2.0-1.noarch.rpm',
        () => makeRpm('granary-liar', '1.0'),
        400,
        /file name must be 'granary-liar-1.0-1.noarch.rpm'/,
      ],
      [
        'a path escape in the file list',
        'granary-escape-1.0-1.noarch.rpm',
        () => makeRpm('granary-escape', '1.0', { files: ['/usr/share/../../etc/shadow'] }),
        400,
        /path escape/,
      ],
      [
        'a relative path in the file list',
        'granary-relative-1.0-1.noarch.rpm',
        () => makeRpm('granary-relative', '1.0', { files: ['usr/share/x'] }),
        400,
        /path escape/,
      ],
      [
        'a header that does not match its digest',
        'granary-damaged-1.0-1.noarch.rpm',
        () =>
          makeRpm('granary-damaged', '1.0', {
            tamper: (h) =>
              Buffer.from(
                h.toString('latin1').replace('the granary-damaged', 'THE granary-damaged'),
                'latin1',
              ),
          }),
        400,
        /does not match its SHA-256/,
      ],
      [
        'a truncated package',
        'granary-short-1.0-1.noarch.rpm',
        () => makeRpm('granary-short', '1.0', { payload: Buffer.alloc(4096, 1) }).subarray(0, -100),
        400,
        /damaged RPM package/,
      ],
      [
        'an oversized header',
        'granary-huge-1.0-1.noarch.rpm',
        () => {
          const bytes = makeRpm('granary-huge', '1.0');
          const sigLen = 16 + 2 * 16 + bytes.readUInt32BE(96 + 12);
          bytes.writeUInt32BE(0x7fffffff, 96 + sigLen + ((8 - (sigLen % 8)) % 8) + 12);
          return bytes;
        },
        400,
        /too large/,
      ],
      ['a file that is no .rpm', 'notes.txt', () => Buffer.from('x'), 400, /not an RPM package/],
    ];
    for (const [what, name, bytes, status, message] of cases)
      it(`issue 23 RPM: ${what}`, async () => {
        const before = (await get(t, '/repository/rpms-bad/repodata/repomd.xml')).body;
        const res = await put(t, `/repository/rpms-bad/${name}`, bytes());
        expect(res.statusCode, res.body).toBe(status);
        expect(res.headers['content-type']).toMatch(/^text\/plain/);
        expect(res.body).toMatch(message);
        expect((await get(t, `/repository/rpms-bad/${name}`)).statusCode).toBe(404);
        expect((await get(t, '/repository/rpms-bad/repodata/repomd.xml')).body).toBe(before);
        expect(await listing('rpms-bad')).toEqual([]);
      });
  });

  it('issue 23 RPM: repomd.xml.asc is a detached signature by the key at repodata/repomd.xml.key; another key does not verify it', async () => {
    const repomd = await get(t, '/repository/rpms/repodata/repomd.xml');
    const asc = await get(t, '/repository/rpms/repodata/repomd.xml.asc');
    const key = await get(t, '/repository/rpms/repodata/repomd.xml.key');
    expect(asc.statusCode, asc.body).toBe(200);
    expect(key.body).toMatch(/BEGIN PGP PUBLIC KEY BLOCK/);
    const verify = async (armoredKey: string) => {
      const result = await openpgp.verify({
        message: await openpgp.createMessage({ binary: repomd.rawPayload }),
        signature: await openpgp.readSignature({ armoredSignature: asc.body }),
        verificationKeys: await openpgp.readKey({ armoredKey }),
      });
      return result.signatures[0]!.verified.then(
        () => true,
        () => false,
      );
    };
    expect(await verify(key.body)).toBe(true);
    // another repository has its own key: its key does not verify this signature
    const otherKey = await get(t, '/repository/rpms-b/repodata/repomd.xml.key');
    expect(otherKey.body).not.toBe(key.body);
    expect(await verify(otherKey.body)).toBe(false);
  });

  it("issue 23 RPM: a remote proxies the upstream YUM repository — repodata and packages byte-identical, repomd.xml signed with the remote's own key", async () => {
    const upstream = await readRepo(t, 'rpms');
    const remote = await readRepo(t, 'rpms-remote');
    expect(remote?.pkgs.map((p) => p.checksum).sort()).toEqual(upstream?.pkgs.map((p) => p.checksum).sort());
    const lib = remote!.pkgs.find((p) => p.name === 'granary-lib')!;
    const viaRemote = await get(t, `/repository/rpms-remote/${lib.location}`);
    const direct = await get(t, `/repository/rpms/${lib.location}`);
    expect(viaRemote.statusCode).toBe(200);
    expect(viaRemote.rawPayload.equals(direct.rawPayload)).toBe(true);
    const repomd = await get(t, '/repository/rpms-remote/repodata/repomd.xml');
    const asc = await get(t, '/repository/rpms-remote/repodata/repomd.xml.asc');
    const key = await get(t, '/repository/rpms-remote/repodata/repomd.xml.key');
    const result = await openpgp.verify({
      message: await openpgp.createMessage({ binary: repomd.rawPayload }),
      signature: await openpgp.readSignature({ armoredSignature: asc.body }),
      verificationKeys: await openpgp.readKey({ armoredKey: key.body }),
    });
    await expect(result.signatures[0]!.verified).resolves.toBe(true);
  });

  it("issue 23 RPM: a virtual repository merges its members' repodata — a name a local member holds is never offered from a remote member — signed with its own key", async () => {
    // rpms-b (local) holds granary-lib 9.0; the remote member's granary-lib 3.1 is hidden, its other packages stay
    expect(
      (await put(t, '/repository/rpms-b/granary-lib-9.0-1.noarch.rpm', makeRpm('granary-lib', '9.0')))
        .statusCode,
    ).toBe(201);
    const merged = await readRepo(t, 'rpms-virtual');
    const names = merged!.pkgs.map((p) => `${p.name}-${p.version}`).sort();
    expect(names).toContain('granary-lib-9.0');
    expect(names).not.toContain('granary-lib-3.1');
    expect(names).toContain('granary-same-1.0');
    for (const p of merged!.pkgs)
      expect((await get(t, `/repository/rpms-virtual/${p.location}`)).statusCode).toBe(200);
    const asc = await get(t, '/repository/rpms-virtual/repodata/repomd.xml.asc');
    const key = await get(t, '/repository/rpms-virtual/repodata/repomd.xml.key');
    const result = await openpgp.verify({
      message: await openpgp.createMessage({ binary: Buffer.from(merged!.repomd) }),
      signature: await openpgp.readSignature({ armoredSignature: asc.body }),
      verificationKeys: await openpgp.readKey({ armoredKey: key.body }),
    });
    await expect(result.signatures[0]!.verified).resolves.toBe(true);
    // a member's change is seen at once
    expect(
      (await put(t, '/repository/rpms-b/granary-new-1.0-1.noarch.rpm', makeRpm('granary-new', '1.0')))
        .statusCode,
    ).toBe(201);
    expect((await readRepo(t, 'rpms-virtual'))!.pkgs.map((p) => p.name)).toContain('granary-new');
  });

  it("issue 23 RPM: a virtual repository whose remote member cannot reach its upstream still answers with the other members' packages", async () => {
    expect(
      (await put(t, '/repository/rpms-p/granary-p-1.0-1.noarch.rpm', makeRpm('granary-p', '1.0'))).statusCode,
    ).toBe(201);
    const repo = await readRepo(t, 'rpms-partial');
    expect(repo?.pkgs.map((p) => p.name)).toEqual(['granary-p']);
  });

  it('issue 23 RPM: a remote repository refuses uploads (405, plain text) and stores nothing', async () => {
    const res = await put(
      t,
      '/repository/rpms-remote/granary-up-1.0-1.noarch.rpm',
      makeRpm('granary-up', '1.0'),
    );
    expect(res.statusCode).toBe(405);
    expect(res.body).toMatch(/does not accept uploads/);
    expect((await get(t, '/repository/rpms/granary-up-1.0-1.noarch.rpm')).statusCode).toBe(404);
  });

  it('issue 23 RPM: an upload through the virtual repository lands in its default deployment repository', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/api/repositories/rpms-virtual',
      headers: { authorization: ADMIN_AUTH },
      payload: { defaultDeploymentRepo: 'rpms-b' },
    });
    const res = await put(
      t,
      '/repository/rpms-virtual/granary-via-1.0-1.noarch.rpm',
      makeRpm('granary-via', '1.0'),
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ repo: 'rpms-b' });
    expect((await listing('rpms-b')).map((p) => p.name)).toContain('granary-via');
  });
});
