import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';
import { eq } from 'drizzle-orm';
import * as openpgp from 'openpgp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packages, packageVersions } from '../../platform/db/schema.ts';
import { ADMIN_AUTH, describeFormatProtocolConformance } from '../../testing/format-protocol-conformance.ts';
import { createTestApp, TEST_ADMIN_PASSWORD, type TestApp, testEngine } from '../../testing/index.ts';
import { describeFormatConformance } from '../sdk/conformance.ts';
import { field, parseDepends, parseParagraphs } from './control.ts';
import { DEB_LIMITS, readDeb } from './deb-file.ts';
import { debianFormat } from './index.ts';
import { parseIndexPath } from './layout.ts';
import { arArchive, buildDeb, handMadeDeb, tarGz } from './test-debs.ts';

const FIXTURES = path.join(import.meta.dirname, '__fixtures__');
const fixture = (z: string) => path.join(FIXTURES, z, 'granary-hello_1.0.0-1_all.deb');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const fileOf = (p: string, make: () => Promise<Buffer>) => ({
  path: p,
  size: 0,
  sha256: '',
  open: async () => Readable.from([await make()]),
});

describeFormatConformance(debianFormat, [
  ...['xz', 'gzip', 'zstd'].map((z) => ({
    file: fileOf(`pool/main/g/granary-hello/granary-hello_1.0.0-1_all.deb`, () => readFile(fixture(z))),
    expected: { name: 'granary-hello', version: '1.0.0-1' },
  })),
  { file: fileOf('dists/stable/Release', async () => Buffer.from('Origin: x\n')), expected: null },
  { file: fileOf('pool/broken_1.0_all.deb', async () => Buffer.from('!<arch>\nnot really')), expected: null },
]);

/** A paragraph of a Packages text, by package name and version. */
function entry(text: string, name: string, version?: string) {
  return parseParagraphs(text).find(
    (p) => field(p, 'Package') === name && (version === undefined || field(p, 'Version') === version),
  );
}

describe('issue 23 Debian: reading .deb files (units)', () => {
  it('issue 23 Debian: a .deb built by dpkg-deb is read with control.tar.xz, .gz and .zst alike, its data paths walked', async () => {
    for (const z of ['xz', 'gzip', 'zstd']) {
      const info = await readDeb(createReadStream(fixture(z)), { checkData: true });
      expect(info).toMatchObject({ name: 'granary-hello', version: '1.0.0-1', architecture: 'all' });
      expect(field(info.control, 'Depends')).toBe('libc6 (>= 2.17), adduser | passwd');
    }
    const plain = await buildDeb({ name: 'plain-tar', version: '2:0.1', compression: 'none' });
    expect(await readDeb(Readable.from([plain]), { checkData: true })).toMatchObject({ version: '2:0.1' });
  });

  it('issue 23 Debian: a path escaping the install root (..) inside the data member, a missing control file, an oversized control member are refused', async () => {
    const escaping = await handMadeDeb('evil', '1.0', [['./../../etc/evil', Buffer.from('x')]]);
    await expect(readDeb(Readable.from([escaping]), { checkData: true })).rejects.toThrow(/escapes/);
    const noControl = await handMadeDeb('x', '1.0', [], await tarGz([['./README', Buffer.from('hi')]]));
    await expect(readDeb(Readable.from([noControl]))).rejects.toThrow(/no control file/);
    const huge = arArchive([
      ['debian-binary', Buffer.from('2.0\n')],
      ['control.tar.gz', Buffer.alloc(DEB_LIMITS.controlMemberBytes + 1)],
    ]);
    await expect(readDeb(Readable.from([huge]))).rejects.toThrow(/larger than/);
    // 20 MiB of zeros packs into a few KiB: unpacked past the control member's limit, it is refused
    const bomb = await handMadeDeb(
      'bomb',
      '1.0',
      [],
      await tarGz([['./control', Buffer.alloc(20 * 1024 * 1024)]]),
    );
    expect(bomb.length).toBeLessThan(DEB_LIMITS.controlMemberBytes);
    await expect(readDeb(Readable.from([bomb]))).rejects.toThrow(/unpacks to more than|larger than/);
    await expect(readDeb(Readable.from([Buffer.from('PK\u0003\u0004 a zip')]))).rejects.toThrow(
      /not an ar archive/,
    );
  });

  it('issue 23 Debian: Depends alternatives and version relations become the dependencies; index paths parse', () => {
    expect(parseDepends('libc6 (>= 2.17), adduser | passwd, python3:any (<< 4)')).toEqual([
      { name: 'libc6', range: '>= 2.17' },
      { name: 'adduser' },
      { name: 'python3', range: '<< 4' },
    ]);
    expect(parseIndexPath(`dists/bookworm/main/binary-amd64/by-hash/SHA256/${'a'.repeat(64)}`)).toMatchObject(
      {
        kind: 'by-hash',
        dist: 'bookworm',
        component: 'main',
        arch: 'amd64',
      },
    );
    expect(parseIndexPath('dists/bookworm/InRelease')).toEqual({
      kind: 'release',
      dist: 'bookworm',
      file: 'InRelease',
    });
    expect(parseIndexPath('flat/Packages.gz')).toMatchObject({ kind: 'packages', dist: null });
    expect(parseIndexPath('Packages.gz')).toBeNull();
    expect(parseIndexPath('dists/../InRelease')).toBeNull();
    expect(parseIndexPath('pool/main/h/hello_1.0_all.deb')).toBeNull();
  });
});

