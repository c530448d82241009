import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../platform/db/index.ts';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { digestOf, type TestImage, testImage, testIndex } from './oci-testing.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);

interface OutboxRow {
  id: number;
  xid: string;
  type: string;
  payload: Record<string, unknown>;
}

describe(`issue 14 §Events: docker tags pushed and deleted through /v2/ (${testEngine})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    const put = (key: string, payload: object) =>
      t.app.inject({
        method: 'PUT',
        url: `/api/repositories/${key}`,
        headers: { authorization: ADMIN },
        payload,
      });
    expect((await put('dk-local', { rclass: 'local', packageType: 'docker' })).statusCode).toBe(201);
    const virtual = await put('dk', {
      rclass: 'virtual',
      packageType: 'docker',
      repositories: ['dk-local'],
      defaultDeploymentRepo: 'dk-local',
    });
    expect(virtual.statusCode).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
  });

  const inject = (method: string, url: string, headers: Record<string, string> = {}, body?: Buffer) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: ADMIN, ...headers },
      ...(body ? { payload: body } : {}),
    });
  const pushBlobs = async (name: string, image: TestImage) => {
    for (const b of [image.config, ...image.layers]) {
      const res = await inject(
        'POST',
        `/v2/${name}/blobs/uploads/?digest=${b.digest}`,
        { 'content-type': 'application/octet-stream' },
        b.bytes,
      );
      expect(res.statusCode, res.body).toBe(201);
    }
  };
  const pushManifest = async (name: string, ref: string, bytes: Buffer, mediaType: string) => {
    const res = await inject('PUT', `/v2/${name}/manifests/${ref}`, { 'content-type': mediaType }, bytes);
    expect(res.statusCode, res.body).toBe(201);
  };
  /** Outbox rows with their transaction, in order. */
  const outbox = () =>
    queryRows<OutboxRow>(
      t.app.granary.database.db,
      sql`select id, xid::text as xid, type, payload from outbox_events order by xid, id`,
    );
  async function eventsOf(action: () => Promise<unknown>): Promise<OutboxRow[]> {
    const before = Math.max(0, ...(await outbox()).map((e) => Number(e.id)));
    await action();
    return (await outbox()).filter((e) => Number(e.id) > before);
  }
  const docker = (rows: OutboxRow[]) => rows.filter((r) => r.type.startsWith('docker.'));
  /** The artifact event of the tag's manifest file, which must share the docker event's transaction. */
  const manifestEvent = (rows: OutboxRow[], type: string, path: string) =>
    rows.find((r) => r.type === type && r.payload.path === path);

  it("issue 14 §Events: a tag pushed is one docker.pushed (image, tag, platform, its manifest file) in the transaction of the tag's files; the same push again publishes none", async () => {
    const image = testImage({ arch: 'arm64' });
    await pushBlobs('dk-local/team/app', image);
    const rows = await eventsOf(() =>
      pushManifest('dk-local/team/app', '1.0', image.manifest, image.mediaType),
    );
    expect(docker(rows).map((r) => ({ type: r.type, data: r.payload }))).toEqual([
      {
        type: 'docker.pushed',
        data: {
          repo_key: 'dk-local',
          path: 'team/app/1.0/manifest.json',
          name: 'manifest.json',
          sha256: image.digest.slice('sha256:'.length),
          size: image.manifest.length,
          image_name: 'team/app',
          tag: '1.0',
          platforms: [{ architecture: 'arm64', os: 'linux' }],
          by: 'admin',
        },
      },
    ]);
    const file = manifestEvent(rows, 'artifact.deployed', 'team/app/1.0/manifest.json');
    expect(file?.xid).toBe(docker(rows)[0]!.xid);
    expect(
      docker(await eventsOf(() => pushManifest('dk-local/team/app', '1.0', image.manifest, image.mediaType))),
    ).toEqual([]);
    // A push by digest names no tag: no docker event.
    expect(
      docker(
        await eventsOf(() =>
          pushManifest('dk-local/team/app', image.digest, image.manifest, image.mediaType),
        ),
      ),
    ).toEqual([]);
  });

  it('issue 14 §Events: a multi-platform index pushed by tag names every platform; pushed through a virtual repository it names the virtual too', async () => {
    const amd = testImage({ arch: 'amd64' });
    const arm = testImage({ arch: 'arm64' });
    for (const image of [amd, arm]) {
      await pushBlobs('dk/multi', image);
      await pushManifest('dk/multi', image.digest, image.manifest, image.mediaType);
    }
    const index = testIndex([amd, arm]);
    const rows = await eventsOf(() => pushManifest('dk/multi', '2.0', index.bytes, index.mediaType));
    expect(docker(rows).map((r) => ({ type: r.type, data: r.payload }))).toEqual([
      {
        type: 'docker.pushed',
        data: {
          repo_key: 'dk-local',
          virtual_repo_key: 'dk',
          path: 'multi/2.0/list.manifest.json',
          name: 'list.manifest.json',
          sha256: index.digest.slice('sha256:'.length),
          size: index.bytes.length,
          image_name: 'multi',
          tag: '2.0',
          platforms: [
            { architecture: 'amd64', os: 'linux' },
            { architecture: 'arm64', os: 'linux' },
          ],
          by: 'admin',
        },
      },
    ]);
    expect(manifestEvent(rows, 'artifact.deployed', 'multi/2.0/list.manifest.json')?.payload).toMatchObject({
      repo_key: 'dk-local',
      virtual_repo_key: 'dk',
    });
  });

  it('issue 14 §Events: deleting a tag is one docker.deleted in the transaction of its files; deleting a digest is one per tag that pointed at it', async () => {
    const image = testImage({ layerSizes: [512] });
    await pushBlobs('dk-local/gone', image);
    for (const tag of ['a', 'b', 'c'])
      await pushManifest('dk-local/gone', tag, image.manifest, image.mediaType);
    const data = (tag: string) => ({
      repo_key: 'dk-local',
      path: `gone/${tag}/manifest.json`,
      name: 'manifest.json',
      sha256: image.digest.slice('sha256:'.length),
      size: image.manifest.length,
      image_name: 'gone',
      tag,
      by: 'admin',
    });
    const one = await eventsOf(async () =>
      expect((await inject('DELETE', '/v2/dk-local/gone/manifests/a')).statusCode).toBe(202),
    );
    expect(docker(one).map((r) => ({ type: r.type, data: r.payload }))).toEqual([
      { type: 'docker.deleted', data: data('a') },
    ]);
    expect(manifestEvent(one, 'artifact.deleted', 'gone/a/manifest.json')?.xid).toBe(docker(one)[0]!.xid);
    const byDigest = await eventsOf(async () =>
      expect(
        (await inject('DELETE', `/v2/dk-local/gone/manifests/${digestOf(image.manifest)}`)).statusCode,
      ).toBe(202),
    );
    expect(
      docker(byDigest)
        .map((r) => ({ type: r.type, data: r.payload }))
        .sort((x, y) => String(x.data.tag).localeCompare(String(y.data.tag))),
    ).toEqual([
      { type: 'docker.deleted', data: data('b') },
      { type: 'docker.deleted', data: data('c') },
    ]);
    expect((await inject('GET', '/v2/dk-local/gone/manifests/b')).statusCode).toBe(404);
  });
});
