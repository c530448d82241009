import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { RepositoryQuota, StorageHistory, StorageSummary } from '@granary/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestOf, testImage } from '../../formats/docker/oci-testing.ts';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);

describe(`issue 21 quotas and the storage summary (${testEngine})`, () => {
  let t: TestApp;
  const call = (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: ADMIN, ...headers },
      ...(payload === undefined ? {} : { payload: payload as string }),
    });
  const deploy = (repo: string, file: string, bytes: Buffer | string) =>
    call('PUT', `/repository/${repo}/${file}`, bytes, { 'content-type': 'application/octet-stream' });
  const setQuota = async (repo: string, quotaBytes: number | null) => {
    const res = await call('PUT', `/ui/api/v1/storage/quotas/repositories/${repo}`, { quotaBytes });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as RepositoryQuota;
  };
  const quotaOf = async (repo: string) =>
    (await call('GET', `/ui/api/v1/storage/quotas/repositories/${repo}`)).json() as RepositoryQuota;
  const serverLog = async () => {
    t.app.granary.logging.flush();
    await new Promise((r) => setTimeout(r, 100));
    return (await readFile(path.join(t.home, 'logs', 'server.log'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { level: number; msg: string });
  };

  beforeAll(async () => {
    t = await createTestApp();
    const project = await call('POST', '/ui/api/v1/access/projects', {
      project_key: 'quotap',
      display_name: 'Quota project',
      storage_quota_bytes: 1000,
    });
    expect(project.statusCode, project.body).toBe(201);
    for (const [key, body] of [
      ['sum-a', { rclass: 'local', packageType: 'generic' }],
      ['sum-b', { rclass: 'local', packageType: 'generic' }],
      ['gen-q', { rclass: 'local', packageType: 'generic' }],
      ['proj-a', { rclass: 'local', packageType: 'generic', projectKey: 'quotap' }],
      ['proj-b', { rclass: 'local', packageType: 'generic', projectKey: 'quotap' }],
      ['docker-q', { rclass: 'local', packageType: 'docker' }],
    ] as const) {
      const res = await call('PUT', `/api/repositories/${key}`, body);
      expect(res.statusCode, res.body).toBe(201);
    }
  }, 120_000);
  afterAll(() => t?.close());

  it('issue 21 storage summary: per repository, project and package type; the deduplication saving is the sum of artifact sizes minus the distinct blobs', async () => {
    const x = Buffer.alloc(100, 'x');
    for (const [repo, file, bytes] of [
      ['sum-a', 'one/x.bin', x],
      ['sum-a', 'two/x.bin', x],
      ['sum-b', 'x.bin', x],
      ['sum-b', 'y.bin', Buffer.alloc(50, 'y')],
      ['proj-a', 'p.bin', Buffer.alloc(10, 'p')],
    ] as const)
      expect((await deploy(repo, file, bytes)).statusCode).toBe(201);
    const res = await call('GET', '/ui/api/v1/ui/storagesummary');
    expect(res.statusCode, res.body).toBe(200);
    const s = res.json() as StorageSummary;
    // 5 files of 360 bytes in 3 distinct contents of 160 bytes: 200 bytes saved.
    expect(s.binariesSummary).toMatchObject({
      artifactsCount: 5,
      artifactsSize: 360,
      binariesCount: 3,
      binariesSize: 160,
      deduplicationSaving: 200,
    });
    const repo = (key: string) => s.repositoriesSummaryList.find((r) => r.repoKey === key);
    expect(repo('sum-a')).toMatchObject({
      filesCount: 2,
      usedSpace: 200,
      quotaBytes: null,
      quotaState: 'ok',
    });
    expect(repo('proj-a')).toMatchObject({ projectKey: 'quotap', usedSpace: 10 });
    expect(s.projectsSummaryList).toEqual([
      {
        projectKey: 'quotap',
        repositoriesCount: 2,
        filesCount: 1,
        usedSpace: 10,
        quotaBytes: 1000,
        quotaState: 'ok',
      },
    ]);
    expect(s.packageTypesSummaryList).toEqual([
      { packageType: 'generic', filesCount: 5, usedSpace: 360 },
      { packageType: 'docker', filesCount: 0, usedSpace: 0 },
    ]);
    expect(s.trash).toEqual(expect.objectContaining({ count: expect.any(Number), size: expect.any(Number) }));
    expect(s.reclaimable).toEqual(
      expect.objectContaining({ blobs: expect.any(Number), bytes: expect.any(Number) }),
    );

    // The daily snapshot (a platform job) and the history the charts read: today's use per repository.
    const run = await call('POST', '/api/system/jobs/storage.usage-snapshot/run');
    expect(run.statusCode, run.body).toBeLessThan(300);
    const history = (
      await call('GET', '/ui/api/v1/ui/storagesummary/history?days=7')
    ).json() as StorageHistory;
    expect(history.snapshots.find((r) => r.repoKey === 'sum-b')).toMatchObject({
      packageType: 'generic',
      filesCount: 2,
      usedBytes: 150,
    });
  });

  it('issue 21 quotas: a deploy over the repository quota is refused with 413 in the REST error shape and stores nothing; 80 % is warned in the server log and shown as "warning"', async () => {
    expect(await setQuota('gen-q', 1000)).toMatchObject({ quotaBytes: 1000, usedBytes: 0, state: 'ok' });
    expect((await deploy('gen-q', 'a.bin', Buffer.alloc(600, 1))).statusCode).toBe(201);
    expect((await quotaOf('gen-q')).state).toBe('ok');
    expect((await deploy('gen-q', 'b.bin', Buffer.alloc(250, 2))).statusCode).toBe(201);
    expect(await quotaOf('gen-q')).toMatchObject({ usedBytes: 850, state: 'warning' });
    const warned = (await serverLog()).filter((l) => l.msg.startsWith('Storage quota warning'));
    expect(warned.map((l) => [l.level, l.msg])).toEqual([
      [40, "Storage quota warning: repository 'gen-q' holds 850 bytes of its 1000 bytes quota (85 %)"],
    ]);

    const over = await deploy('gen-q', 'c.bin', Buffer.alloc(200, 3));
    expect(over.statusCode).toBe(413);
    expect(over.json()).toEqual({
      errors: [
        {
          status: 413,
          code: 'QUOTA_EXCEEDED',
          message:
            "Storage quota exceeded: repository 'gen-q' may hold 1000 bytes and holds 850 bytes; this upload of 200 bytes was refused and nothing was stored",
        },
      ],
    });
    expect((await call('GET', '/repository/gen-q/c.bin')).statusCode).toBe(404);
    expect((await quotaOf('gen-q')).usedBytes).toBe(850);

    // Replacing a file with a smaller one, deleting and raising the quota all count exactly.
    expect((await deploy('gen-q', 'a.bin', Buffer.alloc(100, 4))).statusCode).toBe(201);
    expect((await quotaOf('gen-q')).usedBytes).toBe(350);
    expect((await call('DELETE', '/repository/gen-q/b.bin')).statusCode).toBe(204);
    expect((await quotaOf('gen-q')).usedBytes).toBe(100);
    expect((await deploy('gen-q', 'c.bin', Buffer.alloc(200, 3))).statusCode).toBe(201);
    expect((await setQuota('gen-q', null)).quotaBytes).toBeNull();
  });

  it('issue 21 quotas: a project quota counts every repository of the project', async () => {
    // proj-a holds 10 bytes from the summary test; the project may hold 1000.
    expect((await deploy('proj-a', 'big.bin', Buffer.alloc(600, 5))).statusCode).toBe(201);
    expect((await deploy('proj-b', 'mid.bin', Buffer.alloc(300, 6))).statusCode).toBe(201);
    const over = await deploy('proj-b', 'more.bin', Buffer.alloc(100, 7));
    expect(over.statusCode).toBe(413);
    expect(over.json().errors[0].message).toContain(
      "project 'quotap' may hold 1000 bytes and holds 910 bytes",
    );
    expect((await quotaOf('proj-b')).project).toEqual({
      projectKey: 'quotap',
      quotaBytes: 1000,
      usedBytes: 910,
      state: 'warning',
    });
    expect((await deploy('proj-b', 'fits.bin', Buffer.alloc(90, 8))).statusCode).toBe(201);
  });

  it("issue 21 quotas: an OCI push over the quota is refused as the distribution spec's JSON error DENIED and leaves no blob", async () => {
    await setQuota('docker-q', 2000);
    const image = testImage({ layerSizes: [1500, 1500] });
    const push = (bytes: Buffer) =>
      call('POST', `/v2/docker-q/app/blobs/uploads/?digest=${digestOf(bytes)}`, bytes, {
        'content-type': 'application/octet-stream',
      });
    expect((await push(image.layers[0]!.bytes)).statusCode).toBe(201);
    const refused = await push(image.layers[1]!.bytes);
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['content-type']).toContain('application/json');
    expect(refused.json()).toEqual({
      errors: [
        {
          code: 'DENIED',
          message:
            "Storage quota exceeded: repository 'docker-q' may hold 2.0 KiB and holds 1.5 KiB; this upload of 1.5 KiB was refused and nothing was stored",
          detail: null,
        },
      ],
    });
    const head = await call('HEAD', `/v2/docker-q/app/blobs/${image.layers[1]!.digest}`);
    expect(head.statusCode).toBe(404);
  });

  it("issue 21 quotas: a copy or move into a repository over its quota is refused with the deploy's 413 QUOTA_EXCEEDED and changes nothing; a move inside a full repository is not", async () => {
    for (const key of ['cp-src', 'cp-dst'])
      expect((await call('PUT', `/api/repositories/${key}`, { rclass: 'local' })).statusCode).toBe(201);
    await setQuota('cp-dst', 500);
    expect((await deploy('cp-src', 'a.bin', Buffer.alloc(300, 'a'))).statusCode).toBe(201);
    expect((await deploy('cp-src', 'dir/b.bin', Buffer.alloc(300, 'b'))).statusCode).toBe(201);
    expect((await call('POST', '/api/copy/cp-src/a.bin?to=/cp-dst/a.bin')).statusCode).toBe(200);

    const copy = await call('POST', '/api/copy/cp-src/dir?to=/cp-dst/dir');
    expect(copy.statusCode).toBe(413);
    expect(copy.json()).toEqual({
      errors: [
        {
          status: 413,
          code: 'QUOTA_EXCEEDED',
          message:
            "Storage quota exceeded: repository 'cp-dst' may hold 500 bytes and holds 300 bytes; this copy of 300 bytes was refused and nothing was stored",
        },
      ],
    });
    const move = await call('POST', '/api/move/cp-src/dir/b.bin?to=/cp-dst/b.bin');
    expect(move.statusCode).toBe(413);
    expect(move.json().errors[0].code).toBe('QUOTA_EXCEEDED');
    expect((await call('GET', '/repository/cp-dst/dir/b.bin')).statusCode).toBe(404);
    expect((await call('GET', '/repository/cp-dst/b.bin')).statusCode).toBe(404);
    expect((await call('GET', '/repository/cp-src/dir/b.bin')).statusCode).toBe(200);
    expect((await quotaOf('cp-dst')).usedBytes).toBe(300);

    // Full to the byte, the repository still renames its own files: its use does not change.
    await setQuota('cp-dst', 300);
    expect((await call('POST', '/api/move/cp-dst/a.bin?to=/cp-dst/renamed.bin')).statusCode).toBe(200);
    expect(
      (await call('GET', '/repository/cp-dst/renamed.bin')).rawPayload.equals(Buffer.alloc(300, 'a')),
    ).toBe(true);
  });

  it("issue 21 quotas: a move into another project's repository counts against that project's quota; a move between two repositories of one project does not", async () => {
    const project = await call('POST', '/ui/api/v1/access/projects', {
      project_key: 'quotam',
      display_name: 'Quota moves',
      storage_quota_bytes: 400,
    });
    expect(project.statusCode, project.body).toBe(201);
    for (const [key, body] of [
      ['mv-a', { rclass: 'local', projectKey: 'quotam' }],
      ['mv-b', { rclass: 'local', projectKey: 'quotam' }],
      ['mv-out', { rclass: 'local' }],
    ] as const)
      expect((await call('PUT', `/api/repositories/${key}`, body)).statusCode).toBe(201);
    expect((await deploy('mv-a', 'x.bin', Buffer.alloc(300, 'x'))).statusCode).toBe(201);
    expect((await deploy('mv-out', 'y.bin', Buffer.alloc(200, 'y'))).statusCode).toBe(201);

    const refused = await call('POST', '/api/move/mv-out/y.bin?to=/mv-b/y.bin');
    expect(refused.statusCode).toBe(413);
    expect(refused.json().errors[0]).toMatchObject({
      code: 'QUOTA_EXCEEDED',
      message:
        "Storage quota exceeded: project 'quotam' may hold 400 bytes and holds 300 bytes; this move of 200 bytes was refused and nothing was stored",
    });
    expect((await call('GET', '/repository/mv-out/y.bin')).statusCode).toBe(200);
    expect((await call('GET', '/repository/mv-b/y.bin')).statusCode).toBe(404);

    expect((await deploy('mv-b', 'fill.bin', Buffer.alloc(100, 'f'))).statusCode).toBe(201);
    expect((await quotaOf('mv-b')).project).toMatchObject({ usedBytes: 400, state: 'exceeded' });
    expect((await call('POST', '/api/move/mv-a/x.bin?to=/mv-b/x.bin')).statusCode).toBe(200);
    expect((await call('GET', '/repository/mv-b/x.bin')).statusCode).toBe(200);
    expect((await quotaOf('mv-b')).project?.usedBytes).toBe(400);
  });

  it("issue 21 quotas: a build promotion over the target repository's quota is refused with 413 QUOTA_EXCEEDED and promotes nothing", async () => {
    const bytes = Buffer.alloc(400, 'p');
    expect((await deploy('cp-src', 'app/1.0/app.bin', bytes)).statusCode).toBe(201);
    const digest = (algorithm: string) => createHash(algorithm).update(bytes).digest('hex');
    const build = await call('PUT', '/api/build', {
      version: '1.0.1',
      name: 'quota-app',
      number: '1',
      started: '2026-03-01T10:00:00.000+0000',
      modules: [
        {
          id: 'app',
          artifacts: [
            { name: 'app.bin', sha1: digest('sha1'), sha256: digest('sha256'), md5: digest('md5') },
          ],
        },
      ],
    });
    expect(build.statusCode, build.body).toBeLessThan(300);
    // cp-dst is full (300 of 300 bytes).
    const promote = await call('POST', '/api/build/promote/quota-app/1', {
      targetRepo: 'cp-dst',
      sourceRepo: 'cp-src',
      copy: true,
      status: 'released',
    });
    expect(promote.statusCode, promote.body).toBe(413);
    expect(promote.json().errors[0]).toMatchObject({
      code: 'QUOTA_EXCEEDED',
      message:
        "Storage quota exceeded: repository 'cp-dst' may hold 300 bytes and holds 300 bytes; this copy of 400 bytes was refused and nothing was stored",
    });
    expect((await call('GET', '/repository/cp-dst/app/1.0/app.bin')).statusCode).toBe(404);
    expect((await call('GET', '/api/build/quota-app/1')).json().buildInfo.statuses).toBeUndefined();
  });

  it('issue 21 quotas: a restore from the trash into a full repository is refused with 413 QUOTA_EXCEEDED and the entry stays in the trash', async () => {
    // cp-dst holds renamed.bin (300 of 300 bytes).
    expect((await call('DELETE', '/repository/cp-dst/renamed.bin')).statusCode).toBe(204);
    expect((await deploy('cp-dst', 'other.bin', Buffer.alloc(300, 'o'))).statusCode).toBe(201);
    const refused = await call('POST', '/api/trash/restore/cp-dst/renamed.bin');
    expect(refused.statusCode).toBe(413);
    expect(refused.json().errors[0].code).toBe('QUOTA_EXCEEDED');
    expect((await call('GET', '/repository/cp-dst/renamed.bin')).statusCode).toBe(404);
    expect((await call('DELETE', '/repository/cp-dst/other.bin')).statusCode).toBe(204);
    expect((await call('POST', '/api/trash/restore/cp-dst/renamed.bin')).statusCode).toBe(200);
    expect((await quotaOf('cp-dst')).usedBytes).toBe(300);
  });

  it('issue 21 quotas: only admins set a quota; a user who cannot read the repository does not see its use', async () => {
    const user = await call('PUT', '/api/security/users/quota-reader', {
      email: 'q@example.com',
      password: 'Quota-reader-Pa55!',
    });
    expect(user.statusCode, user.body).toBeLessThan(300);
    const auth = basicAuth('quota-reader', 'Quota-reader-Pa55!');
    const put = await call(
      'PUT',
      '/ui/api/v1/storage/quotas/repositories/gen-q',
      { quotaBytes: 5 },
      { authorization: auth },
    );
    expect(put.statusCode).toBe(403);
    const get = await call('GET', '/ui/api/v1/storage/quotas/repositories/gen-q', undefined, {
      authorization: auth,
    });
    expect([403, 404]).toContain(get.statusCode);
    expect(
      (await call('GET', '/ui/api/v1/ui/storagesummary', undefined, { authorization: auth })).statusCode,
    ).toBe(403);
  });
});