describe(`issue 23 Debian: local, remote and virtual repositories (${testEngine})`, () => {
  let t: TestApp;
  let base: string;
  /** A static mirror in Debian's layout on loopback (as a plain web server serves one), one of whose Packages lies. */
  const mirrorFiles = new Map<string, Buffer>();
  const hits: string[] = [];
  const mirror = http.createServer((q, res) => {
    hits.push(q.url ?? '');
    const body = mirrorFiles.get((q.url ?? '').replace(/^\//, ''));
    if (!body) return res.writeHead(404).end('not found');
    res.writeHead(200).end(body);
  });
  const req = (method: 'GET' | 'PUT' | 'DELETE', url: string, payload?: Buffer | string | object) =>
    t.app.inject({
      method,
      url,
      headers: { authorization: ADMIN_AUTH },
      ...(payload !== undefined ? { payload } : {}),
    });
  const stored = async (key: string, p: string) => (await req('GET', `/api/storage/${key}/${p}`)).statusCode;
  const upload = (
    key: string,
    p: string,
    deb: Buffer,
    params = ';deb.distribution=stable;deb.component=main;deb.architecture=amd64',
  ) => req('PUT', `/repository/${key}/${p}${params}`, deb);
  const text = async (url: string) => {
    const res = await req('GET', url);
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    const hello = await readFile(fixture('xz'));
    const liar = await buildDeb({ name: 'liar', version: '1.0' });
    const packagesText = [
      `Package: granary-hello\nVersion: 1.0.0-1\nArchitecture: all\nDescription: from the mirror\nFilename: pool/main/g/granary-hello/granary-hello_1.0.0-1_all.deb\nSize: ${hello.length}\nSHA256: ${sha256(hello)}\n`,
      `Package: liar\nVersion: 1.0\nArchitecture: all\nDescription: its SHA256 is not its bytes'\nFilename: pool/main/l/liar/liar_1.0_all.deb\nSize: ${liar.length}\nSHA256: ${'0'.repeat(64)}\n`,
    ].join('\n');
    const gz = gzipSync(packagesText);
    mirrorFiles.set('pool/main/g/granary-hello/granary-hello_1.0.0-1_all.deb', hello);
    mirrorFiles.set('pool/main/l/liar/liar_1.0_all.deb', liar);
    mirrorFiles.set('dists/stable/main/binary-amd64/Packages.gz', gz);
    mirrorFiles.set(
      'dists/stable/Release',
      Buffer.from(
        `Origin: Mirror\nSuite: stable\nCodename: stable\nDate: Sat, 01 Jan 2026 00:00:00 UTC\nArchitectures: amd64\nComponents: main\nSHA256:\n ${sha256(gz)} ${gz.length} main/binary-amd64/Packages.gz\n`,
      ),
    );
    await new Promise<void>((r) => mirror.listen(0, '127.0.0.1', r));
    t = await createTestApp({ outboundAllowlist: '127.0.0.1' });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const mirrorUrl = `http://127.0.0.1:${(mirror.address() as AddressInfo).port}/`;
    for (const [key, body] of [
      ['deb-a', { rclass: 'local' }],
      ['deb-b', { rclass: 'local' }],
      ['deb-mirror', { rclass: 'remote', url: mirrorUrl, retrievalCachePeriodSecs: 0 }],
      [
        'deb-v',
        { rclass: 'virtual', repositories: ['deb-a', 'deb-b', 'deb-mirror'], defaultDeploymentRepo: 'deb-b' },
      ],
    ] as const) {
      const res = await req('PUT', `/api/repositories/${key}`, { packageType: 'debian', ...body });
      expect(res.statusCode, res.body).toBe(201);
    }
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => mirror.close(r));
  });

  it('issue 23 Debian: an upload with ;deb.distribution;deb.component;deb.architecture is listed in dists/{dist}/{component}/binary-{arch}/Packages[.gz] with its size and digests, and in the packages index', async () => {
    const deb = await buildDeb({
      name: 'granary-tool',
      version: '1.2.3-1',
      arch: 'amd64',
      depends: 'libc6 (>= 2.31), granary-hello',
      license: 'Apache-2.0',
      description: 'a tool for the tests',
    });
    const res = await upload('deb-a', 'pool/main/g/granary-tool/granary-tool_1.2.3-1_amd64.deb', deb);
    expect(res.statusCode, res.body).toBe(201);
    expect(JSON.parse(res.body)).toMatchObject({ package: { name: 'granary-tool', version: '1.2.3-1' } });

    const packagesText = await text('/repository/deb-a/dists/stable/main/binary-amd64/Packages');
    const p = entry(packagesText, 'granary-tool')!;
    expect(field(p, 'Filename')).toBe('pool/main/g/granary-tool/granary-tool_1.2.3-1_amd64.deb');
    expect(field(p, 'Size')).toBe(String(deb.length));
    expect(field(p, 'SHA256')).toBe(sha256(deb));
    expect(field(p, 'MD5sum')).toBe(createHash('md5').update(deb).digest('hex'));
    expect(field(p, 'Depends')).toBe('libc6 (>= 2.31), granary-hello');
    const gz = await req('GET', '/repository/deb-a/dists/stable/main/binary-amd64/Packages.gz');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(packagesText);
    const downloaded = await req('GET', `/repository/deb-a/${field(p, 'Filename')}`);
    expect(downloaded.rawPayload.equals(deb)).toBe(true);

    const [row] = await t.app.granary.database.db
      .select({
        name: packages.name,
        description: packageVersions.description,
        licenses: packageVersions.licenses,
        deps: packageVersions.dependencies,
        lead: packageVersions.leadPath,
      })
      .from(packageVersions)
      .innerJoin(packages, eq(packages.id, packageVersions.packageId))
      .where(eq(packageVersions.version, '1.2.3-1'));
    expect(row).toMatchObject({
      name: 'granary-tool',
      description: 'a tool for the tests',
      licenses: ['Apache-2.0'],
    });
    expect(row!.lead).toMatch(/granary-tool_1\.2\.3-1_amd64\.deb$/);
    expect(JSON.stringify(row!.deps)).toContain('granary-hello');
  });

  it('issue 23 Debian: Release lists every index with its size, MD5Sum, SHA1 and SHA256 and Acquire-By-Hash; by-hash answers each index by its digest', async () => {
    const release = await text('/repository/deb-a/dists/stable/Release');
    expect(release).toMatch(/^Origin: Granary$/m);
    expect(release).toMatch(/^Label: deb-a$/m);
    expect(release).toMatch(/^Suite: stable$/m);
    expect(release).toMatch(/^Codename: stable$/m);
    expect(release).toMatch(/^Date: .+ UTC$/m);
    expect(release).toMatch(/^Architectures: amd64$/m);
    expect(release).toMatch(/^Components: main$/m);
    expect(release).toMatch(/^Acquire-By-Hash: yes$/m);
    for (const name of ['Packages', 'Packages.gz']) {
      const bytes = (await req('GET', `/repository/deb-a/dists/stable/main/binary-amd64/${name}`)).rawPayload;
      for (const [title, alg] of [
        ['MD5Sum', 'md5'],
        ['SHA1', 'sha1'],
        ['SHA256', 'sha256'],
      ] as const) {
        const hex = createHash(alg).update(bytes).digest('hex');
        const section = release.split(`${title}:\n`)[1]!;
        expect(section).toMatch(
          new RegExp(`^ ${hex} +${bytes.length} main/binary-amd64/${name.replace('.', '\\.')}$`, 'm'),
        );
        const byHash = await req(
          'GET',
          `/repository/deb-a/dists/stable/main/binary-amd64/by-hash/${title}/${hex}`,
        );
        expect(byHash.statusCode).toBe(200);
        expect(byHash.rawPayload.equals(bytes)).toBe(true);
      }
    }
    expect(
      (await req('GET', `/repository/deb-a/dists/stable/main/binary-amd64/by-hash/SHA256/${'f'.repeat(64)}`))
        .statusCode,
    ).toBe(404);
  });

  it('issue 23 Debian: InRelease and Release.gpg are signed with the repository key that KEY.gpg and KEY.asc serve', async () => {
    const release = await text('/repository/deb-a/dists/stable/Release');
    const armored = await text('/repository/deb-a/KEY.asc');
    const binary = (await req('GET', '/repository/deb-a/KEY.gpg')).rawPayload;
    const key = await openpgp.readKey({ binaryKey: binary });
    expect(key.getFingerprint()).toBe((await openpgp.readKey({ armoredKey: armored })).getFingerprint());

    const inRelease = await text('/repository/deb-a/dists/stable/InRelease');
    const message = await openpgp.readCleartextMessage({ cleartextMessage: inRelease });
    const verified = await openpgp.verify({ message, verificationKeys: key, expectSigned: true });
    expect(verified.data.replace(/\r\n/g, '\n').trimEnd()).toBe(release.trimEnd());

    const detached = await text('/repository/deb-a/dists/stable/Release.gpg');
    const check = await openpgp.verify({
      message: await openpgp.createMessage({ binary: Buffer.from(release) }),
      signature: await openpgp.readSignature({ armoredSignature: detached }),
      verificationKeys: key,
      expectSigned: true,
    });
    await expect(check.signatures[0]!.verified).resolves.toBe(true);
    // Another repository has another key.
    const other = await openpgp.readKey({ armoredKey: await text('/repository/deb-b/KEY.asc') });
    expect(other.getFingerprint()).not.toBe(key.getFingerprint());
  });

  it('issue 23 Debian: the plain REST form (?distribution=&component=&architecture=) and several distributions at once; a package of architecture all is in every architecture of its component; the flat layout (flat/) lists every package, those uploaded without a distribution too', async () => {
    const deb = await buildDeb({ name: 'granary-docs', version: '0.9', arch: 'all' });
    const res = await upload(
      'deb-a',
      'pool/granary-docs_0.9_all.deb',
      deb,
      '?distribution=stable,testing&component=contrib',
    );
    expect(res.statusCode, res.body).toBe(201);
    for (const dist of ['stable', 'testing'])
      expect(
        entry(await text(`/repository/deb-a/dists/${dist}/contrib/binary-all/Packages`), 'granary-docs'),
      ).toBeDefined();
    // stable has amd64 packages: the arch-all package is listed for amd64 too
    expect(
      entry(await text('/repository/deb-a/dists/stable/contrib/binary-amd64/Packages'), 'granary-docs'),
    ).toBeDefined();
    expect(await text('/repository/deb-a/dists/stable/Release')).toMatch(/^Components: contrib main$/m);
    expect(await text('/repository/deb-a/dists/testing/Release')).toMatch(/^Architectures: all$/m);

    // without a distribution: in the flat layout only
    const loose = await buildDeb({ name: 'granary-loose', version: '3.0', arch: 'amd64' });
    expect((await upload('deb-a', 'pool/granary-loose_3.0_amd64.deb', loose, '')).statusCode).toBe(201);
    expect(
      entry(await text('/repository/deb-a/dists/stable/main/binary-amd64/Packages'), 'granary-loose'),
    ).toBeUndefined();
    const flat = await text('/repository/deb-a/flat/Packages');
    expect(entry(flat, 'granary-loose')).toBeDefined();
    expect(entry(flat, 'granary-docs')).toBeDefined();
    expect(entry(flat, 'granary-tool')).toBeDefined();
    const flatRelease = await text('/repository/deb-a/flat/Release');
    expect(flatRelease).toContain(` ${sha256(Buffer.from(flat))}`);
    expect(flatRelease).not.toMatch(/^Suite:/m);
  });

  it('issue 23 Debian: bad input is refused with one line of text and leaves nothing — not a .deb, name or version unlike the file name, a path escape, an architecture unlike the control file, an index path', async () => {
    const before = await text('/repository/deb-a/dists/stable/main/binary-amd64/Packages');
    const cases: [string, Buffer, RegExp, string?][] = [
      ['pool/junk_1.0_all.deb', Buffer.from('this is not a package'), /not an ar archive/],
      [
        'pool/other_1.0_amd64.deb',
        await buildDeb({ name: 'granary-x', version: '1.0', arch: 'amd64' }),
        /file name says other 1\.0/,
      ],
      [
        'pool/granary-x_2.0_amd64.deb',
        await buildDeb({ name: 'granary-x', version: '1.0', arch: 'amd64' }),
        /control file says granary-x 1\.0/,
      ],
      [
        'pool/evil_1.0_all.deb',
        await handMadeDeb('evil', '1.0', [['../../etc/cron.d/evil', Buffer.from('x')]]),
        /escapes the package's root/,
      ],
      [
        'pool/granary-y_1.0_amd64.deb',
        await buildDeb({ name: 'granary-y', version: '1.0', arch: 'amd64' }),
        /does not match the package's Architecture amd64/,
        ';deb.distribution=stable;deb.architecture=arm64',
      ],
      [
        'pool/granary-z_1.0_all.deb',
        await buildDeb({ name: 'granary-z', version: '1.0' }),
        /"sta ble" is not a valid distribution/,
        '?distribution=sta%20ble',
      ],
    ];
    for (const [p, bytes, message, params] of cases) {
      const res = await upload('deb-a', p, bytes, params);
      expect(res.statusCode, `${p}: ${res.body}`).toBe(400);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.body).toMatch(message);
      expect(await stored('deb-a', p)).toBe(404);
    }
    const derived = await upload(
      'deb-a',
      'dists/stable/main/binary-amd64/Packages',
      Buffer.from('Package: x\n'),
      '',
    );
    expect(derived.statusCode).toBe(405);
    expect(derived.body).toMatch(/derives/);
    expect(await text('/repository/deb-a/dists/stable/main/binary-amd64/Packages')).toBe(before);
  });

  it('issue 23 Debian: a .deb deleted through the generic API leaves the indexes (afterChange); a dist with no packages left is gone', async () => {
    const deb = await buildDeb({ name: 'granary-gone', version: '1.0', arch: 'amd64' });
    const p = 'pool/granary-gone_1.0_amd64.deb';
    expect((await upload('deb-a', p, deb, ';deb.distribution=oldstable')).statusCode).toBe(201);
    expect(
      entry(await text('/repository/deb-a/dists/oldstable/main/binary-amd64/Packages'), 'granary-gone'),
    ).toBeDefined();
    expect((await req('DELETE', `/repository/deb-a/${p}`)).statusCode).toBe(204);
    expect((await req('GET', '/repository/deb-a/dists/oldstable/Release')).statusCode).toBe(404);
    expect(entry(await text('/repository/deb-a/flat/Packages'), 'granary-gone')).toBeUndefined();
  });

  it('issue 23 Debian: a remote proxies a mirror in Debian layout — indexes passed through, a .deb cached once after its SHA256 matched the mirror’s Packages; a .deb unlike its Packages entry is refused (502) and not cached', async () => {
    const release = await text('/repository/deb-mirror/dists/stable/Release');
    expect(release).toMatch(/^Origin: Mirror$/m);
    const gz = await req('GET', '/repository/deb-mirror/dists/stable/main/binary-amd64/Packages.gz');
    expect(gz.rawPayload.equals(mirrorFiles.get('dists/stable/main/binary-amd64/Packages.gz')!)).toBe(true);
    const p = 'pool/main/g/granary-hello/granary-hello_1.0.0-1_all.deb';
    for (let i = 0; i < 2; i++) {
      const res = await req('GET', `/repository/deb-mirror/${p}`);
      expect(res.statusCode).toBe(200);
      expect(res.rawPayload.equals(mirrorFiles.get(p)!)).toBe(true);
    }
    expect(hits.filter((h) => h.endsWith('granary-hello_1.0.0-1_all.deb'))).toHaveLength(1);
    expect(await stored('deb-mirror-cache', p)).toBe(200);

    const lie = await req('GET', '/repository/deb-mirror/pool/main/l/liar/liar_1.0_all.deb');
    expect(lie.statusCode).toBe(502);
    expect(lie.body).toMatch(/sha256 [0-9a-f]{64} is not its index's 0{64}: not cached/);
    expect(await stored('deb-mirror-cache', 'pool/main/l/liar/liar_1.0_all.deb')).toBe(404);
  });

  it('issue 23 Debian: a virtual merges its members’ Packages (local first; a name a local member holds never comes from the remote), under its own Release signed with its own key; its .debs come from the member that lists them', async () => {
    // deb-a (local) has granary-hello too, another build: the local one wins, the mirror's is hidden.
    const local = await buildDeb({
      name: 'granary-hello',
      version: '1.0.0-1',
      description: 'the local build',
    });
    expect(
      (await upload('deb-a', 'pool/local/granary-hello_1.0.0-1_all.deb', local, ';deb.distribution=stable'))
        .statusCode,
    ).toBe(201);
    const v = await text('/repository/deb-v/dists/stable/main/binary-amd64/Packages');
    const hello = parseParagraphs(v).filter((p) => field(p, 'Package') === 'granary-hello');
    expect(hello).toHaveLength(1);
    expect(field(hello[0]!, 'Filename')).toBe('pool/local/granary-hello_1.0.0-1_all.deb');
    expect(entry(v, 'liar')).toBeDefined();
    expect(entry(v, 'granary-tool')).toBeDefined();

    const release = await text('/repository/deb-v/dists/stable/Release');
    expect(release).toMatch(/^Label: deb-v$/m);
    expect(release).toContain(` ${sha256(Buffer.from(v))} `);
    const key = await openpgp.readKey({
      binaryKey: (await req('GET', '/repository/deb-v/KEY.gpg')).rawPayload,
    });
    const verified = await openpgp.verify({
      message: await openpgp.readCleartextMessage({
        cleartextMessage: await text('/repository/deb-v/dists/stable/InRelease'),
      }),
      verificationKeys: key,
      expectSigned: true,
    });
    expect(verified.data.replace(/\r\n/g, '\n').trimEnd()).toBe(release.trimEnd());
    const aKey = await openpgp.readKey({ armoredKey: await text('/repository/deb-a/KEY.asc') });
    expect(key.getFingerprint()).not.toBe(aKey.getFingerprint());

    const viaVirtual = await req('GET', '/repository/deb-v/pool/local/granary-hello_1.0.0-1_all.deb');
    expect(viaVirtual.rawPayload.equals(local)).toBe(true);
    const sha = field(entry(v, 'granary-tool')!, 'SHA256');
    const tool = await req('GET', `/repository/deb-v/${field(entry(v, 'granary-tool')!, 'Filename')}`);
    expect(sha256(tool.rawPayload)).toBe(sha);
    // an upload through the virtual lands in its default deployment repository
    const up = await upload(
      'deb-v',
      'pool/granary-via_1.0_all.deb',
      await buildDeb({ name: 'granary-via', version: '1.0' }),
      ';deb.distribution=stable',
    );
    expect(up.statusCode, up.body).toBe(201);
    expect(await stored('deb-b', 'pool/granary-via_1.0_all.deb')).toBe(200);
  });

  it('issue 23 Debian: Set Me Up names the key, the sources line with signed-by and the upload; the install command is apt-get install NAME=VERSION', () => {
    const snippets = debianFormat.snippets({
      baseUrl: base,
      repository: { key: 'deb-a', rclass: 'local', packageType: 'debian' },
    });
    const all = snippets.map((s) => s.code).join('\n');
    expect(all).toContain(`${base}/repository/deb-a/KEY.gpg`);
    expect(all).toContain(
      `deb [signed-by=/etc/apt/keyrings/deb-a.gpg] ${base}/repository/deb-a <DISTRIBUTION> <COMPONENT>`,
    );
    expect(all).toContain(
      ';deb.distribution=<DISTRIBUTION>;deb.component=<COMPONENT>;deb.architecture=<ARCH>',
    );
    expect(debianFormat.installCommand!({ name: 'granary-tool', version: '1.2.3-1' })).toBe(
      'apt-get install granary-tool=1.2.3-1',
    );
  });
});

