import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEvents } from '../../platform/events/index.ts';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const READER = basicAuth('reader', 'Reader-pa55word!');
const hash = (kind: string, b: Buffer | string) => createHash(kind).update(b).digest('hex');

describe(`artifacts at /repository/{key}/{path} (${testEngine})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    // 20 uploads at once from one address below: above the default cap (issue 12 §15), not what these tests are about.
    t = await createTestApp({ maxUploadsPerAddress: 64 });
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/users/reader',
      headers: { authorization: ADMIN },
      payload: { password: 'Reader-pa55word!' },
    });
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/permissions/read-generic',
      headers: { authorization: ADMIN },
      payload: {
        repo: {
          repositories: ['generic-local'],
          include_patterns: ['**'],
          exclude_patterns: [],
          actions: { users: { reader: ['read'] } },
        },
      },
    });
  });
  afterAll(async () => {
    await t?.close();
  });
  const deploy = (path: string, body: Buffer | string, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'PUT',
      url: `/repository/generic-local/${path}`,
      headers: { authorization: ADMIN, 'content-type': 'application/octet-stream', ...headers },
      payload: body,
    });
  const get = (path: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') =>
    t.app.inject({
      method,
      url: `/repository/generic-local/${path}`,
      headers: { authorization: ADMIN, ...headers },
    });

  it('DESIGN Public REST API: PUT with the right X-Checksum-Sha256/Sha1/Md5 stores the bytes; GET and HEAD serve them with checksums, ETag, Last-Modified', async () => {
    const body = Buffer.from('hello granary\n');
    const res = await deploy('docs/hello.txt', body, {
      'x-checksum-sha256': hash('sha256', body),
      'x-checksum-sha1': hash('sha1', body),
      'x-checksum-md5': hash('md5', body),
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ repo: 'generic-local', path: '/docs/hello.txt', size: '14' });
    const got = await get('docs/hello.txt');
    expect(got.statusCode).toBe(200);
    expect(got.rawPayload.equals(body)).toBe(true);
    expect(got.headers).toMatchObject({
      'x-checksum-sha256': hash('sha256', body),
      'x-checksum-sha1': hash('sha1', body),
      'x-checksum-md5': hash('md5', body),
      etag: `"${hash('sha1', body)}"`,
      'content-length': '14',
      'x-content-type-options': 'nosniff',
    });
    expect(Date.parse(String(got.headers['last-modified']))).toBeGreaterThan(0);
    const head = await get('docs/hello.txt', {}, 'HEAD');
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe('14');
    expect(head.body).toBe('');
    const notModified = await get('docs/hello.txt', { 'if-none-match': `"${hash('sha256', body)}"` });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.body).toBe('');
  });

  it('DESIGN Public REST API: a wrong checksum → 409 and nothing is stored', async () => {
    const res = await deploy('docs/wrong.txt', 'some bytes', { 'x-checksum-sha1': '0'.repeat(40) });
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0].code).toBe('CHECKSUM_MISMATCH');
    expect((await get('docs/wrong.txt')).statusCode).toBe(404);
    const storage = await t.app.inject({
      url: '/api/storage/generic-local/docs/wrong.txt',
      headers: { authorization: ADMIN },
    });
    expect(storage.statusCode).toBe(404);
  });

  it('DESIGN Storage model: a file cannot become a folder, nor a folder a file (409, nothing stored)', async () => {
    expect((await deploy('tree/a/leaf.txt', 'leaf')).statusCode).toBe(201);
    const under = await deploy('tree/a/leaf.txt/deeper/x.txt', 'x');
    expect(under.statusCode).toBe(409);
    expect(under.json().errors[0].message).toContain("'tree/a/leaf.txt' is a file");
    expect((await get('tree/a/leaf.txt/deeper/x.txt')).statusCode).toBe(404);
    const over = await deploy('tree/a', 'a file where a folder is');
    expect(over.statusCode).toBe(409);
    expect(over.json().errors[0].message).toContain("'tree/a' is a folder");
    expect((await get('tree/a/leaf.txt')).body).toBe('leaf');
  });

  it('DESIGN Public REST API: X-Checksum-Deploy: true deploys stored content by checksum, 404 when unknown', async () => {
    const body = Buffer.from('content deployed once');
    expect((await deploy('a/first.bin', body)).statusCode).toBe(201);
    const again = await deploy('b/second.bin', '', {
      'x-checksum-deploy': 'true',
      'x-checksum-sha256': hash('sha256', body),
    });
    expect(again.statusCode, again.body).toBe(201);
    expect((await get('b/second.bin')).rawPayload.equals(body)).toBe(true);
    const unknown = await deploy('b/third.bin', '', {
      'x-checksum-deploy': 'true',
      'x-checksum-sha1': 'a'.repeat(40),
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('issue 12 §13: a generic re-deploy of the content already at the path (bytes or X-Checksum-Deploy) is an idempotent success without delete permission and without an event; other content needs it', async () => {
    const admin = (url: string, payload: object) =>
      t.app.inject({ method: 'PUT', url, headers: { authorization: ADMIN }, payload });
    expect((await admin('/api/security/users/uploader', { password: 'Uploader-pa55word!' })).statusCode).toBe(
      201,
    );
    const perm = await admin('/api/security/permissions/upload-generic', {
      repo: {
        repositories: ['generic-local'],
        include_patterns: ['**'],
        exclude_patterns: [],
        actions: { users: { uploader: ['read', 'write'] } },
      },
    });
    expect(perm.statusCode, perm.body).toBeLessThan(300);
    const UPLOADER = basicAuth('uploader', 'Uploader-pa55word!');
    const body = Buffer.from('released once, retried often');
    const other = Buffer.from('something else');
    expect((await deploy('retry/other.bin', other)).statusCode).toBe(201);
    expect((await deploy('retry/file.bin', body)).statusCode).toBe(201);
    const deployed = async () =>
      (await listEvents(t.app.granary.database.db)).filter(
        (e) => e.type === 'artifact.deployed' && e.payload.path === 'retry/file.bin',
      ).length;
    expect(await deployed()).toBe(1);
    const asUploader = (payload: Buffer | string, headers: Record<string, string> = {}) =>
      deploy('retry/file.bin', payload, { authorization: UPLOADER, ...headers });
    const checksumDeploy = (content: Buffer) =>
      asUploader('', { 'x-checksum-deploy': 'true', 'x-checksum-sha256': hash('sha256', content) });
    const same = await checksumDeploy(body);
    expect(same.statusCode, same.body).toBe(201);
    expect(same.json().checksums.sha256).toBe(hash('sha256', body));
    expect((await asUploader(body)).statusCode).toBe(201);
    expect(await deployed()).toBe(1);
    // Other content replaces the file: that needs delete permission, and nothing changes without it.
    expect((await checksumDeploy(other)).statusCode).toBe(403);
    expect((await asUploader(Buffer.from('new bytes'))).statusCode).toBe(403);
    expect((await get('retry/file.bin')).rawPayload.equals(body)).toBe(true);
    expect(await deployed()).toBe(1);
  });

  it('byte ranges: 206 with Content-Range, 416 when outside the file', async () => {
    const body = Buffer.from('0123456789');
    await deploy('range/digits.txt', body);
    const part = await get('range/digits.txt', { range: 'bytes=2-5' });
    expect(part.statusCode).toBe(206);
    expect(part.body).toBe('2345');
    expect(part.headers['content-range']).toBe('bytes 2-5/10');
    const tail = await get('range/digits.txt', { range: 'bytes=-3' });
    expect(tail.body).toBe('789');
    const outside = await get('range/digits.txt', { range: 'bytes=20-30' });
    expect(outside.statusCode).toBe(416);
    expect(outside.headers['content-range']).toBe('bytes */10');
  });

  it('matrix parameters ;k=v become properties, readable at /api/storage?properties', async () => {
    expect((await deploy('props/app.zip;release=1.0;team=core,infra', 'zip')).statusCode).toBe(201);
    const res = await t.app.inject({
      url: '/api/storage/generic-local/props/app.zip?properties',
      headers: { authorization: ADMIN },
    });
    expect(res.json().properties).toEqual({ release: ['1.0'], team: ['core', 'infra'] });
  });

  it('20 concurrent uploads of different bytes to one path end with one whole artifact whose bytes match its checksums', async () => {
    const bodies = Array.from({ length: 20 }, () =>
      randomBytes(64 * 1024 + Math.floor(Math.random() * 1000)),
    );
    const answers = await Promise.all(bodies.map((b) => deploy('race/file.bin', b)));
    for (const a of answers) expect(a.statusCode).toBe(201);
    const got = await get('race/file.bin');
    expect(got.statusCode).toBe(200);
    expect(bodies.some((b) => b.equals(got.rawPayload))).toBe(true);
    expect(hash('sha256', got.rawPayload)).toBe(got.headers['x-checksum-sha256']);
    expect(hash('sha1', got.rawPayload)).toBe(got.headers['x-checksum-sha1']);
  });

  it('20 concurrent uploads of the same bytes all succeed and the content is stored once', async () => {
    const body = randomBytes(100_000);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => deploy(`same/copy-${i}.bin`, body)),
    );
    for (const a of answers) expect(a.statusCode).toBe(201);
    const summary = await t.app.inject({
      url: '/ui/api/v1/ui/storagesummary',
      headers: { authorization: ADMIN },
    });
    expect(summary.statusCode).toBe(200);
    const s = summary.json().binariesSummary;
    expect(s.deduplicationSaving).toBeGreaterThanOrEqual(19 * 100_000);
    let blobs = 0;
    for await (const sha of t.app.granary.blobs.list()) if (sha === hash('sha256', body)) blobs++;
    expect(blobs).toBe(1);
  });

  it('an uploaded .html or .svg is served as an attachment, never rendered', async () => {
    await deploy('site/index.html', '<script>alert(1)</script>');
    const res = await get('site/index.html');
    expect(res.headers['content-disposition']).toMatch(/^attachment/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    await deploy('site/logo.svg', '<svg xmlns="http://www.w3.org/2000/svg"><script>1</script></svg>');
    expect((await get('site/logo.svg')).headers['content-disposition']).toMatch(/^attachment/);
  });

  it('every traversal variant is refused on /repository/, /api/storage/ and copy/move, never returning host files', async () => {
    const variants = [
      '../../../../etc/passwd',
      '%2e%2e/%2e%2e/etc/passwd',
      '%252e%252e/%252e%252e/etc/passwd',
      '..%5c..%5cetc%5cpasswd',
      'docs/hello.txt%00.png',
      '..;/..;/etc/passwd',
      'docs/..;/..;/etc/passwd',
      'a\\..\\..\\etc\\passwd',
    ];
    for (const v of variants) {
      for (const url of [`/repository/generic-local/${v}`, `/api/storage/generic-local/${v}`]) {
        const res = await t.app.inject({ url, headers: { authorization: ADMIN } });
        expect([400, 404], `${url} → ${res.statusCode}`).toContain(res.statusCode);
        expect(res.body).not.toContain('root:');
      }
      const put = await deploy(v, 'x');
      expect([400, 404]).toContain(put.statusCode);
      for (const op of ['copy', 'move']) {
        const a = await t.app.inject({
          method: 'POST',
          url: `/api/${op}/generic-local/docs/hello.txt?to=/generic-local/${v}`,
          headers: { authorization: ADMIN },
        });
        expect([400, 404], `${op} to ${v}`).toContain(a.statusCode);
        const b = await t.app.inject({
          method: 'POST',
          url: `/api/${op}/generic-local/${v}?to=/generic-local/x`,
          headers: { authorization: ADMIN },
        });
        expect([400, 404], `${op} from ${v}`).toContain(b.statusCode);
      }
    }
    expect((await get('docs/hello.txt')).statusCode).toBe(200);
  });

  it('permissions: a user with read only reads but cannot deploy (403); anonymous is refused with a Basic challenge unless granted', async () => {
    expect((await get('docs/hello.txt', { authorization: READER })).statusCode).toBe(200);
    const denied = await deploy('docs/by-reader.txt', 'x', { authorization: READER });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().errors[0].status).toBe(403);
    const anon = await t.app.inject({ url: '/repository/generic-local/docs/hello.txt' });
    expect(anon.statusCode).toBe(401);
    expect(anon.headers['www-authenticate']).toMatch(/^Basic/);
    const anonPut = await t.app.inject({
      method: 'PUT',
      url: '/repository/generic-local/docs/anon.txt',
      payload: 'x',
    });
    expect(anonPut.statusCode).toBe(401);
    // Granted: anonymous access on and a permission target for the user anonymous.
    await t.app.inject({
      method: 'PATCH',
      url: '/api/security/configuration',
      headers: { authorization: ADMIN },
      payload: { anonymousAccess: true },
    });
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/permissions/anon-read',
      headers: { authorization: ADMIN },
      payload: {
        repo: {
          repositories: ['generic-local'],
          include_patterns: ['docs/**'],
          exclude_patterns: [],
          actions: { users: { anonymous: ['read'] } },
        },
      },
    });
    const granted = await t.app.inject({ url: '/repository/generic-local/docs/hello.txt' });
    expect(granted.statusCode).toBe(200);
    expect(granted.body).toBe('hello granary\n');
    expect((await t.app.inject({ url: '/repository/generic-local/range/digits.txt' })).statusCode).toBe(401);
  });

  it('storage API: file info with checksums; folder info with children; a folder listing in HTML', async () => {
    const file = await t.app.inject({
      url: '/api/storage/generic-local/docs/hello.txt',
      headers: { authorization: ADMIN },
    });
    expect(file.json()).toMatchObject({
      repo: 'generic-local',
      path: '/docs/hello.txt',
      size: '14',
      createdBy: 'admin',
      checksums: { sha1: hash('sha1', 'hello granary\n'), sha256: hash('sha256', 'hello granary\n') },
    });
    const folder = await t.app.inject({
      url: '/api/storage/generic-local/site',
      headers: { authorization: ADMIN },
    });
    expect(folder.json().children).toEqual([
      { uri: '/index.html', folder: false },
      { uri: '/logo.svg', folder: false },
    ]);
    const root = await t.app.inject({ url: '/api/storage/generic-local', headers: { authorization: ADMIN } });
    expect(root.json().children).toContainEqual({ uri: '/docs', folder: true });
    const html = await get('site/');
    expect(html.headers['content-type']).toMatch(/text\/html/);
    expect(html.body).toContain('href="index.html"');
    expect((await get('site')).statusCode).toBe(302);
  });

  it('properties via REST; copy and move check both ends; events are written with each change', async () => {
    const setRes = await t.app.inject({
      method: 'PUT',
      url: '/api/storage/generic-local/docs/hello.txt?properties=qa=passed;build=42',
      headers: { authorization: ADMIN },
    });
    expect(setRes.statusCode).toBe(204);
    const del = await t.app.inject({
      method: 'DELETE',
      url: '/api/storage/generic-local/docs/hello.txt?properties=build',
      headers: { authorization: ADMIN },
    });
    expect(del.statusCode).toBe(204);
    const props = await t.app.inject({
      url: '/api/storage/generic-local/docs/hello.txt?properties',
      headers: { authorization: ADMIN },
    });
    expect(props.json().properties).toEqual({ qa: ['passed'] });

    const dry = await t.app.inject({
      method: 'POST',
      url: '/api/copy/generic-local/docs?to=/generic-local/backup&dry=1',
      headers: { authorization: ADMIN },
    });
    expect(dry.statusCode, dry.body).toBe(200);
    expect((await get('backup/hello.txt')).statusCode).toBe(404);
    const copy = await t.app.inject({
      method: 'POST',
      url: '/api/copy/generic-local/docs?to=/generic-local/backup',
      headers: { authorization: ADMIN },
    });
    expect(copy.statusCode).toBe(200);
    expect((await get('backup/hello.txt')).body).toBe('hello granary\n');
    const move = await t.app.inject({
      method: 'POST',
      url: '/api/move/generic-local/backup/hello.txt?to=/generic-local/moved/hello.txt',
      headers: { authorization: ADMIN },
    });
    expect(move.statusCode).toBe(200);
    expect((await get('backup/hello.txt')).statusCode).toBe(404);
    expect((await get('moved/hello.txt')).body).toBe('hello granary\n');
    // The reader may read the source but not write the target.
    const readerCopy = await t.app.inject({
      method: 'POST',
      url: '/api/copy/generic-local/docs/hello.txt?to=/generic-local/mine/hello.txt',
      headers: { authorization: READER },
    });
    expect(readerCopy.statusCode).toBe(403);

    const gone = await t.app.inject({
      method: 'DELETE',
      url: '/repository/generic-local/moved',
      headers: { authorization: ADMIN },
    });
    expect(gone.statusCode).toBe(204);
    expect((await get('moved/hello.txt')).statusCode).toBe(404);
    expect(
      (
        await t.app.inject({
          method: 'DELETE',
          url: '/repository/generic-local/docs/x',
          headers: { authorization: READER },
        })
      ).statusCode,
    ).toBe(403);

    const types = (await listEvents(t.app.granary.database.db)).map((e) => e.type);
    for (const type of [
      'artifact.deployed',
      'artifact_property.added',
      'artifact_property.deleted',
      'artifact.copied',
      'artifact.moved',
      'artifact.deleted',
    ])
      expect(types).toContain(type);
  });
});
