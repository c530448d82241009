import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Readable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packages, packageVersions } from '../../platform/db/schema.ts';
import { ADMIN_AUTH, describeFormatProtocolConformance } from '../../testing/format-protocol-conformance.ts';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { describeFormatConformance } from '../sdk/conformance.ts';
import { LIMITS } from './archive.ts';
import { pypiFormat } from './index.ts';
import { negotiate, parseProjectHtml } from './index-builder.ts';
import { parseCoreMetadata, parseRequirement } from './metadata.ts';
import { readMultipart } from './multipart.ts';
import { canonicalVersion, normalizeName, parseDistFilename } from './names.ts';
import { makeSdist, makeWheel, uploadForm } from './test-dists.ts';

const FIXTURES = path.join(import.meta.dirname, '__fixtures__');
const WHEEL = readFileSync(path.join(FIXTURES, 'Hello_Granary-1.0.0-py3-none-any.whl'));
const SDIST = readFileSync(path.join(FIXTURES, 'Hello_Granary-1.0.0.tar.gz'));
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

const stored = (p: string, bytes: Buffer) => ({
  path: p,
  size: bytes.length,
  sha256: sha256(bytes),
  open: async () => Readable.from([bytes]),
});

describeFormatConformance(pypiFormat, [
  {
    file: stored('packages/hello-granary/1.0.0/Hello_Granary-1.0.0-py3-none-any.whl', WHEEL),
    expected: { name: 'hello-granary', version: '1.0.0' },
  },
  {
    file: stored('packages/hello-granary/1.0.0/Hello_Granary-1.0.0.tar.gz', SDIST),
    expected: { name: 'hello-granary', version: '1.0.0' },
  },
  {
    file: stored(
      'packages/hello-granary/1.0.0/Hello_Granary-1.0.0-py3-none-any.whl.metadata',
      Buffer.from('Name: x'),
    ),
    expected: null,
  },
  { file: stored('simple/hello-granary/index.html', Buffer.from('<a href="x">x</a>')), expected: null },
  { file: stored('packages/x/1.0/x-1.0-py3-none-any.whl', Buffer.from('not a zip')), expected: null },
]);

