import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EVENT_CATALOG, type EventDomain } from '@granary/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testImage } from '../../formats/docker/oci-testing.ts';
import { makeTarball, publishDocument } from '../../formats/npm/test-support.ts';
import { findRepository } from '../../modules/repositories/repositories.api.ts';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { listEvents } from './index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);

/** Outbox types the server keeps for itself: never delivered, so outside the catalogue. */
const INTERNAL = /^repository\./;

describe(`issue 14 §Events: the event catalogue and the outbox agree (${testEngine})`, () => {
  let t: TestApp;
  let archive = '';
  beforeAll(async () => {
    // An archive store, so that a retention policy can archive (artifact_lifecycle).
    archive = await mkdtemp(path.join(os.tmpdir(), 'granary-catalogue-archive-'));
    t = await createTestApp({ archiveStore: archive });
  });
  afterAll(async () => {
    await t?.close();
    if (archive) await rm(archive, { recursive: true, force: true });
  });
  const call = async (
    method: string,
    url: string,
    payload?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const res = await t.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: ADMIN, ...headers },
      ...(payload !== undefined ? { payload: payload as string } : {}),
    });
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res;
  };

  /**
   * A user's action that makes each domain the catalogue marks available produce an event. A domain
   * marked available without an entry here fails the test: give it a real producer and its action.
   */
  const producers: Partial<Record<EventDomain, () => Promise<void>>> = {
    artifact: async () => {
      await call('PUT', '/repository/generic-local/cat/file.txt', 'catalogue', {
        'content-type': 'application/octet-stream',
      });
    },
    artifact_property: async () => {
      await call('PUT', '/api/storage/generic-local/cat/file.txt?properties=stage=qa');
    },
    docker: async () => {
      await call('PUT', '/api/repositories/cat-docker', { rclass: 'local', packageType: 'docker' });
      const image = testImage();
      for (const b of [image.config, ...image.layers])
        await call('POST', `/v2/cat-docker/img/blobs/uploads/?digest=${b.digest}`, b.bytes, {
          'content-type': 'application/octet-stream',
        });
      await call('PUT', '/v2/cat-docker/img/manifests/1.0', image.manifest, {
        'content-type': image.mediaType,
      });
    },
    user: async () => {
      await call('PUT', '/api/security/users/cata', { password: 'Catalogue-Pa55word!' });
    },
    build: async () => {
      await call(
        'PUT',
        '/api/build',
        JSON.stringify({
          name: 'cat-build',
          number: '1',
          started: '2026-03-01T10:00:00.000+0000',
          modules: [],
        }),
        { 'content-type': 'application/json' },
      );
    },
    promotion: async () => {
      await call(
        'PUT',
        '/api/build',
        JSON.stringify({
          name: 'cat-promo',
          number: '1',
          started: '2026-03-01T10:00:00.000+0000',
          modules: [],
        }),
        { 'content-type': 'application/json' },
      );
      await call('POST', '/api/build/promote/cat-promo/1', JSON.stringify({ status: 'released' }), {
        'content-type': 'application/json',
      });
    },
    release_bundle: async () => {
      await call('POST', '/api/security/keypair', { pairName: 'cat-key' });
      await call('PUT', '/repository/generic-local/cat/bundle.txt', 'bundled', {
        'content-type': 'application/octet-stream',
      });
      await call(
        'POST',
        '/lifecycle/api/v2/release_bundle',
        {
          release_bundle_name: 'cat-bundle',
          release_bundle_version: '1',
          source_type: 'artifacts',
          source: { artifacts: [{ path: 'generic-local/cat/bundle.txt' }] },
        },
        { 'x-jfrog-signing-key-name': 'cat-key' },
      );
    },
    distribution: async () => {
      // The start is announced when asked; the unreachable target fails later, in the job.
      await call('POST', '/api/security/keypair', { pairName: 'cat-dist-key' });
      await call('PUT', '/repository/generic-local/cat/shipped.txt', 'shipped', {
        'content-type': 'application/octet-stream',
      });
      await call(
        'POST',
        '/lifecycle/api/v2/release_bundle',
        {
          release_bundle_name: 'cat-shipped',
          release_bundle_version: '1',
          source_type: 'artifacts',
          source: { artifacts: [{ path: 'generic-local/cat/shipped.txt' }] },
        },
        { 'x-jfrog-signing-key-name': 'cat-dist-key' },
      );
      await call('POST', '/lifecycle/api/v2/distribution/targets', {
        name: 'cat-edge',
        url: 'http://127.0.0.1:9',
        token: 'cat-token',
      });
      await call('POST', '/lifecycle/api/v2/distribution/distribute/cat-shipped/1', {
        targets: ['cat-edge'],
      });
    },
    artifact_lifecycle: async () => {
      // A retention policy archives the older of two npm versions.
      await call('PUT', '/api/repositories/cat-npm', { rclass: 'local', packageType: 'npm' });
      for (const version of ['1.0.0', '2.0.0']) {
        const manifest = { name: 'cat-pkg', version, description: 'catalogue' };
        await call(
          'PUT',
          '/repository/cat-npm/cat-pkg',
          JSON.stringify(publishDocument(manifest, await makeTarball(manifest))),
          { 'content-type': 'application/json' },
        );
      }
      const policy = (
        await call('POST', '/api/retention/policies', {
          name: 'catArchive',
          repositories: ['cat-npm'],
          rules: { keepLastVersions: 1 },
          action: 'archive',
        })
      ).json() as { id: string };
      await call('POST', `/api/retention/policies/${policy.id}/run`);
      for (let i = 0; i < 300; i++) {
        const p = (await call('GET', `/api/retention/policies/${policy.id}`)).json() as {
          lastRunAt?: string;
        };
        if (p.lastRunAt) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('the archiving policy did not run');
    },
    policy: async () => {
      // A licence policy that notifies, a watch on the repository, and a scan of a stored file handed
      // to the policies (the scans part's listener) with a licence the policy does not allow.
      await call('POST', '/xray/api/v2/policies', {
        name: 'cat-licences',
        type: 'license',
        rules: [
          {
            name: 'mit-only',
            priority: 1,
            criteria: { allowed_licenses: ['MIT'] },
            actions: { webhooks: ['any'] },
          },
        ],
      });
      await call('POST', '/xray/api/v2/watches', {
        general_data: { name: 'cat-watch', active: true },
        project_resources: { resources: [{ type: 'repository', name: 'generic-local' }] },
        assigned_policies: [{ name: 'cat-licences', type: 'license' }],
      });
      await call('PUT', '/repository/generic-local/cat/lib.tgz', 'lib', {
        'content-type': 'application/octet-stream',
      });
      const repo = await findRepository(t.app.granary.database.db, 'generic-local');
      const root = {
        purl: 'pkg:npm/cat-lib@1.0.0',
        ecosystem: 'npm',
        name: 'cat-lib',
        version: '1.0.0',
        licenses: ['GPL-3.0-only'],
      };
      await t.app.scanPolicies.onScan({
        repositoryId: repo!.id,
        repoKey: 'generic-local',
        packageType: 'generic',
        path: 'cat/lib.tgz',
        sha256: '0'.repeat(64),
        status: 'scanned',
        error: null,
        scannedAt: new Date(),
        artifact: { root, components: [], dependencies: {} },
        findings: [],
      });
    },
  };

  it('issue 14 §Events: every domain the catalogue marks available has a producer; what is produced is a catalogue type with snake_case data', async () => {
    const available = EVENT_CATALOG.filter((d) => d.available).map((d) => d.domain);
    expect(available.filter((d) => !producers[d])).toEqual([]);
    for (const domain of available) await producers[domain]!();

    const events = (await listEvents(t.app.granary.database.db)).filter((e) => !INTERNAL.test(e.type));
    const produced = new Set(events.map((e) => e.type.slice(0, e.type.indexOf('.'))));
    for (const domain of available) expect(produced, `no ${domain}.* event was produced`).toContain(domain);

    const catalogue = new Set(
      EVENT_CATALOG.flatMap((d) => d.event_types.map((type) => `${d.domain}.${type.type}`)),
    );
    for (const e of events) {
      expect(catalogue, `${e.type} is not in the catalogue`).toContain(e.type);
      for (const key of Object.keys(e.payload)) expect(key, `${e.type} data`).toMatch(/^[a-z0-9_]+$/);
    }
    // A domain the catalogue says nothing produces yet indeed has no producer.
    const unavailable = EVENT_CATALOG.filter((d) => !d.available).map((d) => d.domain as string);
    expect([...produced].filter((d) => unavailable.includes(d))).toEqual([]);
  });
});
