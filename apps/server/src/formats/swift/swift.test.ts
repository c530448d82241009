import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packages, packageVersions } from '../../modules/packages/packages.schema.ts';
import { zipBomb } from '../../platform/archives/archive-bombs.ts';
import { ADMIN_AUTH, describeFormatProtocolConformance } from '../../testing/format-protocol-conformance.ts';
import { createTestApp, TEST_ADMIN_PASSWORD, type TestApp, testEngine } from '../../testing/index.ts';
import { describeFormatConformance } from '../sdk/conformance.ts';
import { swiftFormat } from './index.ts';
import { ACCEPT_JSON, publishBody, publishHeaders, sourceZip } from './test-support.ts';

const FIXTURE = readFileSync(path.join(import.meta.dirname, '__fixtures__', 'LinkedList-1.1.1.zip'));
const stored = (p: string, bytes: Buffer) => ({
  path: p,
  size: bytes.length,
  sha256: '0'.repeat(64),
  open: async () => Readable.from([bytes]),
});
const sha256 = (b: Buffer) => createHash('sha256').update(b);
const SIMPLE = sourceZip({ 'Package.swift': '// swift-tools-version:5.9\nimport PackageDescription\n' });

describeFormatConformance(swiftFormat, [
  {
    file: stored('mona/linkedlist/1.1.1/linkedlist-1.1.1.zip', FIXTURE),
    expected: { name: 'mona.linkedlist', version: '1.1.1' },
  },
  { file: stored('mona/linkedlist/1.1.1/Package.swift', Buffer.from('// x')), expected: null },
]);

/** issue 23 Swift: SE-0292 as SwiftPM speaks it — publish, the release list, the source archives. */
describeFormatProtocolConformance(swiftFormat, {
  name: 'conformance',
  remoteSettings: { username: 'admin', password: TEST_ADMIN_PASSWORD },
  async publish(t, repoKey, name, version) {
    const res = await t.app.inject({
      method: 'PUT',
      url: `/repository/${repoKey}/granary/${name}/${version}`,
      headers: publishHeaders(ADMIN_AUTH),
      payload: publishBody(SIMPLE),
    });
    if (res.statusCode !== 201) throw new Error(`publish ${name}@${version}: ${res.statusCode} ${res.body}`);
  },
  async read(t, repoKey, name) {
    const res = await t.app.inject({
      url: `/repository/${repoKey}/granary/${name}`,
      headers: { authorization: ADMIN_AUTH, accept: ACCEPT_JSON },
    });
    if (res.statusCode === 404) return null;
    if (res.statusCode !== 200) throw new Error(`releases: ${res.statusCode} ${res.body}`);
    const releases = (res.json() as { releases: Record<string, { url: string }> }).releases;
    return { versions: Object.keys(releases), fileUrls: Object.values(releases).map((r) => `${r.url}.zip`) };
  },
});