describe('pypi names, versions, documents (units)', () => {
  it('PEP 503: normalises project names', () => {
    expect(normalizeName('Hello_Granary')).toBe('hello-granary');
    expect(normalizeName('a.-_B__c')).toBe('a-b-c');
  });

  it('PEP 440: equal spellings of a version compare equal, different versions do not', () => {
    expect(canonicalVersion('1.0.0-RC.1')).toBe(canonicalVersion('1.0.0rc1'));
    expect(canonicalVersion('v2.0')).toBe(canonicalVersion('2.0'));
    expect(canonicalVersion('1.0-beta.2')).toBe(canonicalVersion('1.0b2'));
    expect(canonicalVersion('1.10')).not.toBe(canonicalVersion('11.0'));
    expect(canonicalVersion('1.0.post1')).not.toBe(canonicalVersion('1.0'));
  });

  it('PEP 427 / 625: parses wheel and sdist file names, refuses others', () => {
    expect(parseDistFilename('Hello_Granary-1.0.0-py3-none-any.whl')).toMatchObject({
      kind: 'wheel',
      name: 'Hello_Granary',
      version: '1.0.0',
    });
    expect(parseDistFilename('pkg-2.0-1-cp311-cp311-manylinux_2_17_x86_64.whl')).toMatchObject({
      version: '2.0',
    });
    expect(parseDistFilename('old-style-name-1.2.tar.gz')).toMatchObject({
      kind: 'sdist',
      name: 'old-style-name',
      version: '1.2',
    });
    expect(parseDistFilename('pkg-1.0.zip')).toMatchObject({ kind: 'sdist', extension: '.zip' });
    expect(parseDistFilename('pkg-1.0.exe')).toBeNull();
    expect(parseDistFilename('pkg.whl')).toBeNull();
  });

  it('PEP 691: negotiates JSON or HTML by Accept q-values, HTML by default, 406 when neither', () => {
    const pip =
      'application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html; q=0.1, text/html; q=0.01';
    expect(negotiate(pip)).toBe('json');
    expect(negotiate(undefined)).toBe('html');
    expect(negotiate('*/*')).toBe('html');
    expect(negotiate('text/html, application/vnd.pypi.simple.v1+json;q=0.5')).toBe('html');
    expect(negotiate('image/png')).toBeNull();
    expect(negotiate('text/html', 'application/vnd.pypi.simple.v1+json')).toBe('json');
  });

  it('core metadata: multi-valued fields, folded lines, description body; requirements with extras and markers', () => {
    const meta = parseCoreMetadata(
      Buffer.from(
        'Name: a\nRequires-Dist: b\nRequires-Dist: c\nLicense: long\n        |second\n\nbody text\n',
      ),
    );
    expect(meta.fields.get('requires-dist')).toEqual(['b', 'c']);
    expect(meta.fields.get('license')).toEqual(['long\nsecond']);
    expect(meta.body).toBe('body text');
    expect(parseRequirement("PySocks (>=1.5) ; extra == 'socks'")).toEqual({
      name: 'PySocks',
      range: ">=1.5 ; extra == 'socks'",
      scope: 'extra:socks',
    });
    expect(parseRequirement('requests[security]>=2.0')).toEqual({ name: 'requests', range: '>=2.0' });
  });

  it('multipart: reads fields and the file however the body is chunked', async () => {
    const form = await uploadForm(
      { filename: 'a-1.0.tar.gz', bytes: Buffer.from('\r\n--tricky\r\nbytes') },
      { name: 'a' },
    );
    const boundary = /boundary=(.+)$/.exec(form.contentType)![1]!;
    const oneByte = Readable.from([...form.body].map((b) => Buffer.from([b])));
    const parsed = await readMultipart(oneByte, boundary);
    expect(parsed.fields.get('name')).toEqual(['a']);
    expect(parsed.file?.filename).toBe('a-1.0.tar.gz');
    expect(parsed.file?.content.toString()).toBe('\r\n--tricky\r\nbytes');
    await expect(readMultipart(Readable.from([form.body.subarray(0, 100)]), boundary)).rejects.toThrow(
      /ended early/,
    );
    await expect(
      readMultipart(Readable.from([form.body]), boundary, {
        fileBytes: 4,
        fieldBytes: 1000,
        totalFieldBytes: 10_000,
        parts: 100,
        headerBytes: 1000,
      }),
    ).rejects.toThrow(/larger than 4 bytes/);
  });

  it('reads an upstream page: hashes from the fragment, escaped requires-python, metadata and yanked attributes', () => {
    const html = `<a href="../../packages/a/1.0/a-1.0-py3-none-any.whl#sha256=ABCD" data-requires-python="&gt;=3.8" data-dist-info-metadata="sha256=ef01" data-yanked="">a-1.0-py3-none-any.whl</a>
      <a href="https://files.example.com/a-0.9.tar.gz">a-0.9.tar.gz</a><a href="/elsewhere">not a dist</a>`;
    const page = parseProjectHtml(html, 'https://up.example.com/simple/a/', 'a');
    expect(page.files).toEqual([
      {
        filename: 'a-1.0-py3-none-any.whl',
        url: 'https://up.example.com/packages/a/1.0/a-1.0-py3-none-any.whl',
        hashes: { sha256: 'abcd' },
        requiresPython: '>=3.8',
        metadata: { sha256: 'ef01' },
        yanked: true,
      },
      { filename: 'a-0.9.tar.gz', url: 'https://files.example.com/a-0.9.tar.gz', hashes: {} },
    ]);
  });

  it('spec 001 §3: Set Me Up has pip.conf with the index URL and credentials, .pypirc and twine; install command with and without version', () => {
    const snippets = pypiFormat.snippets({
      baseUrl: 'https://repo.example.com',
      repository: { key: 'py', rclass: 'virtual', packageType: 'pypi' },
      username: 'jo',
    });
    expect(snippets.find((s) => s.code.includes('index-url'))?.code).toBe(
      '# py: https://repo.example.com/repository/py/simple\n[global]\nindex-url = https://jo:<PASSWORD>@repo.example.com/repository/py/simple',
    );
    expect(snippets.some((s) => s.code.includes('repository: https://repo.example.com/repository/py/'))).toBe(
      true,
    );
    expect(snippets.some((s) => s.code.includes('twine upload --repository py dist/*'))).toBe(true);
    expect(pypiFormat.installCommand?.({ name: 'requests' })).toBe('pip install requests');
    expect(pypiFormat.installCommand?.({ name: 'requests', version: '2.31.0' })).toBe(
      'pip install requests==2.31.0',
    );
  });
});

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const JSON_ACCEPT = 'application/vnd.pypi.simple.v1+json';

