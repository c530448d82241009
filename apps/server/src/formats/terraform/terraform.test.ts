import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { eq } from 'drizzle-orm';
import * as openpgp from 'openpgp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packages, packageVersions } from '../../modules/packages/packages.schema.ts';
import { zipBomb } from '../../platform/archives/archive-bombs.ts';
import { ADMIN_AUTH, describeFormatProtocolConformance } from '../../testing/format-protocol-conformance.ts';
import { createTestApp, TEST_ADMIN_PASSWORD, type TestApp, testEngine } from '../../testing/index.ts';
import { describeFormatConformance } from '../sdk/conformance.ts';
import { terraformFormat } from './index.ts';
import { archiveLocation } from './modules.ts';
import { moduleTarGz, moduleZip, providerZipOf } from './test-support.ts';

const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, '__fixtures__', name));
const MODULE = fixture('granary-vpc-aws-1.0.0.zip');
const PROVIDER = fixture('terraform-provider-granary_1.0.0_linux_amd64.zip');
const stored = (p: string, bytes: Buffer) => ({
  path: p,
  size: bytes.length,
  sha256: '0'.repeat(64),
  open: async () => Readable.from([bytes]),
});
const sha256 = (b: Buffer | Uint8Array) => createHash('sha256').update(b).digest('hex');
const SIMPLE = moduleZip({ 'main.tf': 'output "x" { value = 1 }\n' });

describeFormatConformance(terraformFormat, [
  {
    file: stored('granary/vpc/aws/1.0.0.zip', MODULE),
    expected: { name: 'granary/vpc/aws', version: '1.0.0' },
  },
  {
    file: stored('granary/granary/1.0.0/terraform-provider-granary_1.0.0_linux_amd64.zip', PROVIDER),
    expected: { name: 'granary/granary', version: '1.0.0' },
  },
  { file: stored('docs/README.md', Buffer.from('# hello')), expected: null },
]);

/** issue 23 Terraform: the module registry protocol as terraform init speaks it, below each repository's URL. */
describeFormatProtocolConformance(terraformFormat, {
  name: 'conformance',
  remoteSettings: { username: 'admin', password: TEST_ADMIN_PASSWORD },
  async publish(t, repoKey, name, version) {
    const res = await t.app.inject({
      method: 'PUT',
      url: `/repository/${repoKey}/granary/${name}/aws/${version}.zip`,
      headers: { authorization: ADMIN_AUTH },
      payload: SIMPLE,
    });
    if (res.statusCode !== 201) throw new Error(`publish ${name}@${version}: ${res.statusCode} ${res.body}`);
  },
  async read(t, repoKey, name) {
    const api = `/repository/${repoKey}/v1/modules/granary/${name}/aws`;
    const get = (url: string) => t.app.inject({ url, headers: { authorization: ADMIN_AUTH } });
    const res = await get(`${api}/versions`);
    if (res.statusCode === 404) return null;
    if (res.statusCode !== 200) throw new Error(`versions: ${res.statusCode} ${res.body}`);
    const versions = (
      res.json() as { modules: { versions: { version: string }[] }[] }
    ).modules[0]!.versions.map((v) => v.version);
    const fileUrls: string[] = [];
    for (const v of versions) {
      const dl = await get(`${api}/${v}/download`);
      if (dl.statusCode !== 204) throw new Error(`download: ${dl.statusCode} ${dl.body}`);
      fileUrls.push(String(dl.headers['x-terraform-get']));
    }
    return { versions, fileUrls };
  },
});

describe('issue 23 Terraform: module archives as terraform unpacks them', () => {
  it('issue 23 Terraform: the packages index gets the module name, version, README (description and readme) and its providers and registry modules as dependencies', async () => {
    expect(await terraformFormat.extractMetadata(stored('granary/vpc/aws/1.0.0.zip', MODULE))).toEqual({
      name: 'granary/vpc/aws',
      version: '1.0.0',
      leadFile: true,
      description: "A sample VPC module for Granary's Terraform format tests.",
      dependencies: [
        { name: 'hashicorp/aws', range: '>= 5.0', scope: 'provider' },
        { name: 'hashicorp/subnets/cidr', range: '1.0.0', scope: 'module' },
      ],
      readme: expect.stringContaining('# granary vpc'),
    });
  });
});

