import { createHash, randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTarball, publishDocument } from '../../formats/npm/test-support.ts';
import { makeWheel, uploadForm } from '../../formats/pypi/test-dists.ts';
import { basicAuth, createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../testing/index.ts';
import type { BlobStore } from '../blobs/index.ts';

/**
 * issue 12 §12: a full disk (ENOSPC) answers 507 Insufficient Storage in each client's own error
 * shape with a clear message, stores nothing, and shows in the health detail. The blob store's
 * `put` is made to fail as a full disk does, part-way through the bytes (no tmpfs to fill here).
 */

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);

function outOfSpace(): NodeJS.ErrnoException {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), {
    code: 'ENOSPC',
    errno: -28,
    syscall: 'write',
  });
}

/** The source's first `limit` bytes, then the write fails as on a full disk. */
async function* failingAfter(
  source: NodeJS.ReadableStream | AsyncIterable<Uint8Array>,
  limit: number,
): AsyncGenerator<Uint8Array> {
  let passed = 0;
  for await (const chunk of source as AsyncIterable<Uint8Array>) {
    const part = chunk.subarray(0, Math.max(0, limit - passed));
    passed += part.length;
    if (part.length > 0) yield part;
    if (passed >= limit) throw outOfSpace();
  }
  throw outOfSpace();
}

describe('issue 12 §12: no space left answers 507 in every client format', () => {
  let t: TestApp;
  let full = false;
  const stored = async (blobs: BlobStore) => {
    const all: string[] = [];
    for await (const sha of blobs.list()) all.push(sha);
    return all.sort();
  };
  const call = (
    method: string,
    url: string,
    payload?: Buffer | string | object,
    headers: Record<string, string> = {},
  ) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: ADMIN, ...headers },
      ...(payload === undefined ? {} : { payload }),
    });

  beforeAll(async () => {
    t = await createTestApp();
    for (const [key, packageType] of [
      ['npm-local', 'npm'],
      ['py-local', 'pypi'],
      ['maven-local', 'maven'],
      ['docker-local', 'docker'],
    ] as const) {
      const res = await call('PUT', `/api/repositories/${key}`, { rclass: 'local', packageType });
      expect(res.statusCode, res.body).toBe(201);
    }
    const blobs = t.app.granary.blobs;
    const put = blobs.put.bind(blobs);
    blobs.put = (source, expected) => put(full ? failingAfter(source, 100) : source, expected);
  }, 60_000);
  afterAll(async () => t?.close());

  it('issue 12 §12: generic, npm, OCI, PyPI and Maven uploads answer 507 with a clear message; nothing is stored; health says so', async () => {
    const before = await stored(t.app.granary.blobs);
    const health0 = await call('GET', '/api/system/health');
    expect(health0.json().checks.storage.state).toBe('HEALTHY');
    full = true;
    const message = expect.stringMatching(
      /^Insufficient storage: the server has no space left to store this \(request .+\)$/,
    );

    // generic / REST: the JSON envelope
    const generic = await call('PUT', '/repository/generic-local/full/file.bin', randomBytes(4096));
    expect(generic.statusCode).toBe(507);
    expect(generic.json()).toEqual({ errors: [{ status: 507, code: 'INSUFFICIENT_STORAGE', message }] });
    expect((await call('GET', '/repository/generic-local/full/file.bin')).statusCode).toBe(404);

    // npm: {error}, which the client prints
    const manifest = { name: 'full-disk', version: '1.0.0' };
    const npm = await call(
      'PUT',
      '/repository/npm-local/full-disk',
      publishDocument(manifest, await makeTarball(manifest)),
      {
        'content-type': 'application/json',
      },
    );
    expect(npm.statusCode).toBe(507);
    expect(npm.json()).toEqual({ error: message });
    expect((await call('GET', '/repository/npm-local/full-disk')).statusCode).toBe(404);

    // OCI: errors[] with code and message
    const layer = randomBytes(4096);
    const digest = `sha256:${createHash('sha256').update(layer).digest('hex')}`;
    const oci = await call('POST', `/v2/docker-local/full/blobs/uploads/?digest=${digest}`, layer, {
      'content-type': 'application/octet-stream',
    });
    expect(oci.statusCode).toBe(507);
    expect(oci.json()).toEqual({ errors: [{ code: 'UNKNOWN', message, detail: null }] });
    expect((await call('HEAD', `/v2/docker-local/full/blobs/${digest}`)).statusCode).toBe(404);

    // PyPI (twine): plain text, the reason in the status line
    const form = await uploadForm(await makeWheel({ name: 'full-disk', version: '1.0' }));
    const pypi = await call('POST', '/repository/py-local/', form.body, { 'content-type': form.contentType });
    expect(pypi.statusCode).toBe(507);
    expect(pypi.headers['content-type']).toMatch(/^text\/plain/);
    expect(pypi.body).toMatch(/^507 Insufficient storage: the server has no space left to store this/);
    expect(pypi.statusMessage).toMatch(/Insufficient storage/);
    expect((await call('GET', '/repository/py-local/simple/full-disk/')).statusCode).toBe(404);

    // Maven: plain text
    const jar = '/repository/maven-local/org/acme/full/1.0/full-1.0.jar';
    const maven = await call('PUT', jar, randomBytes(4096));
    expect(maven.statusCode).toBe(507);
    expect(maven.headers['content-type']).toMatch(/^text\/plain/);
    expect(maven.body).toMatch(/^Insufficient storage: the server has no space left to store this/);
    expect((await call('GET', jar)).statusCode).toBe(404);

    // Nothing partial stored: no new blob, no leftover in the temp area.
    expect(await stored(t.app.granary.blobs)).toEqual(before);
    expect(await readdir(path.join(t.home, 'tmp', 'blobs')).catch(() => [])).toEqual([]);

    // The health detail says why.
    const health = await call('GET', '/api/system/health');
    expect(health.statusCode).toBe(503);
    expect(health.json()).toMatchObject({
      state: 'UNHEALTHY',
      checks: {
        database: { state: 'HEALTHY' },
        storage: {
          state: 'UNHEALTHY',
          message: expect.stringContaining('Insufficient storage: a write was refused for lack of space'),
        },
      },
    });
    // Downloads still work and the server stays ready.
    expect((await call('GET', '/api/system/ping')).body).toBe('OK');

    full = false;
    expect((await call('PUT', '/repository/generic-local/full/file.bin', randomBytes(4096))).statusCode).toBe(
      201,
    );
  });
});
