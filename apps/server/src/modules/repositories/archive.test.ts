import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../platform/http/access-control.ts';
import { httpStatusOf } from '../../platform/http/error-status.ts';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { folderArchive } from './archive.service.ts';
import { RepoPath } from './repo-path.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const READER = basicAuth('zreader', 'Zreader-pa55word!');
const BIN = randomBytes(300 * 1024);

/** Reads a zip's central directory and each entry's stored bytes (yazl writes stored entries here). */
function unzipEntries(zip: Buffer): Map<string, Buffer> {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  expect(eocd).toBeGreaterThan(-1);
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const out = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30);
    const comment = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    expect(method).toBe(0);
    const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    out.set(name, zip.subarray(dataAt, dataAt + size));
    at += 46 + nameLength + extra + comment;
  }
  return out;
}

describe(`folder download as zip (${testEngine})`, () => {
  let t: TestApp;
  let tmp: string;
  const deploy = (p: string, body: Buffer | string) =>
    t.app.inject({
      method: 'PUT',
      url: `/repository/generic-local/${p}`,
      headers: { authorization: ADMIN },
      payload: body,
    });
  beforeAll(async () => {
    t = await createTestApp();
    tmp = await mkdtemp(path.join(os.tmpdir(), 'granary-zip-'));
    expect((await deploy('dl/readme.txt', 'read me\n')).statusCode).toBe(201);
    expect((await deploy('dl/bin/data.bin', BIN)).statusCode).toBe(201);
    expect((await deploy('dl/secret/key.txt', 'secret')).statusCode).toBe(201);
    expect((await deploy('other/x.txt', 'not in the folder')).statusCode).toBe(201);
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/users/zreader',
      headers: { authorization: ADMIN },
      payload: { password: 'Zreader-pa55word!' },
    });
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/permissions/zread',
      headers: { authorization: ADMIN },
      payload: {
        repo: {
          repositories: ['generic-local'],
          include_patterns: ['**'],
          exclude_patterns: ['dl/secret/**'],
          actions: { users: { zreader: ['read'] } },
        },
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it('GET /api/archive/download/{key}/{path}?archiveType=zip answers a zip that unzips to the folder’s files and bytes', async () => {
    const res = await t.app.inject({
      url: '/api/archive/download/generic-local/dl?archiveType=zip',
      headers: { authorization: ADMIN },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toContain('dl.zip');
    const entries = unzipEntries(res.rawPayload);
    expect([...entries.keys()].sort()).toEqual(['bin/data.bin', 'readme.txt', 'secret/key.txt']);
    expect(entries.get('bin/data.bin')!.equals(BIN)).toBe(true);
    expect(entries.get('readme.txt')!.toString()).toBe('read me\n');
    if (existsSync('/usr/bin/unzip')) {
      const file = path.join(tmp, 'dl.zip');
      await writeFile(file, res.rawPayload);
      const listing = execFileSync('unzip', ['-l', file], { encoding: 'utf8' });
      expect(listing).toContain('bin/data.bin');
      expect(execFileSync('unzip', ['-p', file, 'bin/data.bin']).equals(BIN)).toBe(true);
      execFileSync('unzip', ['-tq', file]); // CRCs check out
    }
  });

  it('files the caller may not read are left out of the zip', async () => {
    const res = await t.app.inject({
      url: '/api/archive/download/generic-local/dl?archiveType=zip',
      headers: { authorization: READER },
    });
    expect(res.statusCode).toBe(200);
    expect([...unzipEntries(res.rawPayload).keys()].sort()).toEqual(['bin/data.bin', 'readme.txt']);
  });

  it('a whole repository downloads; a file path, an unknown archive type and an oversized folder answer 400', async () => {
    const all = await t.app.inject({
      url: '/api/archive/download/generic-local',
      headers: { authorization: ADMIN },
    });
    expect(all.statusCode).toBe(200);
    expect(unzipEntries(all.rawPayload).get('other/x.txt')!.toString()).toBe('not in the folder');
    const file = await t.app.inject({
      url: '/api/archive/download/generic-local/dl/readme.txt',
      headers: { authorization: ADMIN },
    });
    expect(file.statusCode).toBe(400);
    const tar = await t.app.inject({
      url: '/api/archive/download/generic-local/dl?archiveType=tar',
      headers: { authorization: ADMIN },
    });
    expect(tar.statusCode).toBe(400);
    const ctx = t.app.repositories;
    const failure = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: unknown) => ({ status: httpStatusOf(e), code: (e as { code?: unknown }).code }),
      );
    await expect(
      failure(folderArchive(ctx, null, RepoPath.parse('generic-local', 'dl'), { files: 2, bytes: 1e9 })),
    ).resolves.toMatchObject({ status: 401 });
    const admin: Principal = { id: 'x', name: 'admin', admin: true };
    await expect(
      failure(folderArchive(ctx, admin, RepoPath.parse('generic-local', 'dl'), { files: 2, bytes: 1e9 })),
    ).resolves.toEqual({ status: 400, code: 'ARCHIVE_TOO_LARGE' });
    await expect(
      failure(folderArchive(ctx, admin, RepoPath.parse('generic-local', 'dl'), { files: 100, bytes: 1000 })),
    ).resolves.toEqual({ status: 400, code: 'ARCHIVE_TOO_LARGE' });
  });
});