describe('issue 23 Terraform: where a remote fetches a module archive from (the upstream X-Terraform-Get)', () => {
  it('issue 23 Terraform: http(s) archives as they are (a //subfolder split off), GitHub git:: sources as GitHub tarballs of the ref, other getters refused', () => {
    expect(archiveLocation('https://example.com/m.zip?archive=zip')).toEqual({
      url: 'https://example.com/m.zip?archive=zip',
    });
    expect(archiveLocation('https::https://example.com/m.tgz')).toEqual({ url: 'https://example.com/m.tgz' });
    expect(archiveLocation('/relative/m.zip')).toEqual({ url: '/relative/m.zip' });
    expect(
      archiveLocation('git::https://github.com/terraform-aws-modules/terraform-aws-vpc?ref=v5.1.0'),
    ).toEqual({
      url: 'https://codeload.github.com/terraform-aws-modules/terraform-aws-vpc/tar.gz/v5.1.0',
      subdir: '*',
    });
    expect(archiveLocation('https://example.com/m.tar.gz//vpc-1.0?archive=tar.gz')).toEqual({
      url: 'https://example.com/m.tar.gz?archive=tar.gz',
      subdir: 'vpc-1.0',
    });
    expect(archiveLocation('git::https://gitlab.com/org/mod.git?ref=v1')).toBeNull();
    expect(archiveLocation('s3::https://s3.amazonaws.com/bucket/m.zip')).toBeNull();
  });
});

