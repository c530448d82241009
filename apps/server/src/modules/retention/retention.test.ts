import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  type ArchiveSearchAnswer,
  EXPIRED_ARTIFACT_MESSAGE,
  type RetentionDryRun,
  type RetentionPolicy,
  type RetentionRules,
} from '@granary/contracts';
import { type SQL, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testImage } from '../../formats/docker/oci-testing.ts';
import { makeTarball, publishDocument } from '../../formats/npm/test-support.ts';
import { basicAuth, createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const DAY = 86_400_000;

describe('issue 21: cleanup and retention policies, download statistics, the archive', () => {
  let t: TestApp;
  let archiveDir: string;
  const inject = (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: ADMIN, ...headers },
      ...(payload === undefined ? {} : { payload: payload as string }),
    });
  const exec = (q: SQL) => t.app.granary.database.db.execute(q);
  const repoId = sql`(select id from repositories where key = `;

  async function repo(key: string, packageType = 'npm') {
    expect(
      (await inject('PUT', `/api/repositories/${key}`, { rclass: 'local', packageType })).statusCode,
    ).toBe(201);
  }
  async function publish(repoKey: string, name: string, version: string): Promise<Buffer> {
    const manifest = { name, version, description: `${name} package` };
    const tgz = await makeTarball(manifest);
    const res = await inject(
      'PUT',
      `/repository/${repoKey}/${name}`,
      JSON.stringify(publishDocument(manifest, tgz)),
      { 'content-type': 'application/json' },
    );
    expect(res.statusCode, res.body).toBeLessThan(300);
    return tgz;
  }
  /** Sets when files (and the versions they lead) were created, `daysAgo` days ago. */
  async function age(repoKey: string, prefix: string, daysAgo: number) {
    const at = new Date(Date.now() - daysAgo * DAY).toISOString();
    await exec(sql`update artifacts set created_at = ${at}::timestamptz
      where repository_id = ${repoId}${repoKey}) and path like ${`${prefix}%`}`);
    await exec(sql`update package_versions v set created_at = ${at}::timestamptz
      from packages p where p.id = v.package_id and p.repository_id = ${repoId}${repoKey})
      and v.lead_path like ${`${prefix}%`}`);
  }
  async function policy(
    name: string,
    repoKey: string,
    rules: Partial<RetentionRules>,
    action: 'delete' | 'archive' = 'delete',
  ): Promise<RetentionPolicy> {
    const res = await inject('POST', '/api/retention/policies', {
      name,
      repositories: [repoKey],
      rules,
      action,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  }
  const dryRun = async (id: string): Promise<RetentionDryRun> => {
    const res = await inject('POST', `/api/retention/policies/${id}/dry-run`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const listed = (d: RetentionDryRun) => d.candidates.map((c) => `${c.name}@${c.version}`).sort();
  const versionsOf = async (repoKey: string, name: string) =>
    Object.keys(
      ((await inject('GET', `/repository/${repoKey}/${name}`)).json() as { versions?: object }).versions ??
        {},
    ).sort();
  async function runNow(id: string): Promise<RetentionPolicy> {
    expect((await inject('POST', `/api/retention/policies/${id}/run`)).statusCode).toBe(202);
    for (let i = 0; i < 300; i++) {
      const p = (await inject('GET', `/api/retention/policies/${id}`)).json() as RetentionPolicy;
      if (p.lastRunAt) return p;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the policy did not run');
  }

  beforeAll(async () => {
    archiveDir = await mkdtemp(path.join(os.tmpdir(), 'granary-archive-'));
    t = await createTestApp({ archiveStore: archiveDir });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await rm(archiveDir, { recursive: true, force: true });
  });

  it('issue 21: keep the last N versions per package — the dry run lists the older ones and changes nothing; a run deletes them', async () => {
    await repo('npm-keep');
    for (const [v, days] of [
      ['1.0.0', 3],
      ['1.1.0', 2],
      ['1.2.0', 1],
    ] as const) {
      await publish('npm-keep', 'keep-last', v);
      await age('npm-keep', `keep-last/-/keep-last-${v}`, days);
    }
    const p = await policy('keepLast', 'npm-keep', { keepLastVersions: 2 });
    const dry = await dryRun(p.id);
    expect(listed(dry)).toEqual(['keep-last@1.0.0']);
    expect(dry.bytes).toBeGreaterThan(0);
    expect(await versionsOf('npm-keep', 'keep-last')).toEqual(['1.0.0', '1.1.0', '1.2.0']);
    const after = await runNow(p.id);
    expect(after.lastResult).toMatchObject({ candidates: 1, done: 1, failed: 0 });
    expect(await versionsOf('npm-keep', 'keep-last')).toEqual(['1.1.0', '1.2.0']);
    expect((await inject('GET', '/repository/npm-keep/keep-last/-/keep-last-1.0.0.tgz')).statusCode).toBe(
      404,
    );
  }, 60_000);

  it('issue 21: delete versions not downloaded for N days (a never-downloaded version counts from its creation)', async () => {
    await repo('npm-stale');
    for (const v of ['1.0.0', '2.0.0', '3.0.0']) await publish('npm-stale', 'stale', v);
    await age('npm-stale', 'stale/', 100);
    await age('npm-stale', 'stale/-/stale-3.0.0', 1);
    await exec(sql`insert into artifact_download_stats (repository_id, path, download_count, last_downloaded)
      values (${repoId}'npm-stale'), 'stale/-/stale-2.0.0.tgz', 1, now() - interval '2 days')`);
    const p = await policy('notDownloaded', 'npm-stale', { notDownloadedDays: 30 });
    expect(listed(await dryRun(p.id))).toEqual(['stale@1.0.0']);
  });

  it('issue 21: delete versions older than N days; keep-lists by pattern and property and what a build references are never listed', async () => {
    await repo('npm-old');
    for (const name of ['old', 'pinned', 'marked', 'built']) await publish('npm-old', name, '1.0.0');
    const built = await publish('npm-old', 'built', '0.9.0');
    await publish('npm-old', 'old', '2.0.0');
    await age('npm-old', '', 40);
    await age('npm-old', 'old/-/old-2.0.0', 5);
    const p = await policy('olderThan', 'npm-old', { olderThanDays: 30 });
    expect(listed(await dryRun(p.id))).toEqual([
      'built@0.9.0',
      'built@1.0.0',
      'marked@1.0.0',
      'old@1.0.0',
      'pinned@1.0.0',
    ]);
    expect(
      (await inject('PUT', '/api/storage/npm-old/marked/-/marked-1.0.0.tgz?properties=retention.keep=true'))
        .statusCode,
    ).toBe(204);
    const builtSha = createHash('sha256').update(built).digest('hex');
    const builtSha1 = createHash('sha1').update(built).digest('hex');
    const info = {
      version: '1.0.1',
      name: 'ci',
      number: '7',
      started: '2026-01-01T00:00:00.000+0000',
      modules: [{ id: 'm', artifacts: [{ name: 'built-0.9.0.tgz', sha256: builtSha, sha1: builtSha1 }] }],
    };
    expect(
      (await inject('PUT', '/api/build', JSON.stringify(info), { 'content-type': 'application/json' }))
        .statusCode,
    ).toBe(204);
    const kept = await inject('PUT', `/api/retention/policies/${p.id}`, {
      name: 'olderThan',
      repositories: ['npm-old'],
      rules: { olderThanDays: 30, keepPatterns: ['pinned/**'], keepProperties: ['retention.keep=true'] },
    });
    expect(kept.statusCode, kept.body).toBe(200);
    expect(listed(await dryRun(p.id))).toEqual(['built@1.0.0', 'old@1.0.0']);
  });

  it('issue 21: Maven snapshots keep the last N builds per snapshot version', async () => {
    await repo('maven-snap', 'maven');
    const folder = 'com/acme/app/1.0-SNAPSHOT';
    for (const [n, ts] of [
      [1, '20260101.100000'],
      [2, '20260102.100000'],
      [3, '20260103.100000'],
    ] as const)
      for (const ext of ['.jar', '-sources.jar'])
        expect(
          (
            await inject(
              'PUT',
              `/repository/maven-snap/${folder}/app-1.0-${ts}-${n}${ext}`,
              `build ${n}${ext}`,
            )
          ).statusCode,
        ).toBe(201);
    const p = await policy('snapshots', 'maven-snap', { mavenSnapshotKeep: 1 });
    const dry = await dryRun(p.id);
    expect(listed(dry)).toEqual([`${folder}@20260101.100000-1`, `${folder}@20260102.100000-2`]);
    expect(dry.candidates.every((c) => c.files === 2)).toBe(true);
    await runNow(p.id);
    expect(
      (await inject('GET', `/repository/maven-snap/${folder}/app-1.0-20260101.100000-1.jar`)).statusCode,
    ).toBe(404);
    expect((await inject('GET', `/repository/maven-snap/${folder}/app-1.0-20260103.100000-3.jar`)).body).toBe(
      'build 3.jar',
    );
  });

  it('issue 21: OCI keeps the last N tags by push time and removes untagged manifests after N days', async () => {
    await repo('docker-ret', 'docker');
    const push = async (name: string, ref: string, image = testImage({ layerSizes: [64] })) => {
      for (const b of [image.config, ...image.layers])
        expect(
          (
            await inject('POST', `/v2/docker-ret/${name}/blobs/uploads/?digest=${b.digest}`, b.bytes, {
              'content-type': 'application/octet-stream',
            })
          ).statusCode,
        ).toBe(201);
      const res = await inject('PUT', `/v2/docker-ret/${name}/manifests/${ref}`, image.manifest, {
        'content-type': image.mediaType,
      });
      expect(res.statusCode, res.body).toBe(201);
      return image;
    };
    for (const [tag, days] of [
      ['v1', 3],
      ['v2', 2],
      ['v3', 1],
    ] as const) {
      await push('app', tag);
      await age('docker-ret', `app/${tag}/`, days);
    }
    const untagged = testImage({ layerSizes: [32] });
    await push('app', untagged.digest, untagged);
    await age('docker-ret', `app/_uploads/sha256__${untagged.digest.slice(7)}`, 10);
    const p = await policy('oci', 'docker-ret', { ociKeepTags: 2, ociUntaggedDays: 7 });
    const dry = await dryRun(p.id);
    expect(listed(dry)).toEqual([`app@${untagged.digest}`, 'app@v1']);
    expect((await inject('GET', '/v2/docker-ret/app/manifests/v1')).statusCode).toBe(200);
  });

  it('issue 21: downloads are counted in memory and written in a batch: count, last downloaded and by whom', async () => {
    await repo('npm-stats');
    await publish('npm-stats', 'counted', '1.0.0');
    for (let i = 0; i < 3; i++)
      expect((await inject('GET', '/repository/npm-stats/counted/-/counted-1.0.0.tgz')).statusCode).toBe(200);
    await t.app.granary.jobs.runNow('retention.download-stats');
    const res = await inject('GET', '/api/storage/npm-stats/counted/-/counted-1.0.0.tgz?stats');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ downloadCount: 3, lastDownloadedBy: 'admin', remoteDownloadCount: 0 });
    expect(res.json().lastDownloaded).toBeGreaterThan(Date.now() - 60_000);
  });

  it("issue 21 / spec 001 §8: a policy archives old versions; Archive search finds them; a client download gets 'Cannot download expired artifact'; restore brings the identical bytes back", async () => {
    expect((await inject('GET', '/ui/api/v1/retention/config/enable')).json()).toEqual({ enable: true });
    expect((await inject('GET', '/ui/api/v1/system/featuresConfig')).json()).toMatchObject({
      coldStorage: true,
    });
    await repo('npm-cold');
    const tgz = await publish('npm-cold', 'frozen', '1.0.0');
    await publish('npm-cold', 'frozen', '2.0.0');
    await age('npm-cold', 'frozen/-/frozen-1.0.0', 60);
    const p = await policy('archiveOld', 'npm-cold', { olderThanDays: 30 }, 'archive');
    expect((await runNow(p.id)).lastResult).toMatchObject({ done: 1, failed: 0 });

    const download = await inject('GET', '/repository/npm-cold/frozen/-/frozen-1.0.0.tgz');
    expect(download.statusCode).toBe(404);
    expect(download.json()).toEqual({ error: EXPIRED_ARTIFACT_MESSAGE });
    expect(await versionsOf('npm-cold', 'frozen')).toEqual(['2.0.0']);

    const found = (
      await inject('GET', '/api/retention/archive/search?q=frozen*.tgz&repo=npm-cold')
    ).json() as ArchiveSearchAnswer;
    expect(found.results.map((r) => r.path)).toEqual(['frozen/-/frozen-1.0.0.tgz']);
    expect(found.results[0]).toMatchObject({ repoKey: 'npm-cold', size: tgz.length, policy: 'archiveOld' });

    const restored = await inject('POST', '/api/retention/archive/restore', { ids: [found.results[0]!.id] });
    expect(restored.json()).toMatchObject({ restored: [{ path: 'frozen/-/frozen-1.0.0.tgz' }], errors: [] });
    const back = await inject('GET', '/repository/npm-cold/frozen/-/frozen-1.0.0.tgz');
    expect(back.statusCode).toBe(200);
    expect(back.rawPayload.equals(tgz)).toBe(true);
    expect(await versionsOf('npm-cold', 'frozen')).toEqual(['1.0.0', '2.0.0']);
    expect((await inject('GET', '/api/retention/archive/search?q=frozen')).json().total).toBe(0);
  }, 60_000);

  it('issue 21: policies and the archive are for administrators', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/retention/policies' })).statusCode).toBe(401);
    expect(
      (await t.app.inject({ method: 'GET', url: '/ui/api/v1/retention/config/enable' })).statusCode,
    ).toBe(401);
  });
});