describe(`issue 23 Swift: the swift package-registry flow (${testEngine})`, () => {
  let t: TestApp;
  let base: string;
  const call = (url: string, headers: Record<string, string> = {}, method: 'GET' | 'POST' = 'GET') =>
    t.app.inject({ method, url, headers: { authorization: ADMIN_AUTH, accept: ACCEPT_JSON, ...headers } });
  const publish = (
    repo: string,
    id: string,
    version: string,
    archive: Buffer,
    metadata?: Record<string, unknown>,
  ) =>
    t.app.inject({
      method: 'PUT',
      url: `/repository/${repo}/${id.replace('.', '/')}/${version}`,
      headers: publishHeaders(ADMIN_AUTH),
      payload: publishBody(archive, metadata),
    });
  const expectProblem = (
    res: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
    status: number,
    detail: RegExp,
  ) => {
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['content-version']).toBe('1');
    expect(res.json()).toMatchObject({ status, detail: expect.stringMatching(detail) });
  };

  beforeAll(async () => {
    t = await createTestApp({ outboundAllowlist: '127.0.0.1' });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    for (const [key, body] of [
      ['swift', { rclass: 'local' }],
      ['swift-other', { rclass: 'local' }],
      // This server's own local repository over loopback HTTP is the remote's upstream registry.
      [
        'swift-remote',
        {
          rclass: 'remote',
          url: `${base}/repository/swift`,
          username: 'admin',
          password: TEST_ADMIN_PASSWORD,
        },
      ],
      ['swift-virtual', { rclass: 'virtual', repositories: ['swift-other', 'swift-remote'] }],
    ] as const) {
      const repo = await t.app.inject({
        method: 'PUT',
        url: `/api/repositories/${key}`,
        headers: { authorization: ADMIN_AUTH },
        payload: { packageType: 'swift', ...body },
      });
      expect(repo.statusCode, repo.body).toBe(201);
    }
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('issue 23 Swift: login, publish (201 with Location), the release list with Link latest-version, release metadata with the archive checksum, Package.swift and its alternates, the .zip with Digest, identifiers by repository URL — all with Content-Version: 1', async () => {
    const login = await call('/repository/swift/login', {}, 'POST');
    expect(login.statusCode).toBe(200);
    expect(login.headers['content-version']).toBe('1');
    expectProblem(await t.app.inject({ method: 'POST', url: '/repository/swift/login' }), 401, /.+/);

    const published = await publish('swift', 'mona.LinkedList', '1.1.1', FIXTURE, {
      description: 'One thing links to another.',
      repositoryURLs: ['https://github.com/mona/LinkedList'],
    });
    expect(published.statusCode, published.body).toBe(201);
    expect(published.headers.location).toBe('http://localhost:80/repository/swift/mona/LinkedList/1.1.1');
    expect(published.headers['content-version']).toBe('1');
    expect((await publish('swift', 'mona.LinkedList', '1.0.0', SIMPLE)).statusCode).toBe(201);

    const list = await call('/repository/swift/mona/LinkedList');
    expect(list.statusCode, list.body).toBe(200);
    expect(list.headers['content-type']).toMatch(/^application\/vnd\.swift\.registry\.v1\+json/);
    expect(list.headers['content-version']).toBe('1');
    expect(list.headers.link).toContain(
      '<http://localhost:80/repository/swift/mona/LinkedList/1.1.1>; rel="latest-version"',
    );
    expect(list.json()).toEqual({
      releases: {
        '1.1.1': { url: 'http://localhost:80/repository/swift/mona/LinkedList/1.1.1' },
        '1.0.0': { url: 'http://localhost:80/repository/swift/mona/LinkedList/1.0.0' },
      },
    });

    // scope and name are case-insensitive
    const release = await call('/repository/swift/Mona/linkedlist/1.1.1');
    expect(release.statusCode, release.body).toBe(200);
    expect(release.json()).toEqual({
      id: 'mona.LinkedList',
      version: '1.1.1',
      resources: [
        { name: 'source-archive', type: 'application/zip', checksum: sha256(FIXTURE).digest('hex') },
      ],
      metadata: {
        description: 'One thing links to another.',
        repositoryURLs: ['https://github.com/mona/LinkedList'],
      },
      publishedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(release.headers.link).toContain('rel="predecessor-version"');

    const manifest = await call('/repository/swift/mona/LinkedList/1.1.1/Package.swift', {
      accept: 'application/vnd.swift.registry.v1+swift',
    });
    expect(manifest.statusCode).toBe(200);
    expect(manifest.headers['content-type']).toMatch(/^text\/x-swift/);
    expect(manifest.body).toContain('swift-tools-version:5.9');
    expect(manifest.headers.link).toBe(
      '<http://localhost:80/repository/swift/mona/LinkedList/1.1.1/Package.swift?swift-version=5.7>; rel="alternate"; filename="Package@swift-5.7.swift"; swift-tools-version="5.7"',
    );
    const specific = await call('/repository/swift/mona/LinkedList/1.1.1/Package.swift?swift-version=5.7');
    expect(specific.body).toContain('swift-tools-version:5.7');
    const fallback = await call('/repository/swift/mona/LinkedList/1.1.1/Package.swift?swift-version=4');
    expect(fallback.statusCode).toBe(303);
    expect(fallback.headers.location).toBe(
      'http://localhost:80/repository/swift/mona/LinkedList/1.1.1/Package.swift',
    );

    // SwiftPM checks the archive against the release metadata's checksum, and the Digest header
    const zip = await call('/repository/swift/mona/LinkedList/1.1.1.zip', {
      accept: 'application/vnd.swift.registry.v1+zip',
    });
    expect(zip.statusCode).toBe(200);
    expect(zip.rawPayload.equals(FIXTURE)).toBe(true);
    expect(zip.headers.digest).toBe(`sha-256=${sha256(zip.rawPayload).digest('base64')}`);
    expect(zip.headers['content-disposition']).toBe('attachment; filename="LinkedList-1.1.1.zip"');
    expect(zip.headers['content-version']).toBe('1');

    const ids = await call(
      `/repository/swift/identifiers?url=${encodeURIComponent('git@github.com:mona/LinkedList.git')}`,
    );
    expect(ids.statusCode, ids.body).toBe(200);
    expect(ids.json()).toEqual({ identifiers: ['mona.LinkedList'] });
    expectProblem(
      await call('/repository/swift/identifiers?url=https://github.com/nobody/none'),
      404,
      /nobody/,
    );
    expectProblem(
      await call('/repository/swift/mona/LinkedList', { accept: 'application/vnd.swift.registry.v2+json' }),
      400,
      /API version/,
    );

    const rows = await t.app.granary.database.db
      .select({
        version: packageVersions.version,
        lead: packageVersions.leadPath,
        description: packageVersions.description,
        readme: packageVersions.readme,
        dependencies: packageVersions.dependencies,
      })
      .from(packageVersions)
      .innerJoin(packages, eq(packages.id, packageVersions.packageId))
      .where(eq(packages.name, 'mona.linkedlist'));
    expect(rows).toContainEqual(
      expect.objectContaining({
        version: '1.1.1',
        lead: 'mona/linkedlist/1.1.1/linkedlist-1.1.1.zip',
        description: 'One thing links to another.',
        readme: '# LinkedList\n\nOne thing links to another.\n',
        dependencies: [
          { name: 'apple.swift-collections', range: 'from 1.0.0' },
          { name: 'https://github.com/apple/swift-algorithms', range: 'exact 1.2.0' },
        ],
      }),
    );
  });

  it('issue 23 Swift: bad input (identifier grammar, not multipart, no Package.swift at the root, a path escape, a decompression bomb, not a zip, an existing version) is refused with problem details and leaves nothing', async () => {
    expectProblem(await publish('swift', 'mo--na.Bad', '1.0.0', SIMPLE), 400, /Invalid scope/);
    expectProblem(await publish('swift', 'mona.-bad', '1.0.0', SIMPLE), 400, /Invalid package name/);
    expectProblem(await publish('swift', 'mona.Bad', '1.0', SIMPLE), 400, /Invalid version/);
    const plain = await t.app.inject({
      method: 'PUT',
      url: '/repository/swift/mona/Bad/1.0.0',
      headers: { authorization: ADMIN_AUTH, 'content-type': 'application/zip' },
      payload: SIMPLE,
    });
    expectProblem(plain, 415, /multipart/);
    expectProblem(
      await publish('swift', 'mona.Bad', '1.0.0', sourceZip({ 'Sources/x.swift': 'x' })),
      422,
      /no Package\.swift/,
    );
    expectProblem(
      await publish(
        'swift',
        'mona.Bad',
        '1.0.0',
        sourceZip({ 'Bad/Package.swift': 'x', 'Other/Package.swift': 'y' }),
      ),
      422,
      /no Package\.swift/,
    );
    expectProblem(
      await publish(
        'swift',
        'mona.Bad',
        '1.0.0',
        sourceZip({ 'Package.swift': 'x', '../../escape.swift': 'boom' }),
      ),
      422,
      /escape\.swift/,
    );
    expectProblem(await publish('swift', 'mona.Bad', '1.0.0', Buffer.from('not a zip')), 422, /not a zip/);
    const bomb = zipBomb([
      { name: 'Package.swift', content: '// swift-tools-version:5.9\n' },
      { name: 'Sources/big.swift', zeros: 200 * 1024 * 1024 },
    ]);
    expectProblem(await publish('swift', 'mona.Bad', '1.0.0', bomb), 422, /decompression bomb/);
    expect((await call('/api/storage/swift/mona/bad')).statusCode).toBe(404);
    expectProblem(await call('/repository/swift/mona/Bad'), 404, /mona\.Bad/);

    expect((await publish('swift', 'mona.Dup', '1.0.0', SIMPLE)).statusCode).toBe(201);
    expectProblem(await publish('swift', 'MONA.dup', '1.0.0', FIXTURE), 409, /already exists/);
    const kept = await call('/repository/swift/mona/Dup/1.0.0.zip');
    expect(kept.rawPayload.equals(SIMPLE)).toBe(true);
  });

  it("issue 23 Swift: a virtual repository merges its members' releases (local first); a remote proxies an upstream registry and caches archives checked against the upstream's checksum", async () => {
    expect((await publish('swift-other', 'mona.LinkedList', '2.0.0', SIMPLE)).statusCode).toBe(201);
    // a remote alone: the upstream's releases, URLs of this repository, the archive cached
    const remote = await call('/repository/swift-remote/mona/LinkedList');
    expect(remote.statusCode, remote.body).toBe(200);
    expect(Object.keys(remote.json().releases)).toEqual(['1.1.1', '1.0.0']);
    const rzip = await call('/repository/swift-remote/mona/LinkedList/1.1.1.zip');
    expect(rzip.statusCode, rzip.body).toBe(200);
    expect(rzip.rawPayload.equals(FIXTURE)).toBe(true);
    expect(
      (await call('/api/storage/swift-remote-cache/mona/linkedlist/1.1.1/linkedlist-1.1.1.zip')).statusCode,
    ).toBe(200);
    const rmanifest = await call('/repository/swift-remote/mona/LinkedList/1.1.1/Package.swift');
    expect(rmanifest.body).toContain('swift-tools-version:5.9');

    // the virtual: swift-other holds mona.LinkedList, so the guarded remote is not asked
    const guarded = await call('/repository/swift-virtual/mona/LinkedList');
    expect(Object.keys(guarded.json().releases)).toEqual(['2.0.0']);
    // a package only the remote has comes through the virtual, with the virtual's URLs
    const list = await call('/repository/swift-virtual/mona/Dup');
    expect(list.json()).toEqual({
      releases: { '1.0.0': { url: 'http://localhost:80/repository/swift-virtual/mona/Dup/1.0.0' } },
    });
    const vzip = await call('/repository/swift-virtual/mona/Dup/1.0.0.zip');
    expect(vzip.rawPayload.equals(SIMPLE)).toBe(true);
    const meta = await call('/repository/swift-virtual/mona/Dup/1.0.0');
    expect(meta.json().resources[0].checksum).toBe(sha256(SIMPLE).digest('hex'));
    // publishing through a virtual lands in its default deployment repository (none here: refused)
    expectProblem(
      await publish('swift-virtual', 'mona.New', '1.0.0', SIMPLE),
      400,
      /no default deployment repository/,
    );
  });
});
