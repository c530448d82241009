import { expect } from 'vitest';
import { ADMIN_AUTH, describeFormatProtocolConformance } from '../../testing/format-protocol-conformance.ts';
import { TEST_ADMIN_PASSWORD, type TestApp } from '../../testing/index.ts';
import { dockerFormat } from './index.ts';
import { testImage } from './oci-testing.ts';

/** The conformance kit's protocol half, spoken as skopeo speaks it: blobs and a tagged manifest, read back through tags/list. */
describeFormatProtocolConformance(dockerFormat, {
  name: 'conformance/app',
  async publish(t: TestApp, repoKey: string, name: string, version: string) {
    const image = testImage({ layerSizes: [256, 512] });
    for (const blob of [image.config, ...image.layers]) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/v2/${repoKey}/${name}/blobs/uploads/?digest=${blob.digest}`,
        headers: { authorization: ADMIN_AUTH, 'content-type': 'application/octet-stream' },
        payload: blob.bytes,
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    const res = await t.app.inject({
      method: 'PUT',
      url: `/v2/${repoKey}/${name}/manifests/${version}`,
      headers: { authorization: ADMIN_AUTH, 'content-type': image.mediaType },
      payload: image.manifest,
    });
    expect(res.statusCode, res.body).toBe(201);
  },
  async read(t: TestApp, repoKey: string, name: string) {
    const get = (url: string) => t.app.inject({ url, headers: { authorization: ADMIN_AUTH } });
    const tags = await get(`/v2/${repoKey}/${name}/tags/list`);
    if (tags.statusCode === 404) return null;
    const versions: string[] = tags.json().tags;
    const fileUrls: string[] = [];
    for (const tag of versions) {
      const manifest = await get(`/v2/${repoKey}/${name}/manifests/${tag}`);
      const doc = JSON.parse(manifest.body) as { config: { digest: string }; layers: { digest: string }[] };
      fileUrls.push(`http://localhost/v2/${repoKey}/${name}/manifests/${tag}`);
      for (const d of [doc.config, ...doc.layers])
        fileUrls.push(`http://localhost/v2/${repoKey}/${name}/blobs/${d.digest}`);
    }
    return { versions, fileUrls };
  },
  remoteUrl: (baseUrl: string, upstreamKey: string) => `${baseUrl}/${upstreamKey}`,
  remoteSettings: { username: 'admin', password: TEST_ADMIN_PASSWORD },
});