describeFormatProtocolConformance(debianFormat, {
  name: 'granary-conformance',
  async publish(t, repoKey, name, version) {
    const deb = await buildDeb({ name, version, arch: 'amd64', compression: 'gzip' });
    const res = await t.app.inject({
      method: 'PUT',
      url: `/repository/${repoKey}/pool/main/${name}_${version}_amd64.deb;deb.distribution=stable;deb.component=main`,
      headers: { authorization: ADMIN_AUTH },
      payload: deb,
    });
    if (res.statusCode !== 201) throw new Error(`upload failed: ${res.statusCode} ${res.body}`);
  },
  async read(t, repoKey, name) {
    const res = await t.app.inject({
      method: 'GET',
      url: `/repository/${repoKey}/dists/stable/main/binary-amd64/Packages`,
      headers: { authorization: ADMIN_AUTH },
    });
    if (res.statusCode === 404) return null;
    const mine = parseParagraphs(res.body).filter((p) => field(p, 'Package') === name);
    if (!mine.length) return null;
    return {
      versions: mine.map((p) => field(p, 'Version')!),
      fileUrls: mine.map((p) => `http://127.0.0.1/repository/${repoKey}/${field(p, 'Filename')}`),
    };
  },
  remoteSettings: { username: 'admin', password: TEST_ADMIN_PASSWORD },
});