describe(`pypi repositories over HTTP (${testEngine})`, () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ outboundAllowlist: '127.0.0.1' });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const put = async (key: string, payload: object) =>
      expect(
        (
          await t.app.inject({
            method: 'PUT',
            url: `/api/repositories/${key}`,
            headers: { authorization: ADMIN },
            payload,
          })
        ).statusCode,
      ).toBe(201);
    await put('py-local', { rclass: 'local', packageType: 'pypi' });
    await put('py-up', { rclass: 'local', packageType: 'pypi' });
    await put('py-remote', {
      rclass: 'remote',
      packageType: 'pypi',
      url: `${base}/repository/py-up`,
      username: 'admin',
      password: TEST_ADMIN_PASSWORD,
    });
    await put('py', {
      rclass: 'virtual',
      packageType: 'pypi',
      repositories: ['py-local', 'py-remote'],
      defaultDeploymentRepo: 'py-local',
    });
  }, 60_000);
  afterAll(async () => t?.close());

  const upload = async (
    repo: string,
    file: { filename: string; bytes: Buffer },
    fields: Record<string, string> = {},
    auth = ADMIN,
  ) => {
    const form = await uploadForm(file, fields);
    return t.app.inject({
      method: 'POST',
      url: `/repository/${repo}/`,
      headers: { authorization: auth, 'content-type': form.contentType },
      payload: form.body,
    });
  };
  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, headers: { authorization: ADMIN, ...headers } });
  const storedFiles = async (repo: string) => {
    const res = await get(`/api/storage/${repo}/packages`);
    return res.statusCode === 404 ? [] : (res.json().children as { uri: string }[]);
  };

  it('twine upload API: stores a real wheel and sdist at packages/{name}/{version}/ and answers 200', async () => {
    const wheel = await upload(
      'py-local',
      { filename: 'Hello_Granary-1.0.0-py3-none-any.whl', bytes: WHEEL },
      { name: 'Hello-Granary', version: '1.0.0', filetype: 'bdist_wheel' },
    );
    expect(wheel.statusCode).toBe(200);
    const sdist = await upload(
      'py-local',
      { filename: 'Hello_Granary-1.0.0.tar.gz', bytes: SDIST },
      { name: 'Hello-Granary', version: '1.0.0', filetype: 'sdist' },
    );
    expect(sdist.statusCode).toBe(200);
    const file = await get(
      '/repository/py-local/packages/hello-granary/1.0.0/Hello_Granary-1.0.0-py3-none-any.whl',
    );
    expect(file.statusCode).toBe(200);
    expect(sha256(file.rawPayload)).toBe(sha256(WHEEL));
  });

  it('PEP 503 / 592 / 658: the HTML page links each file with #sha256, escaped data-requires-python and the metadata hash', async () => {
    const res = await get('/repository/py-local/simple/hello-granary/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const metadata = await get(
      '/repository/py-local/packages/hello-granary/1.0.0/Hello_Granary-1.0.0-py3-none-any.whl.metadata',
    );
    expect(metadata.statusCode).toBe(200);
    expect(metadata.body).toMatch(/^Metadata-Version: 2\.1\nName: Hello-Granary\n/);
    const wheelUrl = `${'http://localhost:80'}/repository/py-local/packages/hello-granary/1.0.0/Hello_Granary-1.0.0-py3-none-any.whl`;
    expect(res.body).toContain(
      `<a href="${wheelUrl}#sha256=${sha256(WHEEL)}" data-requires-python="&gt;=3.8" data-dist-info-metadata="sha256=${sha256(metadata.rawPayload)}" data-core-metadata="sha256=${sha256(metadata.rawPayload)}">Hello_Granary-1.0.0-py3-none-any.whl</a>`,
    );
    expect(res.body).toContain(
      `#sha256=${sha256(SDIST)}" data-requires-python="&gt;=3.8">Hello_Granary-1.0.0.tar.gz</a>`,
    );
    expect(res.body).not.toContain('Hello_Granary-1.0.0.tar.gz.metadata');
  });

  it('PEP 691 / 714: the JSON page when Accept asks for it (hashes, requires-python, core-metadata, versions, size)', async () => {
    const res = await get('/repository/py-local/simple/hello-granary/', { accept: JSON_ACCEPT });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/vnd\.pypi\.simple\.v1\+json/);
    expect(res.headers.vary).toBe('Accept');
    const page = res.json();
    expect(page.meta['api-version']).toBe('1.1');
    expect(page.name).toBe('hello-granary');
    expect(page.versions).toEqual(['1.0.0']);
    const wheel = page.files.find((f: { filename: string }) => f.filename.endsWith('.whl'));
    expect(wheel).toMatchObject({
      hashes: { sha256: sha256(WHEEL) },
      'requires-python': '>=3.8',
      yanked: false,
      size: WHEEL.length,
    });
    expect(wheel['core-metadata']).toEqual({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    // PEP 714: the old key is not sent in JSON (pip 23.0 crashes on its hash object).
    expect(wheel).not.toHaveProperty('dist-info-metadata');
    const sdist = page.files.find((f: { filename: string }) => f.filename.endsWith('.tar.gz'));
    expect(sdist['core-metadata']).toBe(false);
  });

  it('PEP 503 root page lists projects by normalised name, HTML and JSON', async () => {
    const html = await get('/repository/py-local/simple/');
    expect(html.body).toContain(
      '<a href="http://localhost:80/repository/py-local/simple/hello-granary/">hello-granary</a>',
    );
    const json = await get('/repository/py-local/simple/', { accept: JSON_ACCEPT });
    expect(json.json().projects).toEqual([{ name: 'hello-granary' }]);
  });

  it('PEP 503: non-normalised names and missing trailing slashes redirect to the normalised URL', async () => {
    const odd = await get('/repository/py-local/simple/Hello_Granary/?format=x');
    expect(odd.statusCode).toBe(301);
    expect(odd.headers.location).toBe(
      'http://localhost:80/repository/py-local/simple/hello-granary/?format=x',
    );
    expect((await get('/repository/py-local/simple/hello-granary')).headers.location).toBe(
      'http://localhost:80/repository/py-local/simple/hello-granary/',
    );
    expect((await get('/repository/py-local/simple')).headers.location).toBe(
      'http://localhost:80/repository/py-local/simple/',
    );
    const missing = await get('/repository/py-local/simple/nothing-here/');
    expect(missing.statusCode).toBe(404);
    expect(missing.body).toMatch(/No project 'nothing-here'/);
  });

  it('answers If-None-Match with 304 for an unchanged page', async () => {
    const first = await get('/repository/py-local/simple/hello-granary/');
    const again = await get('/repository/py-local/simple/hello-granary/', {
      'if-none-match': first.headers.etag as string,
    });
    expect(again.statusCode).toBe(304);
  });

  it('PEP 592: a file with the pypi.yanked property is shown yanked, with its reason', async () => {
    const p = 'py-local/packages/hello-granary/1.0.0/Hello_Granary-1.0.0.tar.gz';
    expect(
      (
        await t.app.inject({
          method: 'PUT',
          url: `/api/storage/${p}?properties=pypi.yanked=broken build`,
          headers: { authorization: ADMIN },
        })
      ).statusCode,
    ).toBe(204);
    const html = await get('/repository/py-local/simple/hello-granary/');
    expect(html.body).toContain('data-yanked="broken build">Hello_Granary-1.0.0.tar.gz</a>');
    const json = (await get('/repository/py-local/simple/hello-granary/', { accept: JSON_ACCEPT })).json();
    expect(json.files.find((f: { filename: string }) => f.filename.endsWith('.tar.gz')).yanked).toBe(
      'broken build',
    );
    await t.app.inject({
      method: 'DELETE',
      url: `/api/storage/${p}?properties=pypi.yanked`,
      headers: { authorization: ADMIN },
    });
    expect((await get('/repository/py-local/simple/hello-granary/')).body).not.toContain('data-yanked');
  });

  it('package index: name, version, summary, licence, requires-dist and readme from METADATA', async () => {
    const db = t.app.repositories.db;
    const [pkg] = await db.select().from(packages).where(eq(packages.name, 'hello-granary'));
    expect(pkg).toMatchObject({
      packageType: 'pypi',
      description: "A tiny package to test Granary's PyPI format",
      latestVersion: '1.0.0',
    });
    const [version] = await db.select().from(packageVersions).where(eq(packageVersions.packageId, pkg!.id));
    expect(version).toMatchObject({ version: '1.0.0', licenses: ['MIT'], keywords: ['granary', 'test'] });
    expect(version!.dependencies).toEqual([
      { name: 'requests', range: '>=2.0' },
      { name: 'idna', range: '; python_version < "3.99"' },
      { name: 'PySocks', range: ">=1.5 ; extra == 'socks'", scope: 'extra:socks' },
    ]);
    expect(version!.readme).toContain('Says hello <from> Granary & friends.');
  });

  it('re-uploading an existing file is refused with 400 and a reason twine shows; the stored file is unchanged', async () => {
    const res = await upload('py-local', { filename: 'Hello_Granary-1.0.0-py3-none-any.whl', bytes: WHEEL });
    expect(res.statusCode).toBe(400);
    expect(res.statusMessage).toMatch(/^File already exists: 'Hello_Granary-1\.0\.0-py3-none-any\.whl'/);
    expect(res.body).toMatch(/already exists/);
  });

  describe('malformed uploads are refused with a clear 400 and nothing is stored', () => {
    const cases: [
      string,
      () => Promise<{ filename: string; bytes: Buffer }>,
      Record<string, string>,
      RegExp,
    ][] = [
      [
        'not an archive',
        async () => ({ filename: 'junk-1.0-py3-none-any.whl', bytes: Buffer.from('this is not a zip') }),
        {},
        /not a zip archive/,
      ],
      [
        'a wheel without METADATA',
        () => makeWheel({ name: 'nometa', version: '1.0', omitMetadata: true }),
        {},
        /no \.dist-info\/METADATA/,
      ],
      [
        'an sdist without PKG-INFO',
        () => makeSdist({ name: 'nopkginfo', version: '1.0', omitMetadata: true }),
        {},
        /no PKG-INFO/,
      ],
      [
        'a wheel whose METADATA names another project',
        () => makeWheel({ name: 'claimed', version: '1.0', metadataName: 'other' }),
        {},
        /METADATA says other 1\.0 but the file name says claimed 1\.0/,
      ],
      [
        'a gzip that is not a tar',
        async () => ({ filename: 'gz-1.0.tar.gz', bytes: Buffer.from('not gzip') }),
        {},
        /not a gzip-compressed tar/,
      ],
      [
        'a file name that is no distribution',
        async () => ({ filename: 'setup.exe', bytes: Buffer.from('MZ') }),
        {},
        /is not a wheel/,
      ],
      [
        'a wheel whose form name disagrees',
        () => makeWheel({ name: 'formname', version: '1.0' }),
        { name: 'different' },
        /The form names project 'different'/,
      ],
      [
        'a wrong sha256_digest',
        () => makeWheel({ name: 'digest', version: '1.0' }),
        { sha256_digest: '0'.repeat(64) },
        /sha256_digest does not match/,
      ],
    ];
    for (const [what, make, fields, message] of cases)
      it(what, async () => {
        const before = await storedFiles('py-local');
        const res = await upload('py-local', await make(), fields);
        expect(res.statusCode).toBe(400);
        expect(res.statusMessage).toMatch(message);
        expect(res.body).toMatch(/Nothing was stored|nothing was stored/);
        expect(await storedFiles('py-local')).toEqual(before);
      });

    it('a zip bomb entry (compression ratio) is refused', async () => {
      const { default: yazl } = await import('yazl');
      const zip = new yazl.ZipFile();
      zip.addBuffer(Buffer.alloc(LIMITS.ratio * 5 * 2000), 'bomb/data.bin');
      zip.addBuffer(Buffer.from('Name: bomb\nVersion: 1.0\n'), 'bomb-1.0.dist-info/METADATA');
      zip.end();
      const chunks: Buffer[] = [];
      for await (const c of zip.outputStream) chunks.push(c as Buffer);
      const res = await upload('py-local', {
        filename: 'bomb-1.0-py3-none-any.whl',
        bytes: Buffer.concat(chunks),
      });
      expect(res.statusCode).toBe(400);
      expect(res.statusMessage).toMatch(/compression ratio/);
    });
  });

  it('uploads need deploy permission: anonymous callers get 401 in plain text before the body is read', async () => {
    const form = await uploadForm(await makeWheel({ name: 'anon', version: '1.0' }));
    const res = await t.app.inject({
      method: 'POST',
      url: '/repository/py-local/',
      headers: { 'content-type': form.contentType },
      payload: form.body,
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Basic/);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const page = await t.app.inject({ method: 'GET', url: '/repository/py-local/simple/hello-granary/' });
    expect(page.statusCode).toBe(401);
  });

  it('remote: proxies the upstream page with file URLs rewritten to this server, and caches files byte-identical', async () => {
    const dep = await makeWheel({ name: 'upstream-dep', version: '2.0.0', requiresPython: '>=3' });
    expect((await upload('py-up', dep)).statusCode).toBe(200);
    const page = await get('/repository/py-remote/simple/upstream-dep/');
    expect(page.statusCode).toBe(200);
    const fileUrl =
      'http://localhost:80/repository/py-remote/packages/upstream-dep/2.0.0/upstream_dep-2.0.0-py3-none-any.whl';
    expect(page.body).toContain(
      `href="${fileUrl}#sha256=${sha256(dep.bytes)}" data-requires-python="&gt;=3" data-dist-info-metadata="sha256=`,
    );
    const json = (await get('/repository/py-remote/simple/upstream-dep/', { accept: JSON_ACCEPT })).json();
    expect(json.files[0]).toMatchObject({
      url: fileUrl,
      hashes: { sha256: sha256(dep.bytes) },
      'requires-python': '>=3',
    });
    const file = await get(new URL(fileUrl).pathname);
    expect(file.statusCode).toBe(200);
    expect(sha256(file.rawPayload)).toBe(sha256(dep.bytes));
    const meta = await get(`${new URL(fileUrl).pathname}.metadata`);
    expect(meta.body).toMatch(/^Metadata-Version: 2\.1\nName: upstream-dep/);
    const cached = await get(
      '/api/storage/py-remote-cache/packages/upstream-dep/2.0.0/upstream_dep-2.0.0-py3-none-any.whl',
    );
    expect(cached.json().checksums.sha256).toBe(sha256(dep.bytes));
    expect(
      (await get('/repository/py-remote/simple/', { accept: JSON_ACCEPT })).json().projects,
    ).toContainEqual({ name: 'upstream-dep' });
    expect((await get('/repository/py-remote/simple/not-upstream/')).statusCode).toBe(404);
  });

  it('remote repositories refuse uploads with 405', async () => {
    const res = await upload('py-remote', await makeWheel({ name: 'x', version: '1.0' }));
    expect(res.statusCode).toBe(405);
    expect(res.statusMessage).toMatch(/does not accept uploads/);
  });

  it('virtual: merges member pages; a project held locally is served from local members only (dependency confusion)', async () => {
    expect((await upload('py-up', await makeWheel({ name: 'confused', version: '99.0.0' }))).statusCode).toBe(
      200,
    );
    expect((await upload('py', await makeWheel({ name: 'confused', version: '1.2.0' }))).statusCode).toBe(
      200,
    );
    const confused = (await get('/repository/py/simple/confused/', { accept: JSON_ACCEPT })).json();
    expect(confused.versions).toEqual(['1.2.0']);
    expect(confused.files[0].url).toBe(
      'http://localhost:80/repository/py/packages/confused/1.2.0/confused-1.2.0-py3-none-any.whl',
    );
    const remoteOnly = (await get('/repository/py/simple/upstream-dep/', { accept: JSON_ACCEPT })).json();
    expect(remoteOnly.versions).toEqual(['2.0.0']);
    const file = await get(new URL(remoteOnly.files[0].url).pathname);
    expect(file.statusCode).toBe(200);
    const root = (await get('/repository/py/simple/', { accept: JSON_ACCEPT })).json();
    expect(root.projects.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['confused', 'hello-granary', 'upstream-dep']),
    );
    // The remote's own page still offers 99.0.0: only the virtual keeps the local name.
    expect(
      (await get('/repository/py-remote/simple/confused/', { accept: JSON_ACCEPT })).json().versions,
    ).toEqual(['99.0.0']);
  });
});

describeFormatProtocolConformance(pypiFormat, {
  name: 'conformance-pkg',
  async publish(t, repoKey, name, version) {
    const form = await uploadForm(await makeWheel({ name, version }));
    const res = await t.app.inject({
      method: 'POST',
      url: `/repository/${repoKey}/`,
      headers: { authorization: ADMIN_AUTH, 'content-type': form.contentType },
      payload: form.body,
    });
    if (res.statusCode !== 200) throw new Error(`upload failed: ${res.statusCode} ${res.body}`);
  },
  async read(t, repoKey, name) {
    const res = await t.app.inject({
      method: 'GET',
      url: `/repository/${repoKey}/simple/${name}/`,
      headers: { authorization: ADMIN_AUTH, accept: JSON_ACCEPT },
    });
    if (res.statusCode === 404) return null;
    const page = res.json() as { versions: string[]; files: { url: string }[] };
    return { versions: page.versions, fileUrls: page.files.map((f) => f.url) };
  },
  remoteSettings: { username: 'admin', password: TEST_ADMIN_PASSWORD },
});
