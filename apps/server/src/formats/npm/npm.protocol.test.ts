import { ADMIN_AUTH, describeFormatProtocolConformance } from '../../testing/format-protocol-conformance.ts';
import { TEST_ADMIN_PASSWORD, type TestApp } from '../../testing/index.ts';
import { npmFormat } from './index.ts';
import { makeTarball, publishDocument } from './test-support.ts';

/** A package name in the registry's URL space: a scope's slash escaped, as the npm client sends it. */
const escaped = (name: string) => name.replace('/', '%2f');

/**
 * issue 13 §8: npm through its own protocol, as the npm client speaks it: `npm publish` PUTs the
 * publish document (tarball attached), `npm install` reads the packument and fetches `dist.tarball`.
 * A scoped name, so the escaping of `@scope/name` is part of what is checked.
 */
describeFormatProtocolConformance(npmFormat, {
  name: '@granary/conformance-pkg',
  /** the upstream (this server) refuses anonymous reads */
  remoteSettings: { username: 'admin', password: TEST_ADMIN_PASSWORD },
  async publish(t: TestApp, repoKey: string, name: string, version: string) {
    const manifest = { name, version, description: `conformance ${version}` };
    const res = await t.app.inject({
      method: 'PUT',
      url: `/repository/${repoKey}/${escaped(name)}`,
      headers: { authorization: ADMIN_AUTH, 'content-type': 'application/json' },
      payload: publishDocument(manifest, await makeTarball(manifest)),
    });
    if (res.statusCode !== 200 && res.statusCode !== 201)
      throw new Error(`publish ${name}@${version}: ${res.statusCode} ${res.body}`);
  },
  async read(t: TestApp, repoKey: string, name: string) {
    const res = await t.app.inject({
      url: `/repository/${repoKey}/${escaped(name)}`,
      headers: { authorization: ADMIN_AUTH, accept: 'application/json' },
    });
    if (res.statusCode === 404) return null;
    if (res.statusCode !== 200) throw new Error(`packument: ${res.statusCode} ${res.body}`);
    const doc = res.json() as { versions: Record<string, { dist: { tarball: string } }> };
    const versions = Object.keys(doc.versions);
    return { versions, fileUrls: versions.map((v) => doc.versions[v]!.dist.tarball) };
  },
});
