import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { describeFormatConformance } from '../sdk/conformance.ts';
import { dockerFormat } from './index.ts';
import { digestOf, type TestImage, testImage, testIndex } from './oci-testing.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const READER = basicAuth('reader', 'Reader-pa55word!');
const fixture = (name: string) => path.join(import.meta.dirname, '__fixtures__', name);
const stored = (p: string, bytes: Buffer) => ({
  path: p,
  size: bytes.length,
  sha256: digestOf(bytes).slice(7),
  open: async () => Readable.from([bytes]),
});

const manifestFixture = await readFile(fixture('manifest.json'));
const indexFixture = await readFile(fixture('index.json'));
describeFormatConformance(dockerFormat, [
  {
    file: stored('alpine/3.19/manifest.json', manifestFixture),
    expected: { name: 'alpine', version: '3.19' },
  },
  {
    file: stored('tools/busybox/1.36/list.manifest.json', indexFixture),
    expected: { name: 'tools/busybox', version: '1.36' },
  },
  {
    file: stored(`alpine/_uploads/${digestOf(manifestFixture).replace(':', '__')}`, manifestFixture),
    expected: null,
  },
  { file: stored('alpine/3.19/sha256__00', Buffer.from('layer')), expected: null },
]);

describe(`OCI distribution spec 1.1 at /v2/ (${testEngine})`, () => {
  let t: TestApp;
  const inject = (
    method: string,
    url: string,
    opts: { auth?: string | null; headers?: Record<string, string>; body?: Buffer | string } = {},
  ) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: {
        ...(opts.auth === null ? {} : { authorization: opts.auth ?? ADMIN }),
        ...opts.headers,
      },
      ...(opts.body !== undefined ? { payload: opts.body } : {}),
    });
  const pushBlob = (name: string, bytes: Buffer, digest = digestOf(bytes), auth?: string | null) =>
    inject('POST', `/v2/${name}/blobs/uploads/?digest=${digest}`, {
      auth,
      headers: { 'content-type': 'application/octet-stream' },
      body: bytes,
    });
  const pushManifest = (name: string, ref: string, bytes: Buffer, mediaType: string, auth?: string) =>
    inject('PUT', `/v2/${name}/manifests/${ref}`, {
      auth,
      headers: { 'content-type': mediaType },
      body: bytes,
    });
  async function pushImage(name: string, ref: string, image: TestImage) {
    for (const b of [image.config, ...image.layers])
      expect((await pushBlob(name, b.bytes)).statusCode).toBe(201);
    const res = await pushManifest(name, ref, image.manifest, image.mediaType);
    expect(res.statusCode, res.body).toBe(201);
    return res;
  }
  const errorCode = (res: { json(): unknown }) =>
    (res.json() as { errors: { code: string }[] }).errors[0]?.code;

  beforeAll(async () => {
    t = await createTestApp();
    const put = (url: string, payload: object) =>
      t.app.inject({ method: 'PUT', url, headers: { authorization: ADMIN }, payload });
    expect(
      (await put('/api/repositories/docker-local', { rclass: 'local', packageType: 'docker' })).statusCode,
    ).toBe(201);
    expect(
      (await put('/api/repositories/docker-other', { rclass: 'local', packageType: 'docker' })).statusCode,
    ).toBe(201);
    expect(
      (
        await put('/api/repositories/docker', {
          rclass: 'virtual',
          packageType: 'docker',
          repositories: ['docker-local', 'docker-other'],
          defaultDeploymentRepo: 'docker-local',
        })
      ).statusCode,
    ).toBe(201);
    await put('/api/security/users/reader', { password: 'Reader-pa55word!' });
    await put('/api/security/permissions/read-docker', {
      repo: {
        repositories: ['docker-local'],
        include_patterns: ['**'],
        exclude_patterns: [],
        actions: { users: { reader: ['read'] } },
      },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('auth', () => {
    it('spec "API version check": /v2/ answers 200 to a signed-in caller, 401 with a Bearer challenge to anonymous', async () => {
      const ok = await inject('GET', '/v2/');
      expect(ok.statusCode).toBe(200);
      expect(ok.headers['docker-distribution-api-version']).toBe('registry/2.0');
      const anon = await inject('GET', '/v2/', { auth: null });
      expect(anon.statusCode).toBe(401);
      expect(anon.headers['www-authenticate']).toMatch(
        /^Bearer realm="http:\/\/[^"]+\/v2\/token",service="[^"]+"$/,
      );
      expect(errorCode(anon)).toBe('UNAUTHORIZED');
    });

    it('issue 7: /v2/token gives docker login a short-lived token that works as a Bearer; bad credentials are refused in OCI JSON, no credentials get only anonymous access', async () => {
      const res = await inject('GET', '/v2/token?service=x&scope=repository:docker-local/app:pull');
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.token).toBe(body.access_token);
      // TOKEN_SECS: ten minutes
      expect(body.expires_in).toBe(600);
      expect((await inject('GET', '/v2/', { auth: `Bearer ${body.token}` })).statusCode).toBe(200);
      // A scope naming no repository here (or none at all) still gets the caller's token.
      for (const query of ['?service=x&scope=repository:nosuch/app:pull', '']) {
        const other = await inject('GET', `/v2/token${query}`);
        expect(other.statusCode).toBe(200);
        expect((await inject('GET', '/v2/', { auth: `Bearer ${other.json().token}` })).statusCode).toBe(200);
      }
      // No credentials: the anonymous token, worth no more than no credentials at all.
      const anon = await inject('GET', '/v2/token', { auth: null });
      expect(anon.statusCode).toBe(200);
      const anonToken = anon.json().token as string;
      expect(anonToken).not.toBe(body.token);
      const anonPull = await inject('GET', '/v2/docker-local/app/tags/list', { auth: `Bearer ${anonToken}` });
      expect(anonPull.statusCode).toBe(401);
      expect(errorCode(anonPull)).toBe('UNAUTHORIZED');
      const wrong = await inject('GET', '/v2/token', { auth: basicAuth('admin', 'nope') });
      expect(wrong.statusCode).toBe(401);
      expect(errorCode(wrong)).toBe('UNAUTHORIZED');
    });

    it('issue 7: push needs deploy permission: anonymous gets 401 + challenge with the push scope, a reader 403 DENIED', async () => {
      const bytes = Buffer.from('nope');
      const anon = await pushBlob('docker-local/app', bytes, undefined, null);
      expect(anon.statusCode).toBe(401);
      expect(anon.headers['www-authenticate']).toContain('scope="repository:docker-local/app:pull,push"');
      expect(errorCode(anon)).toBe('UNAUTHORIZED');
      const reader = await pushBlob('docker-local/app', bytes, undefined, READER);
      expect(reader.statusCode).toBe(403);
      expect(errorCode(reader)).toBe('DENIED');
      expect((await inject('HEAD', `/v2/docker-local/app/blobs/${digestOf(bytes)}`)).statusCode).toBe(404);
    });
  });

  describe('pull', () => {
    const image = testImage({ layerSizes: [3000, 70_000] });
    beforeAll(async () => {
      await pushImage('docker-local/pull/me', '1.0', image);
    });

    it('spec "Pulling manifests": by tag and by digest, byte for byte, with Content-Type and Docker-Content-Digest; HEAD too', async () => {
      for (const ref of ['1.0', image.digest]) {
        const res = await inject('GET', `/v2/docker-local/pull/me/manifests/${ref}`, {
          headers: { accept: image.mediaType },
        });
        expect(res.statusCode).toBe(200);
        expect(res.rawPayload.equals(image.manifest)).toBe(true);
        expect(res.headers['content-type']).toBe(image.mediaType);
        expect(res.headers['docker-content-digest']).toBe(image.digest);
        const head = await inject('HEAD', `/v2/docker-local/pull/me/manifests/${ref}`);
        expect(head.statusCode).toBe(200);
        expect(head.headers['content-length']).toBe(String(image.manifest.length));
        expect(head.headers['docker-content-digest']).toBe(image.digest);
        expect(head.body).toBe('');
      }
      const missing = await inject('GET', '/v2/docker-local/pull/me/manifests/2.0');
      expect(missing.statusCode).toBe(404);
      expect(errorCode(missing)).toBe('MANIFEST_UNKNOWN');
    });

    it('issue 24: a pull right after the tag was pushed again gets the new manifest (the pull path reads rows and manifests from memory)', async () => {
      const first = testImage({ layerSizes: [40] });
      const second = testImage({ layerSizes: [41] });
      await pushImage('docker-local/moving', 'latest', first);
      const pull = () =>
        inject('GET', '/v2/docker-local/moving/manifests/latest', { headers: { accept: first.mediaType } });
      // Pulled twice: the second is served from the in-memory row and manifest.
      for (let i = 0; i < 2; i++) expect((await pull()).headers['docker-content-digest']).toBe(first.digest);
      await pushImage('docker-local/moving', 'latest', second);
      const moved = await pull();
      expect(moved.headers['docker-content-digest']).toBe(second.digest);
      expect(moved.rawPayload.equals(second.manifest)).toBe(true);
      // The old manifest by digest is still there (an image's manifests stay until deleted or collected).
      const old = await inject('GET', `/v2/docker-local/moving/manifests/${first.digest}`);
      expect(old.rawPayload.equals(first.manifest)).toBe(true);
      expect((await inject('DELETE', '/v2/docker-local/moving/manifests/latest')).statusCode).toBe(202);
      expect((await pull()).statusCode).toBe(404);
    });

    it('spec "Pulling blobs": GET, HEAD and byte ranges; an unknown blob is BLOB_UNKNOWN', async () => {
      const layer = image.layers[1]!;
      const res = await inject('GET', `/v2/docker-local/pull/me/blobs/${layer.digest}`);
      expect(res.statusCode).toBe(200);
      expect(res.rawPayload.equals(layer.bytes)).toBe(true);
      expect(res.headers['docker-content-digest']).toBe(layer.digest);
      const head = await inject('HEAD', `/v2/docker-local/pull/me/blobs/${layer.digest}`);
      expect(head.headers['content-length']).toBe(String(layer.bytes.length));
      const range = await inject('GET', `/v2/docker-local/pull/me/blobs/${layer.digest}`, {
        headers: { range: 'bytes=100-199' },
      });
      expect(range.statusCode).toBe(206);
      expect(range.rawPayload.equals(layer.bytes.subarray(100, 200))).toBe(true);
      const unknown = await inject('GET', `/v2/docker-local/pull/me/blobs/${digestOf('unknown')}`);
      expect(unknown.statusCode).toBe(404);
      expect(errorCode(unknown)).toBe('BLOB_UNKNOWN');
      // A blob is the image's: another image of the repository does not serve it.
      expect((await inject('GET', `/v2/docker-local/other/blobs/${layer.digest}`)).statusCode).toBe(404);
    });

    it('issue 7: each tag shows in the tree as {image}/{tag}/manifest.json plus its layers; the packages index has image and tag', async () => {
      const tree = await inject('GET', '/repository/docker-local/pull/me/1.0/manifest.json');
      expect(tree.statusCode).toBe(200);
      expect(tree.rawPayload.equals(image.manifest)).toBe(true);
      const layer = image.layers[0]!;
      const copy = await inject(
        'GET',
        `/repository/docker-local/pull/me/1.0/${layer.digest.replace(':', '__')}`,
      );
      expect(copy.rawPayload.equals(layer.bytes)).toBe(true);
      const info = await inject('GET', '/api/storage/docker-local/pull/me/1.0/manifest.json?properties');
      expect(info.json().properties['docker.manifest.digest']).toEqual([image.digest]);
    });

    it('a reader pulls; a user without read permission learns nothing (NAME_UNKNOWN / UNAUTHORIZED)', async () => {
      expect(
        (await inject('GET', `/v2/docker-local/pull/me/manifests/1.0`, { auth: READER })).statusCode,
      ).toBe(200);
      const other = await inject('GET', '/v2/docker-other/pull/me/manifests/1.0', { auth: READER });
      expect(other.statusCode).toBe(404);
      expect(errorCode(other)).toBe('NAME_UNKNOWN');
      const anon = await inject('GET', '/v2/docker-local/pull/me/manifests/1.0', { auth: null });
      expect(anon.statusCode).toBe(401);
      expect(anon.headers['www-authenticate']).toContain('scope="repository:docker-local/pull/me:pull"');
    });
  });

  describe('push', () => {
    it('spec "Pushing a manifest": a manifest naming a blob the image lacks is MANIFEST_BLOB_UNKNOWN and nothing is stored', async () => {
      const image = testImage();
      await pushBlob('docker-local/partial', image.config.bytes);
      await pushBlob('docker-local/partial', image.layers[0]!.bytes);
      const res = await pushManifest('docker-local/partial', 'v1', image.manifest, image.mediaType);
      expect(res.statusCode).toBe(400);
      expect(errorCode(res)).toBe('MANIFEST_BLOB_UNKNOWN');
      expect(res.json().errors[0].detail).toEqual({ digest: image.layers[1]!.digest });
      expect((await inject('GET', '/v2/docker-local/partial/manifests/v1')).statusCode).toBe(404);
      expect((await inject('GET', `/v2/docker-local/partial/manifests/${image.digest}`)).statusCode).toBe(
        404,
      );
    });

    it('issue 7: the mediaType is checked before parsing; a body mediaType differing from Content-Type, bad JSON, over 4 MiB (413) are refused', async () => {
      const image = testImage();
      await pushImage('docker-local/checks', 'ok', image);
      const wrongType = await pushManifest('docker-local/checks', 'v2', image.manifest, 'application/json');
      expect(wrongType.statusCode).toBe(400);
      expect(errorCode(wrongType)).toBe('MANIFEST_INVALID');
      const mismatch = await pushManifest(
        'docker-local/checks',
        'v2',
        image.manifest,
        'application/vnd.docker.distribution.manifest.v2+json',
      );
      expect(errorCode(mismatch)).toBe('MANIFEST_INVALID');
      const garbage = await pushManifest('docker-local/checks', 'v2', Buffer.from('{nope'), image.mediaType);
      expect(errorCode(garbage)).toBe('MANIFEST_INVALID');
      const huge = await pushManifest(
        'docker-local/checks',
        'v2',
        Buffer.alloc(4 * 1024 * 1024 + 1, 0x20),
        image.mediaType,
      );
      expect(huge.statusCode).toBe(413);
      expect(huge.json().errors[0]).toMatchObject({
        code: 'MANIFEST_INVALID',
        message: `The manifest is larger than ${4 * 1024 * 1024} bytes`,
      });
      const badDigest = await pushManifest(
        'docker-local/checks',
        digestOf('other'),
        image.manifest,
        image.mediaType,
      );
      expect(errorCode(badDigest)).toBe('DIGEST_INVALID');
      expect((await inject('GET', '/v2/docker-local/checks/manifests/v2')).statusCode).toBe(404);
    });

    it('issue 12 §14: a manifest carrying both layers and manifests is MANIFEST_INVALID and nothing is stored', async () => {
      const image = testImage({ layerSizes: [64] });
      await pushImage('docker-local/hybrid', 'ok', image);
      const doc = JSON.parse(image.manifest.toString('utf8')) as Record<string, unknown>;
      const descriptor = { mediaType: image.mediaType, digest: image.digest, size: image.manifest.length };
      const both = Buffer.from(JSON.stringify({ ...doc, manifests: [descriptor] }));
      for (const mediaType of [image.mediaType, 'application/vnd.oci.image.index.v1+json']) {
        const body = Buffer.from(JSON.stringify({ ...JSON.parse(both.toString()), mediaType }));
        const res = await pushManifest('docker-local/hybrid', 'both', body, mediaType);
        expect(res.statusCode, res.body).toBe(400);
        expect(errorCode(res)).toBe('MANIFEST_INVALID');
        expect((await inject('GET', `/v2/docker-local/hybrid/manifests/${digestOf(body)}`)).statusCode).toBe(
          404,
        );
      }
      expect((await inject('GET', '/v2/docker-local/hybrid/manifests/both')).statusCode).toBe(404);
      expect((await inject('GET', '/v2/docker-local/hybrid/tags/list')).json().tags).toEqual(['ok']);
    });

    it('issue 12 §14: GET and HEAD of a manifest by an invalid reference answer 404 MANIFEST_UNKNOWN (conformance suite)', async () => {
      await pushImage('docker-local/refs', 'v1', testImage({ layerSizes: [32] }));
      for (const ref of [
        '.INVALID_MANIFEST_NAME',
        'sha256:nothex',
        `sha512:${'a'.repeat(128)}`,
        '-dash',
        'x'.repeat(129),
      ])
        for (const method of ['GET', 'HEAD']) {
          const res = await inject(method, `/v2/docker-local/refs/manifests/${ref}`);
          expect(res.statusCode, `${method} ${ref}`).toBe(404);
          if (method === 'GET') expect(errorCode(res)).toBe('MANIFEST_UNKNOWN');
        }
      // Through a virtual repository too, and a push by such a reference is still refused as invalid.
      expect(errorCode(await inject('GET', '/v2/docker/refs/manifests/.INVALID_MANIFEST_NAME'))).toBe(
        'MANIFEST_UNKNOWN',
      );
      const image = testImage({ layerSizes: [32] });
      for (const b of [image.config, ...image.layers]) await pushBlob('docker-local/refs', b.bytes);
      const push = await pushManifest(
        'docker-local/refs',
        '.INVALID_MANIFEST_NAME',
        image.manifest,
        image.mediaType,
      );
      expect(push.statusCode).toBe(400);
    });

    it('spec "Pushing blobs": a monolithic push whose bytes do not match the digest is DIGEST_INVALID and leaves nothing', async () => {
      const bytes = Buffer.from('the real bytes');
      const res = await pushBlob('docker-local/liar', bytes, digestOf('other bytes'));
      expect(res.statusCode).toBe(400);
      expect(errorCode(res)).toBe('DIGEST_INVALID');
      expect(
        (await inject('HEAD', `/v2/docker-local/liar/blobs/${digestOf('other bytes')}`)).statusCode,
      ).toBe(404);
      expect((await inject('HEAD', `/v2/docker-local/liar/blobs/${digestOf(bytes)}`)).statusCode).toBe(404);
      const bad = await pushBlob('docker-local/liar', bytes, 'md5:abc');
      expect(errorCode(bad)).toBe('UNSUPPORTED');
    });

    it('spec "Pushing a blob in chunks": POST, PATCH with Content-Range, status GET, out-of-order chunk 416, PUT closes; the partial blob is never visible', async () => {
      const bytes = Buffer.from('0123456789abcdefghij');
      const digest = digestOf(bytes);
      const open = await inject('POST', '/v2/docker-local/chunky/blobs/uploads/');
      expect(open.statusCode).toBe(202);
      const location = open.headers.location as string;
      expect(location).toMatch(/^\/v2\/docker-local\/chunky\/blobs\/uploads\/[0-9a-f-]{36}$/);
      const first = await inject('PATCH', location, {
        headers: { 'content-type': 'application/octet-stream', 'content-range': '0-9' },
        body: bytes.subarray(0, 10),
      });
      expect(first.statusCode).toBe(202);
      expect(first.headers.range).toBe('0-9');
      expect((await inject('HEAD', `/v2/docker-local/chunky/blobs/${digest}`)).statusCode).toBe(404);
      const wrong = await inject('PATCH', location, {
        headers: { 'content-type': 'application/octet-stream', 'content-range': '15-19' },
        body: bytes.subarray(15),
      });
      expect(wrong.statusCode).toBe(416);
      expect(errorCode(wrong)).toBe('BLOB_UPLOAD_INVALID');
      const status = await inject('GET', location);
      expect(status.statusCode).toBe(204);
      expect(status.headers.range).toBe('0-9');
      const second = await inject('PATCH', location, {
        headers: { 'content-type': 'application/octet-stream', 'content-range': '10-19' },
        body: bytes.subarray(10),
      });
      expect(second.statusCode).toBe(202);
      const done = await inject('PUT', `${location}?digest=${digest}`);
      expect(done.statusCode).toBe(201);
      expect(done.headers.location).toBe(`/v2/docker-local/chunky/blobs/${digest}`);
      expect(done.headers['docker-content-digest']).toBe(digest);
      expect((await inject('GET', `/v2/docker-local/chunky/blobs/${digest}`)).rawPayload.equals(bytes)).toBe(
        true,
      );
      const gone = await inject('GET', location);
      expect(gone.statusCode).toBe(404);
      expect(errorCode(gone)).toBe('BLOB_UPLOAD_UNKNOWN');
      const listing = await inject('GET', '/api/storage/docker-local/chunky/_uploads');
      expect(listing.json().children).toHaveLength(1);
    });

    it('spec "Pushing a blob in chunks": a closing PUT with the last chunk and a wrong digest is DIGEST_INVALID, the upload is gone', async () => {
      const open = await inject('POST', '/v2/docker-local/chunky2/blobs/uploads/');
      const location = open.headers.location as string;
      await inject('PATCH', location, {
        headers: { 'content-type': 'application/octet-stream' },
        body: 'abc',
      });
      const res = await inject('PUT', `${location}?digest=${digestOf('abcdef-not')}`, {
        headers: { 'content-type': 'application/octet-stream' },
        body: 'def',
      });
      expect(res.statusCode).toBe(400);
      expect(errorCode(res)).toBe('DIGEST_INVALID');
      expect((await inject('GET', location)).statusCode).toBe(404);
      expect((await inject('HEAD', `/v2/docker-local/chunky2/blobs/${digestOf('abcdef')}`)).statusCode).toBe(
        404,
      );
    });

    it('spec "Mounting a blob from another repository": 201 without the bytes when the caller may read the source; 202 otherwise', async () => {
      const bytes = Buffer.from('shared layer');
      const digest = digestOf(bytes);
      expect((await pushBlob('docker-other/source', bytes)).statusCode).toBe(201);
      const mounted = await inject(
        'POST',
        `/v2/docker-local/dest/blobs/uploads/?mount=${digest}&from=docker-other/source`,
      );
      expect(mounted.statusCode).toBe(201);
      expect(mounted.headers.location).toBe(`/v2/docker-local/dest/blobs/${digest}`);
      expect((await inject('GET', `/v2/docker-local/dest/blobs/${digest}`)).rawPayload.equals(bytes)).toBe(
        true,
      );
      const unknown = await inject(
        'POST',
        `/v2/docker-local/dest/blobs/uploads/?mount=${digestOf('x')}&from=docker-other/source`,
      );
      expect(unknown.statusCode).toBe(202);
      expect(unknown.headers.location).toMatch(/\/blobs\/uploads\//);
    });

    it('issue 7: a multi-arch index refers to manifests pushed by digest; a docker manifest list too', async () => {
      const a = testImage({ arch: 'amd64' });
      const b = testImage({ arch: 'arm64', mediaType: 'docker' });
      await pushImage('docker-local/multi', a.digest, a);
      await pushImage('docker-local/multi', b.digest, b);
      const index = testIndex([a, b]);
      const res = await pushManifest('docker-local/multi', 'latest', index.bytes, index.mediaType);
      expect(res.statusCode, res.body).toBe(201);
      const got = await inject('GET', '/v2/docker-local/multi/manifests/latest');
      expect(got.headers['content-type']).toBe(index.mediaType);
      expect(got.rawPayload.equals(index.bytes)).toBe(true);
      const child = await inject('GET', `/v2/docker-local/multi/manifests/${b.digest}`);
      expect(child.headers['content-type']).toBe(b.mediaType);
      expect(
        (await inject('GET', '/repository/docker-local/multi/latest/list.manifest.json')).statusCode,
      ).toBe(200);
      const orphan = testIndex([testImage()]);
      const refused = await pushManifest('docker-local/multi', 'broken', orphan.bytes, orphan.mediaType);
      expect(errorCode(refused)).toBe('MANIFEST_BLOB_UNKNOWN');
    });

    it('issue 7: pushes through a virtual repository land in its default deployment repository; pulls resolve through members', async () => {
      const image = testImage();
      await pushImage('docker/via/virtual', 'v1', image);
      expect(
        (await inject('GET', '/v2/docker-local/via/virtual/manifests/v1')).rawPayload.equals(image.manifest),
      ).toBe(true);
      const other = testImage();
      await pushImage('docker-other/only/other', 'v1', other);
      const viaVirtual = await inject('GET', '/v2/docker/only/other/manifests/v1');
      expect(viaVirtual.rawPayload.equals(other.manifest)).toBe(true);
      const blob = await inject('GET', `/v2/docker/only/other/blobs/${other.layers[0]!.digest}`);
      expect(blob.rawPayload.equals(other.layers[0]!.bytes)).toBe(true);
      const tags = await inject('GET', '/v2/docker/only/other/tags/list');
      expect(tags.json()).toEqual({ name: 'docker/only/other', tags: ['v1'] });
    });

    it('the blob store keeps a layer shared by two images once', async () => {
      const image = testImage({ layerSizes: [5000] });
      await pushImage('docker-local/share/one', 'v1', image);
      await pushImage('docker-local/share/two', 'v1', image);
      const a = await inject(
        'GET',
        `/api/storage/docker-local/share/one/_uploads/${image.layers[0]!.digest.replace(':', '__')}`,
      );
      const b = await inject(
        'GET',
        `/api/storage/docker-local/share/two/_uploads/${image.layers[0]!.digest.replace(':', '__')}`,
      );
      expect(a.json().checksums.sha256).toBe(b.json().checksums.sha256);
    });
  });

  describe('content discovery', () => {
    it('spec "Listing Tags": sorted, n clamped, last, Link to the next page; unknown image NAME_UNKNOWN', async () => {
      const image = testImage({ layerSizes: [10] });
      for (const tag of ['c', 'a', 'b', 'd']) await pushImage('docker-local/tagged', tag, image);
      const all = await inject('GET', '/v2/docker-local/tagged/tags/list');
      expect(all.json()).toEqual({ name: 'docker-local/tagged', tags: ['a', 'b', 'c', 'd'] });
      const page = await inject('GET', '/v2/docker-local/tagged/tags/list?n=2');
      expect(page.json().tags).toEqual(['a', 'b']);
      expect(page.headers.link).toBe('</v2/docker-local/tagged/tags/list?n=2&last=b>; rel="next"');
      const next = await inject('GET', '/v2/docker-local/tagged/tags/list?n=2&last=b');
      expect(next.json().tags).toEqual(['c', 'd']);
      expect(next.headers.link).toBeUndefined();
      const clamped = await inject('GET', '/v2/docker-local/tagged/tags/list?n=999999');
      expect(clamped.json().tags).toHaveLength(4);
      expect((await inject('GET', '/v2/docker-local/tagged/tags/list?n=0')).json().tags).toEqual([]);
      const unknown = await inject('GET', '/v2/docker-local/nothing/tags/list');
      expect(unknown.statusCode).toBe(404);
      expect(errorCode(unknown)).toBe('NAME_UNKNOWN');
    });

    it('spec "Listing Referrers": manifests with a subject are listed (OCI-Subject on push), filtered by artifactType', async () => {
      const image = testImage();
      await pushImage('docker-local/signed', 'v1', image);
      const subject = { mediaType: image.mediaType, digest: image.digest, size: image.manifest.length };
      const sig = testImage({ layerSizes: [20], subject, artifactType: 'application/vnd.example.sig' });
      const sbom = testImage({ layerSizes: [30], subject, artifactType: 'application/spdx+json' });
      for (const a of [sig, sbom]) {
        const res = await pushImage('docker-local/signed', a.digest, a);
        expect(res.headers['oci-subject']).toBe(image.digest);
      }
      const list = await inject('GET', `/v2/docker-local/signed/referrers/${image.digest}`);
      expect(list.statusCode).toBe(200);
      expect(list.headers['content-type']).toBe('application/vnd.oci.image.index.v1+json');
      const doc = JSON.parse(list.body);
      expect(doc.schemaVersion).toBe(2);
      expect(doc.manifests.map((m: { digest: string }) => m.digest).sort()).toEqual(
        [sig.digest, sbom.digest].sort(),
      );
      const filtered = await inject(
        'GET',
        `/v2/docker-local/signed/referrers/${image.digest}?artifactType=application/spdx%2Bjson`,
      );
      expect(filtered.headers['oci-filters-applied']).toBe('artifactType');
      expect(JSON.parse(filtered.body).manifests).toEqual([
        {
          mediaType: sbom.mediaType,
          digest: sbom.digest,
          size: sbom.manifest.length,
          artifactType: 'application/spdx+json',
        },
      ]);
      const none = await inject('GET', `/v2/docker-local/signed/referrers/${digestOf('nothing')}`);
      expect(JSON.parse(none.body).manifests).toEqual([]);
    });

    it('issue 7: _catalog lists only the images the caller can read, paginated', async () => {
      const admin = await inject('GET', '/v2/_catalog');
      const names: string[] = admin.json().repositories;
      expect(names).toContain('docker-local/pull/me');
      expect(names).toContain('docker-other/only/other');
      const reader = (await inject('GET', '/v2/_catalog', { auth: READER })).json().repositories as string[];
      expect(reader).toContain('docker-local/pull/me');
      expect(reader.every((n) => n.startsWith('docker-local/'))).toBe(true);
      const page = await inject('GET', '/v2/_catalog?n=1');
      expect(page.json().repositories).toHaveLength(1);
      expect(page.headers.link).toMatch(/^<\/v2\/_catalog\?n=1&last=.+>; rel="next"$/);
    });
  });

  describe('content management', () => {
    it('spec "Deleting tags" / "Deleting manifests": delete needs delete permission; a tag goes, a digest takes its tags along', async () => {
      const image = testImage();
      await pushImage('docker-local/deleting', 'one', image);
      await pushImage('docker-local/deleting', 'two', image);
      const denied = await inject('DELETE', '/v2/docker-local/deleting/manifests/one', { auth: READER });
      expect(denied.statusCode).toBe(403);
      expect(errorCode(denied)).toBe('DENIED');
      expect((await inject('DELETE', '/v2/docker-local/deleting/manifests/one')).statusCode).toBe(202);
      expect(errorCode(await inject('GET', '/v2/docker-local/deleting/manifests/one'))).toBe(
        'MANIFEST_UNKNOWN',
      );
      expect((await inject('GET', '/v2/docker-local/deleting/manifests/two')).statusCode).toBe(200);
      expect((await inject('DELETE', `/v2/docker-local/deleting/manifests/${image.digest}`)).statusCode).toBe(
        202,
      );
      expect((await inject('GET', '/v2/docker-local/deleting/manifests/two')).statusCode).toBe(404);
      expect((await inject('GET', `/v2/docker-local/deleting/manifests/${image.digest}`)).statusCode).toBe(
        404,
      );
      expect((await inject('GET', '/v2/docker-local/deleting/tags/list')).json().tags).toEqual([]);
      const layer = image.layers[0]!.digest;
      expect((await inject('DELETE', `/v2/docker-local/deleting/blobs/${layer}`)).statusCode).toBe(202);
      expect(errorCode(await inject('GET', `/v2/docker-local/deleting/blobs/${layer}`))).toBe('BLOB_UNKNOWN');
      expect(errorCode(await inject('DELETE', '/v2/docker/deleting/manifests/two'))).toBe('UNSUPPORTED');
    });

    it('issue 7: garbage collection removes blobs no manifest references, after the grace period; dry-run removes nothing', async () => {
      const kept = testImage({ layerSizes: [100] });
      await pushImage('docker-local/gc', 'v1', kept);
      const orphan = Buffer.from('nobody references me');
      await pushBlob('docker-local/gc', orphan);
      const orphanPath = `docker-local/gc/_uploads/${digestOf(orphan).replace(':', '__')}`;
      const young = await inject('POST', '/api/docker/gc?dryRun=true');
      expect(young.statusCode).toBe(200);
      expect(young.json().paths).not.toContain(orphanPath);
      const dry = await inject('POST', '/api/docker/gc?dryRun=true&graceSecs=0');
      expect(dry.json()).toMatchObject({ dryRun: true, removed: 0 });
      expect(dry.json().paths).toContain(orphanPath);
      expect((await inject('HEAD', `/v2/docker-local/gc/blobs/${digestOf(orphan)}`)).statusCode).toBe(200);
      const run = await inject('POST', '/api/docker/gc?graceSecs=0');
      expect(run.json().removed).toBeGreaterThan(0);
      expect((await inject('HEAD', `/v2/docker-local/gc/blobs/${digestOf(orphan)}`)).statusCode).toBe(404);
      for (const b of [kept.config, ...kept.layers])
        expect((await inject('HEAD', `/v2/docker-local/gc/blobs/${b.digest}`)).statusCode).toBe(200);
      expect((await inject('GET', '/v2/docker-local/gc/manifests/v1')).statusCode).toBe(200);
      expect((await inject('POST', '/api/docker/gc', { auth: READER })).statusCode).toBe(403);
    });

    it('errors are OCI JSON everywhere, including unknown endpoints and bad names', async () => {
      const unknown = await inject('GET', '/v2/docker-local/x/nowhere');
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual({
        errors: [
          {
            code: 'NAME_UNKNOWN',
            message: 'No registry endpoint at /v2/docker-local/x/nowhere',
            detail: null,
          },
        ],
      });
      expect(errorCode(await inject('GET', '/v2/docker-local/UPPER/tags/list'))).toBe('NAME_INVALID');
      expect(errorCode(await inject('GET', '/v2/nosuchrepo/img/tags/list'))).toBe('NAME_UNKNOWN');
    });
  });
});