describe(`issue 23 Terraform: terraform init against a Granary host (${testEngine})`, () => {
  let t: TestApp;
  let token: string;
  let base: string;
  const bearer = () => `Bearer ${token}`;
  const get = (url: string, authorization = bearer()) => t.app.inject({ url, headers: { authorization } });
  const put = (url: string, payload: Buffer, authorization = ADMIN_AUTH) =>
    t.app.inject({ method: 'PUT', url, headers: { authorization }, payload });
  const pathOf = (url: string) => {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  };
  /** terraform's service discovery: the host's /.well-known/terraform.json, URLs resolved against it. */
  const discover = async (service: 'modules.v1' | 'providers.v1') => {
    const res = await t.app.inject({ url: '/.well-known/terraform.json' });
    expect(res.statusCode).toBe(200);
    return new URL(
      (res.json() as Record<string, string>)[service]!,
      'http://localhost:80/.well-known/terraform.json',
    ).toString();
  };

  beforeAll(async () => {
    t = await createTestApp({ outboundAllowlist: '127.0.0.1' });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    for (const [key, body] of [
      ['tf', { rclass: 'local' }],
      ['tf-other', { rclass: 'local' }],
      // This server's own local repository, over loopback HTTP, is the remote's upstream registry.
      [
        'tf-remote',
        { rclass: 'remote', url: `${base}/repository/tf/`, username: 'admin', password: TEST_ADMIN_PASSWORD },
      ],
      ['tf-virtual', { rclass: 'virtual', repositories: ['tf-other', 'tf', 'tf-remote'] }],
    ] as const) {
      const repo = await t.app.inject({
        method: 'PUT',
        url: `/api/repositories/${key}`,
        headers: { authorization: ADMIN_AUTH },
        payload: { packageType: 'terraform', ...body },
      });
      expect(repo.statusCode, repo.body).toBe(201);
    }
    const tok = await t.app.inject({
      method: 'POST',
      url: '/api/security/tokens',
      headers: { authorization: ADMIN_AUTH },
      payload: { description: 'terraform', scope: 'applied-permissions/admin' },
    });
    expect(tok.statusCode, tok.body).toBe(200);
    token = (tok.json() as { access_token: string }).access_token;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('issue 23 Terraform: discovery at the host root names modules.v1 and providers.v1; a source HOST/{repoKey}__{namespace}/{name}/{provider} resolves, downloads (204 X-Terraform-Get) and fetches the archive with the Bearer token', async () => {
    expect((await put('/repository/tf/granary/vpc/aws/1.0.0.zip', MODULE)).statusCode).toBe(201);
    expect((await put('/repository/tf/granary/vpc/aws/1.1.0.zip', SIMPLE)).statusCode).toBe(201);
    const modules = await discover('modules.v1');
    expect(modules).toBe('http://localhost/api/terraform/v1/modules/');
    const versions = await get(pathOf(`${modules}tf__granary/vpc/aws/versions`));
    expect(versions.statusCode, versions.body).toBe(200);
    expect(versions.json()).toEqual({
      modules: [{ versions: [{ version: '1.0.0' }, { version: '1.1.0' }] }],
    });
    const downloadUrl = `${modules}tf__granary/vpc/aws/1.0.0/download`;
    const dl = await get(pathOf(downloadUrl));
    expect(dl.statusCode).toBe(204);
    const archiveUrl = new URL(String(dl.headers['x-terraform-get']), downloadUrl).toString();
    expect(archiveUrl).toBe('http://localhost/repository/tf/granary/vpc/aws/1.0.0.zip');
    const archive = await get(pathOf(archiveUrl));
    expect(archive.statusCode).toBe(200);
    expect(archive.rawPayload.equals(MODULE)).toBe(true);
    // terraform without credentials for the host: 401 in the registry's shape
    const anonymous = await t.app.inject({ url: pathOf(`${modules}tf__granary/vpc/aws/versions`) });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toEqual({ errors: [expect.any(String)] });
    expect((await get(pathOf(`${modules}tf__granary/none/aws/versions`))).json()).toEqual({
      errors: ["Module granary/none/aws not found in 'tf'"],
    });
    expect((await get(pathOf(`${modules}nowhere__granary/vpc/aws/versions`))).statusCode).toBe(404);
    expect((await get(pathOf(`${modules}granary/vpc/aws/versions`))).statusCode).toBe(404);
    // a module in the archive's one top-level folder (a GitHub tarball): terraform is told to take that folder
    const nested = await moduleTarGz({
      'vpc-1.2.0/main.tf': 'output "x" { value = 1 }\n',
      'vpc-1.2.0/README.md': 'Nested.\n',
    });
    expect((await put('/repository/tf/granary/vpc/aws/1.2.0.tar.gz', nested)).statusCode).toBe(201);
    const nestedDl = await get(pathOf(`${modules}tf__granary/vpc/aws/1.2.0/download`));
    expect(nestedDl.headers['x-terraform-get']).toBe(
      'http://localhost:80/repository/tf/granary/vpc/aws/1.2.0.tar.gz//vpc-1.2.0',
    );
    const rows = await t.app.granary.database.db
      .select({ version: packageVersions.version, lead: packageVersions.leadPath })
      .from(packageVersions)
      .innerJoin(packages, eq(packages.id, packageVersions.packageId))
      .where(eq(packages.name, 'granary/vpc/aws'));
    expect(rows).toContainEqual({ version: '1.0.0', lead: 'granary/vpc/aws/1.0.0.zip' });
    expect(rows).toContainEqual({ version: '1.2.0', lead: 'granary/vpc/aws/1.2.0.tar.gz' });
  });

  it("issue 23 Terraform: a provider's download names its zip, SHA256SUMS and signature and the repository's key; the signature verifies as terraform checks it, and the zip's sha256 is the one SHA256SUMS lists", async () => {
    const linux = providerZipOf('granary', '2.0.0', 'linux_amd64');
    const darwin = providerZipOf('granary', '2.0.0', 'darwin_arm64');
    const folder = '/repository/tf/granary/granary/2.0.0';
    expect(
      (await put(`${folder}/terraform-provider-granary_2.0.0_linux_amd64.zip;terraform.protocols=6.0`, linux))
        .statusCode,
    ).toBe(201);
    expect(
      (
        await put(
          `${folder}/terraform-provider-granary_2.0.0_darwin_arm64.zip;terraform.protocols=6.0`,
          darwin,
        )
      ).statusCode,
    ).toBe(201);
    const providers = await discover('providers.v1');
    const versions = await get(pathOf(`${providers}tf__granary/granary/versions`));
    expect(versions.json()).toEqual({
      versions: [
        {
          version: '2.0.0',
          protocols: ['6.0'],
          platforms: [
            { os: 'darwin', arch: 'arm64' },
            { os: 'linux', arch: 'amd64' },
          ],
        },
      ],
    });
    const res = await get(pathOf(`${providers}tf__granary/granary/2.0.0/download/linux/amd64`));
    expect(res.statusCode, res.body).toBe(200);
    const doc = res.json() as {
      filename: string;
      download_url: string;
      shasums_url: string;
      shasums_signature_url: string;
      shasum: string;
      protocols: string[];
      signing_keys: { gpg_public_keys: { key_id: string; ascii_armor: string }[] };
    };
    expect(doc).toMatchObject({
      protocols: ['6.0'],
      os: 'linux',
      arch: 'amd64',
      filename: 'terraform-provider-granary_2.0.0_linux_amd64.zip',
      download_url: `http://localhost:80${folder}/terraform-provider-granary_2.0.0_linux_amd64.zip`,
      shasums_url: `http://localhost:80${folder}/terraform-provider-granary_2.0.0_SHA256SUMS`,
      shasums_signature_url: `http://localhost:80${folder}/terraform-provider-granary_2.0.0_SHA256SUMS.sig`,
      shasum: sha256(linux),
    });
    await verifyAsTerraform(doc, (url) => get(pathOf(url)));
  });

  /** What terraform does with a download answer: signature over SHA256SUMS by a listed key, then the zip's sum. */
  async function verifyAsTerraform(
    doc: {
      filename: string;
      download_url: string;
      shasums_url: string;
      shasums_signature_url: string;
      shasum: string;
      signing_keys: { gpg_public_keys: { key_id: string; ascii_armor: string }[] };
    },
    fetch: (url: string) => Promise<{ statusCode: number; rawPayload: Buffer }>,
  ) {
    const sums = await fetch(doc.shasums_url);
    const sig = await fetch(doc.shasums_signature_url);
    const zip = await fetch(doc.download_url);
    expect([sums.statusCode, sig.statusCode, zip.statusCode]).toEqual([200, 200, 200]);
    const keys = await Promise.all(
      doc.signing_keys.gpg_public_keys.map((k) => openpgp.readKey({ armoredKey: k.ascii_armor })),
    );
    expect(doc.signing_keys.gpg_public_keys[0]!.key_id).toBe(keys[0]!.getKeyID().toHex().toUpperCase());
    // a binary detached signature, as HashiCorp's SHA256SUMS.sig (terraform's CheckDetachedSignature)
    const verified = await openpgp.verify({
      message: await openpgp.createMessage({ binary: sums.rawPayload }),
      signature: await openpgp.readSignature({ binarySignature: sig.rawPayload }),
      verificationKeys: keys,
      expectSigned: true,
    });
    await expect(verified.signatures[0]!.verified).resolves.toBe(true);
    const listed = sums.rawPayload
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(/\s+/));
    expect(listed).toContainEqual([sha256(zip.rawPayload), doc.filename]);
    expect(sha256(zip.rawPayload)).toBe(doc.shasum);
    // a changed SHA256SUMS no longer verifies
    const forged = await openpgp
      .verify({
        message: await openpgp.createMessage({ binary: Buffer.concat([sums.rawPayload, Buffer.from('x')]) }),
        signature: await openpgp.readSignature({ binarySignature: sig.rawPayload }),
        verificationKeys: keys,
      })
      .then((v) => v.signatures[0]!.verified)
      .catch((e: Error) => e);
    expect(forged).toBeInstanceOf(Error);
  }

  it('issue 23 Terraform: bad input (a path escape, a link, a decompression bomb, no .tf file, not an archive, a bad version, a provider zip without its executable, a changed version) is refused in the registry error shape and leaves nothing', async () => {
    const refused = async (url: string, payload: Buffer, status: number, message: RegExp) => {
      const res = await put(url, payload);
      expect(res.statusCode, res.body).toBe(status);
      const body = res.json() as { errors: string[] };
      expect(body.errors[0]).toMatch(message);
    };
    await refused(
      '/repository/tf/bad/mod/aws/1.0.0.zip',
      moduleZip({ 'main.tf': 'x', '../../evil.tf': 'boom' }),
      400,
      /evil\.tf/,
    );
    await refused(
      '/repository/tf/bad/mod/aws/1.0.0.tar.gz',
      await moduleTarGz({ 'main.tf': 'x' }, { 'secrets.tf': '/etc/passwd' }),
      400,
      /symlink: only files/,
    );
    await refused(
      '/repository/tf/bad/mod/aws/1.0.0.tar.gz',
      await moduleTarGz({ '../main.tf': 'x' }),
      400,
      /outside its folder/,
    );
    await refused(
      '/repository/tf/bad/mod/aws/1.0.0.zip',
      moduleZip({ 'README.md': '# no tf' }),
      400,
      /no \.tf file/,
    );
    await refused('/repository/tf/bad/mod/aws/1.0.0.zip', Buffer.from('not a zip'), 400, /not a zip/);
    await refused('/repository/tf/bad/mod/aws/v1.0.zip', SIMPLE, 400, /neither a module archive/);
    await refused(
      '/repository/tf/bad/prov/1.0.0/terraform-provider-prov_1.0.0_linux_amd64.zip',
      moduleZip({ 'README.md': 'no executable' }),
      400,
      /no terraform-provider-prov executable/,
    );
    await refused(
      '/repository/tf/bad/prov/1.0.0/terraform-provider-prov_1.0.0_SHA256SUMS',
      Buffer.from('x'),
      400,
      /neither/,
    );
    await refused(
      '/repository/tf/bad/mod/aws/1.0.0.zip',
      zipBomb([
        { name: 'main.tf', content: 'x' },
        { name: 'big.tf', zeros: 200 * 1024 * 1024 },
      ]),
      400,
      /decompression bomb/,
    );
    expect((await get('/api/storage/tf/bad', ADMIN_AUTH)).statusCode).toBe(404);

    expect((await put('/repository/tf/fixed/mod/aws/1.0.0.zip', SIMPLE)).statusCode).toBe(201);
    expect((await put('/repository/tf/fixed/mod/aws/1.0.0.zip', SIMPLE)).statusCode).toBe(200);
    await refused('/repository/tf/fixed/mod/aws/1.0.0.zip', MODULE, 409, /never changes/);
    await refused(
      '/repository/tf/fixed/mod/aws/1.0.0.tar.gz',
      await moduleTarGz({ 'main.tf': 'x' }),
      409,
      /never changes/,
    );
    const stillThere = await get('/repository/tf/fixed/mod/aws/1.0.0.zip');
    expect(stillThere.rawPayload.equals(SIMPLE)).toBe(true);
    expect((await get('/api/storage/tf/fixed/mod/aws', ADMIN_AUTH)).json().children).toHaveLength(1);
  });

  it("issue 23 Terraform: a virtual repository merges its members' versions (local first) and points terraform at its own URLs; a remote proxies an upstream registry, verifies and caches what it fetches", async () => {
    expect((await put('/repository/tf-other/granary/vpc/aws/0.9.0.zip', SIMPLE)).statusCode).toBe(201);
    expect((await put('/repository/tf-other/granary/vpc/aws/1.0.0.zip', SIMPLE)).statusCode).toBe(201);
    const modules = await discover('modules.v1');
    const versions = await get(pathOf(`${modules}tf-virtual__granary/vpc/aws/versions`));
    expect(versions.json()).toEqual({
      modules: [{ versions: ['0.9.0', '1.0.0', '1.1.0', '1.2.0'].map((version) => ({ version })) }],
    });
    // 1.0.0 is in both locals: the first member's (tf-other) wins
    const dl = await get(pathOf(`${modules}tf-virtual__granary/vpc/aws/1.0.0/download`));
    expect(dl.headers['x-terraform-get']).toBe(
      'http://localhost:80/repository/tf-virtual/granary/vpc/aws/1.0.0.zip',
    );
    expect((await get('/repository/tf-virtual/granary/vpc/aws/1.0.0.zip')).rawPayload.equals(SIMPLE)).toBe(
      true,
    );

    // The remote: the upstream's discovery (below its URL), versions and archives, cached in tf-remote-cache.
    const remoteVersions = await get(pathOf(`${modules}tf-remote__granary/vpc/aws/versions`));
    expect(remoteVersions.statusCode, remoteVersions.body).toBe(200);
    expect(remoteVersions.json()).toEqual({
      modules: [{ versions: ['1.0.0', '1.1.0', '1.2.0'].map((version) => ({ version })) }],
    });
    const rdl = await get(pathOf(`${modules}tf-remote__granary/vpc/aws/1.0.0/download`));
    expect(rdl.statusCode, rdl.body).toBe(204);
    expect(rdl.headers['x-terraform-get']).toBe(
      'http://localhost:80/repository/tf-remote/granary/vpc/aws/1.0.0.zip',
    );
    expect((await get('/repository/tf-remote/granary/vpc/aws/1.0.0.zip')).rawPayload.equals(MODULE)).toBe(
      true,
    );
    expect((await get('/api/storage/tf-remote-cache/granary/vpc/aws/1.0.0.zip', ADMIN_AUTH)).statusCode).toBe(
      200,
    );
    // the upstream's X-Terraform-Get names the archive's top folder: the remote's does too
    const rnested = await get(pathOf(`${modules}tf-remote__granary/vpc/aws/1.2.0/download`));
    expect(rnested.headers['x-terraform-get']).toBe(
      'http://localhost:80/repository/tf-remote/granary/vpc/aws/1.2.0.tar.gz//vpc-1.2.0',
    );

    // A provider through the remote: URLs rewritten to the remote, the upstream's signature and key kept.
    const providers = await discover('providers.v1');
    const res = await get(pathOf(`${providers}tf-remote__granary/granary/2.0.0/download/linux/amd64`));
    expect(res.statusCode, res.body).toBe(200);
    const doc = res.json();
    expect(doc.download_url).toBe(
      'http://localhost:80/repository/tf-remote/granary/granary/2.0.0/terraform-provider-granary_2.0.0_linux_amd64.zip',
    );
    const upstreamDoc = (
      await get(pathOf(`${providers}tf__granary/granary/2.0.0/download/linux/amd64`))
    ).json();
    expect(doc.signing_keys).toEqual(upstreamDoc.signing_keys);
    await verifyAsTerraform(doc, (url) => get(pathOf(url)));
    // and through the virtual (its local member tf holds the provider: the remote is not asked)
    const vdoc = (
      await get(pathOf(`${providers}tf-virtual__granary/granary/2.0.0/download/linux/amd64`))
    ).json();
    expect(vdoc.download_url).toMatch(/^http:\/\/localhost:80\/repository\/tf-virtual\//);
    await verifyAsTerraform(vdoc, (url) => get(pathOf(url)));
  });
});
