import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestOf, testImage } from '../../../formats/docker/oci-testing.ts';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../../testing/index.ts';
import { createSystemHandle } from '../../repositories/format-context.ts';
import { findRepository } from '../../repositories/repositories.service.ts';
import { attachSbomReferrer, CYCLONEDX_ARTIFACT_TYPE } from './oci-referrer.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);

describe(`issue 16 "SBOM": an image's SBOM attached as an OCI referrer (${testEngine})`, () => {
  let t: TestApp;
  const inject = (method: string, url: string, headers: Record<string, string> = {}, payload?: Buffer) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: ADMIN, ...headers },
      ...(payload ? { payload } : {}),
    });

  beforeAll(async () => {
    t = await createTestApp();
    const res = await t.app.inject({
      method: 'PUT',
      url: '/api/repositories/docker-local',
      headers: { authorization: ADMIN },
      payload: { rclass: 'local', packageType: 'docker' },
    });
    expect(res.statusCode).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('issue 16 "SBOM": the CycloneDX document is stored as a referrer of the image manifest and lists under /v2/{name}/referrers/{digest}?artifactType=application/vnd.cyclonedx+json', async () => {
    const image = testImage();
    for (const b of [image.config, ...image.layers])
      expect(
        (
          await inject(
            'POST',
            `/v2/docker-local/web/blobs/uploads/?digest=${b.digest}`,
            { 'content-type': 'application/octet-stream' },
            b.bytes,
          )
        ).statusCode,
      ).toBe(201);
    expect(
      (
        await inject(
          'PUT',
          '/v2/docker-local/web/manifests/1.0',
          { 'content-type': image.mediaType },
          image.manifest,
        )
      ).statusCode,
    ).toBe(201);

    const repo = await findRepository(t.app.repositories.db, 'docker-local');
    const handle = createSystemHandle(t.app.repositories, repo!);
    const sbom = Buffer.from(JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1 }));
    const { digest } = await attachSbomReferrer(handle, 'web', image.digest, sbom);

    const listed = await inject(
      'GET',
      `/v2/docker-local/web/referrers/${image.digest}?artifactType=application/vnd.cyclonedx%2Bjson`,
    );
    expect(listed.statusCode).toBe(200);
    expect(listed.headers['oci-filters-applied']).toBe('artifactType');
    expect(listed.json().manifests).toEqual([
      expect.objectContaining({
        digest,
        artifactType: CYCLONEDX_ARTIFACT_TYPE,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
      }),
    ]);
    // Another artifact type filters it out.
    const other = await inject(
      'GET',
      `/v2/docker-local/web/referrers/${image.digest}?artifactType=application/spdx%2Bjson`,
    );
    expect(other.json().manifests).toEqual([]);

    // The referrer is a real manifest: its subject is the image, its layer the SBOM's bytes, its config empty.
    const manifest = await inject('GET', `/v2/docker-local/web/manifests/${digest}`, {
      accept: 'application/vnd.oci.image.manifest.v1+json',
    });
    expect(manifest.statusCode).toBe(200);
    const doc = manifest.json();
    expect(doc).toMatchObject({
      artifactType: CYCLONEDX_ARTIFACT_TYPE,
      config: { mediaType: 'application/vnd.oci.empty.v1+json', digest: digestOf('{}'), size: 2 },
      subject: { digest: image.digest, size: image.manifest.length, mediaType: image.mediaType },
      layers: [{ mediaType: CYCLONEDX_ARTIFACT_TYPE, digest: digestOf(sbom), size: sbom.length }],
    });
    const blob = await inject('GET', `/v2/docker-local/web/blobs/${digestOf(sbom)}`);
    expect(blob.statusCode).toBe(200);
    expect(blob.rawPayload.equals(sbom)).toBe(true);

    // Attaching the same SBOM again adds no second referrer; the tag still names the image.
    expect((await attachSbomReferrer(handle, 'web', image.digest, sbom)).digest).toBe(digest);
    const again = await inject('GET', `/v2/docker-local/web/referrers/${image.digest}`);
    expect(again.json().manifests).toHaveLength(1);
    const tag = await inject('GET', '/v2/docker-local/web/manifests/1.0', { accept: image.mediaType });
    expect(tag.headers['docker-content-digest']).toBe(image.digest);
  });
});
