import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { RepositoryQuota } from '@granary/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);

/** Acceptance (issue 21, quotas): the real npm client publishing over a repository's storage quota. */
describe('issue 21 quotas: npm publish over the quota (the real npm client)', () => {
  let t: TestApp;
  let work: string;
  let registry: string;

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'granary-npm-quota-'));
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    registry = `http://127.0.0.1:${port}/repository/npm-q/`;
    const inject = (method: 'PUT', url: string, payload: object) =>
      t.app.inject({ method, url, headers: { authorization: ADMIN }, payload });
    expect(
      (await inject('PUT', '/api/repositories/npm-q', { rclass: 'local', packageType: 'npm' })).statusCode,
    ).toBe(201);
    expect(
      (await inject('PUT', '/ui/api/v1/storage/quotas/repositories/npm-q', { quotaBytes: 2048 })).statusCode,
    ).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("issue 21 acceptance: an npm publish over the repository quota fails with npm's error (E413 and the server's message) and leaves nothing", async () => {
    const pkg = path.join(work, 'pkg');
    await mkdir(pkg, { recursive: true });
    await writeFile(path.join(pkg, 'package.json'), JSON.stringify({ name: 'quota-pkg', version: '1.0.0' }));
    // Random bytes do not compress: the tarball is well over the 2 KiB quota.
    await writeFile(path.join(pkg, 'blob.bin'), randomBytes(8192));
    const auth = `//${registry.replace(/^http:\/\//, '')}:_auth=${Buffer.from(`admin:${TEST_ADMIN_PASSWORD}`).toString('base64')}`;
    await writeFile(path.join(work, '.npmrc'), `${auth}\n`);
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
    const run = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(
        'npm',
        [
          'publish',
          '--registry',
          registry,
          '--userconfig',
          path.join(work, '.npmrc'),
          '--cache',
          path.join(work, 'cache'),
        ],
        { cwd: pkg, env: { ...env, HOME: work, NO_UPDATE_NOTIFIER: '1' }, timeout: 120_000 },
        (err, _stdout, stderr) => resolve({ code: err ? 1 : 0, stderr }),
      ),
    );
    expect(run.code, run.stderr).not.toBe(0);
    expect(run.stderr).toContain('E413');
    expect(run.stderr).toContain("Storage quota exceeded: repository 'npm-q' may hold 2.0 KiB");

    // Nothing is left: no package for clients, no file counted against the quota.
    const packument = await t.app.inject({
      url: '/repository/npm-q/quota-pkg',
      headers: { authorization: ADMIN },
    });
    expect(packument.statusCode).toBe(404);
    const quota = (
      await t.app.inject({
        url: '/ui/api/v1/storage/quotas/repositories/npm-q',
        headers: { authorization: ADMIN },
      })
    ).json() as RepositoryQuota;
    expect(quota).toMatchObject({ usedBytes: 0, state: 'ok' });
  });
});
