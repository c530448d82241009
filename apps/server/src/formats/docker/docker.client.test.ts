import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/server-process.ts';
import { digestOf, writeOciLayout } from './oci-testing.ts';

const run = promisify(execFile);
const PASSWORD = 'Skopeo-test-pa55!';
const UP_PASSWORD = 'Upstream-pa55word!';
const MB = 1024 * 1024;

async function skopeo(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run('skopeo', ['--insecure-policy', ...args], { maxBuffer: 64 * MB, timeout: 300_000 });
}

async function refused(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    return `${(err as { stderr?: string }).stderr ?? ''}${(err as Error).message}`;
  }
  throw new Error('expected the command to fail');
}

type Running = TestServer;

const start = (password: string, env: Record<string, string> = {}) => startTestServer(password, env);
const stop = (server: Running | undefined) => server?.stop();
const createRepo = (server: Running, key: string, body: object) =>
  server.createRepository(key, { packageType: 'docker', ...body });

describe('skopeo against Granary (issue 7 acceptance, real processes on loopback)', () => {
  let main: Running;
  let upstream: Running | undefined;
  let work: string;
  const creds = `admin:${PASSWORD}`;
  const dest = (ref: string) => [
    '--dest-tls-verify=false',
    '--dest-creds',
    creds,
    `docker://${main.host}/${ref}`,
  ];
  const src = (ref: string) => [
    '--src-tls-verify=false',
    '--src-creds',
    creds,
    `docker://${main.host}/${ref}`,
  ];
  const rawManifest = async (ref: string) =>
    Buffer.from(
      (
        await skopeo(
          'inspect',
          '--raw',
          '--tls-verify=false',
          '--creds',
          creds,
          `docker://${main.host}/${ref}`,
        )
      ).stdout,
    );

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'granary-oci-layouts-'));
    [main, upstream] = await Promise.all([
      start(PASSWORD, { GRANARY_OUTBOUND_ALLOWLIST: '127.0.0.1' }),
      start(UP_PASSWORD),
    ]);
    await createRepo(main, 'docker-local', { rclass: 'local' });
    await createRepo(upstream, 'docker-up', { rclass: 'local' });
    await createRepo(main, 'docker-remote', {
      rclass: 'remote',
      url: `http://${upstream.host}/docker-up`,
      username: 'admin',
      password: UP_PASSWORD,
    });
    await createRepo(main, 'docker-virtual', {
      rclass: 'virtual',
      repositories: ['docker-local', 'docker-remote'],
      defaultDeploymentRepo: 'docker-local',
    });
  }, 120_000);
  afterAll(async () => {
    await Promise.all([stop(main), stop(upstream)]);
    await rm(work, { recursive: true, force: true });
  });

  it('copies a 3-layer image (1, 10, 50 MB) in and back out: the manifest is byte-identical, the layers intact', async () => {
    const layout = path.join(work, 'big');
    const image = await writeOciLayout(layout, 'v1', [
      { arch: 'amd64', layerSizes: [1 * MB, 10 * MB, 50 * MB] },
    ]);
    await skopeo('copy', `oci:${layout}:v1`, ...dest('docker-local/big/app:v1'));
    expect((await rawManifest('docker-local/big/app:v1')).equals(image.top)).toBe(true);
    const out = path.join(work, 'big-out');
    await skopeo('copy', ...src('docker-local/big/app:v1'), `oci:${out}:v1`);
    const index = JSON.parse(await readFile(path.join(out, 'index.json'), 'utf8'));
    expect(index.manifests[0].digest).toBe(image.topDigest);
    const back = await readFile(path.join(out, 'blobs', 'sha256', image.topDigest.slice(7)));
    expect(back.equals(image.top)).toBe(true);
    for (const layer of JSON.parse(image.top.toString()).layers as { digest: string }[]) {
      const bytes = await readFile(path.join(out, 'blobs', 'sha256', layer.digest.slice(7)));
      expect(digestOf(bytes)).toBe(layer.digest);
    }
  }, 300_000);

  it('copies a multi-arch index with --all: the index and each platform manifest come back byte-identical', async () => {
    const layout = path.join(work, 'multi');
    const image = await writeOciLayout(layout, 'latest', [
      { arch: 'amd64', layerSizes: [2000] },
      { arch: 'arm64', layerSizes: [3000] },
    ]);
    await skopeo('copy', '--all', `oci:${layout}:latest`, ...dest('docker-local/multi:latest'));
    expect((await rawManifest('docker-local/multi:latest')).equals(image.top)).toBe(true);
    for (const m of image.manifests)
      expect((await rawManifest(`docker-local/multi@${digestOf(m)}`)).equals(m)).toBe(true);
    const out = path.join(work, 'multi-out');
    await skopeo('copy', '--all', ...src('docker-local/multi:latest'), `oci:${out}:latest`);
    const back = await readFile(path.join(out, 'blobs', 'sha256', image.topDigest.slice(7)));
    expect(back.equals(image.top)).toBe(true);
  }, 120_000);

  it('pushes through a virtual repository: the image lands in the default deployment repository', async () => {
    const layout = path.join(work, 'virt');
    const image = await writeOciLayout(layout, '1.0', [{ arch: 'amd64', layerSizes: [4000] }]);
    await skopeo('copy', `oci:${layout}:1.0`, ...dest('docker-virtual/via/virtual:1.0'));
    expect((await rawManifest('docker-local/via/virtual:1.0')).equals(image.top)).toBe(true);
    expect((await rawManifest('docker-virtual/via/virtual:1.0')).equals(image.top)).toBe(true);
  }, 120_000);

  it("issue 22: the version page's install command names this registry and repository, and skopeo pulls with it; its size is the image's", async () => {
    const layout = path.join(work, 'demo');
    const image = await writeOciLayout(layout, '1.0.0', [{ arch: 'amd64', layerSizes: [5000, 7000] }]);
    await skopeo('copy', `oci:${layout}:1.0.0`, ...dest('docker-local/demo-image:1.0.0'));
    const gql = async (query: string) => {
      const res = await fetch(`${main.url}/ui/api/v1/packages`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(creds).toString('base64')}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ query }),
      });
      const body = (await res.json()) as { data: Record<string, never>; errors?: unknown };
      expect(body.errors, JSON.stringify(body)).toBeUndefined();
      return body.data as Record<string, { edges?: { node: { id: string } }[] } & Record<string, unknown>>;
    };
    const pkg = (
      await gql('{ packages(package_type: ["docker"], name: "demo-image") { edges { node { id } } } }')
    ).packages!.edges![0]!.node;
    const { version } = await gql(
      `{ version(packageId: ${JSON.stringify(pkg.id)}, name: "1.0.0") { size description installCommand } }`,
    );
    const command = version!.installCommand as string;
    expect(command).toBe(`docker pull ${main.host}/docker-local/demo-image:1.0.0`);
    // the image's size, config and layers (as `docker images` counts it), not the manifest's few hundred bytes
    const manifest = JSON.parse(image.top.toString()) as {
      config: { size: number };
      layers: { size: number }[];
    };
    expect(version!.size).toBe(manifest.config.size + manifest.layers.reduce((sum, l) => sum + l.size, 0));
    expect(version!.description).toBe('2 layers');
    // what the user copies really pulls: the reference after `docker pull`, to skopeo
    const ref = command.replace(/^docker pull /, '');
    const out = path.join(work, 'demo-out');
    await skopeo('copy', '--src-tls-verify=false', '--src-creds', creds, `docker://${ref}`, `dir:${out}`);
    expect((await readFile(path.join(out, 'manifest.json'))).equals(image.top)).toBe(true);
  }, 120_000);

  it('pulls through a remote whose upstream is a second Granary, and serves the cache when the upstream is down', async () => {
    const layout = path.join(work, 'up');
    const image = await writeOciLayout(layout, '2.0', [{ arch: 'amd64', layerSizes: [200_000, 5000] }]);
    await skopeo(
      'copy',
      `oci:${layout}:2.0`,
      '--dest-tls-verify=false',
      '--dest-creds',
      `admin:${UP_PASSWORD}`,
      `docker://${upstream!.host}/docker-up/proxied/app:2.0`,
    );
    const out = path.join(work, 'remote-out');
    await skopeo('copy', ...src('docker-remote/proxied/app:2.0'), `oci:${out}:2.0`);
    expect(
      (await readFile(path.join(out, 'blobs', 'sha256', image.topDigest.slice(7)))).equals(image.top),
    ).toBe(true);
    expect((await rawManifest('docker-virtual/proxied/app:2.0')).equals(image.top)).toBe(true);
    await stop(upstream);
    upstream = undefined;
    const cached = path.join(work, 'remote-cached');
    await skopeo('copy', ...src('docker-remote/proxied/app:2.0'), `oci:${cached}:2.0`);
    expect(
      (await readFile(path.join(cached, 'blobs', 'sha256', image.topDigest.slice(7)))).equals(image.top),
    ).toBe(true);
  }, 180_000);

  it('deletes a tag with skopeo delete; the image is gone', async () => {
    const layout = path.join(work, 'del');
    await writeOciLayout(layout, 'gone', [{ arch: 'amd64', layerSizes: [1000] }]);
    await skopeo('copy', `oci:${layout}:gone`, ...dest('docker-local/deleted:gone'));
    await skopeo(
      'delete',
      '--tls-verify=false',
      '--creds',
      creds,
      `docker://${main.host}/docker-local/deleted:gone`,
    );
    const message = await refused(rawManifest('docker-local/deleted:gone'));
    expect(message).toMatch(/manifest unknown|not found/i);
  }, 120_000);

  it('refuses an anonymous push, in OCI error JSON', async () => {
    const layout = path.join(work, 'anon');
    await writeOciLayout(layout, 'x', [{ arch: 'amd64', layerSizes: [1000] }]);
    const message = await refused(
      skopeo(
        'copy',
        `oci:${layout}:x`,
        '--dest-tls-verify=false',
        `docker://${main.host}/docker-local/anon:x`,
      ),
    );
    expect(message).toMatch(/unauthorized|authentication required/i);
    const res = await fetch(`http://${main.host}/v2/docker-local/anon/blobs/uploads/`, { method: 'POST' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="http:\/\/127\.0\.0\.1:\d+\/v2\/token"/,
    );
    expect(((await res.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('UNAUTHORIZED');
  }, 120_000);

  it('pulls anonymously through the token flow when anonymous access allows reading (and only then)', async () => {
    const layout = path.join(work, 'public');
    const image = await writeOciLayout(layout, 'p1', [{ arch: 'amd64', layerSizes: [2000] }]);
    await skopeo('copy', `oci:${layout}:p1`, ...dest('docker-local/public/app:p1'));
    const anonymousPull = () =>
      skopeo(
        'inspect',
        '--raw',
        '--tls-verify=false',
        '--no-creds',
        `docker://${main.host}/docker-local/public/app:p1`,
      );
    // Anonymous access is off by default: the anonymous token is worth nothing.
    expect(await refused(anonymousPull())).toMatch(/unauthorized|authentication required/i);
    const admin = { authorization: main.auth, 'content-type': 'application/json' };
    const target = await fetch(`http://${main.host}/api/security/permissions/public-docker`, {
      method: 'PUT',
      headers: admin,
      body: JSON.stringify({
        repo: { repositories: ['docker-local'], actions: { users: { anonymous: ['read'] } } },
      }),
    });
    expect(target.status).toBe(201);
    const on = await fetch(`http://${main.host}/api/security/configuration`, {
      method: 'PATCH',
      headers: { ...admin, 'x-granary-csrf': '1' },
      body: JSON.stringify({ anonymousAccess: true }),
    });
    expect(on.status, await on.text()).toBe(200);
    try {
      expect(Buffer.from((await anonymousPull()).stdout).equals(image.top)).toBe(true);
      // Reading is all the anonymous token grants.
      const push = await refused(
        skopeo(
          'copy',
          `oci:${layout}:p1`,
          '--dest-tls-verify=false',
          '--dest-no-creds',
          `docker://${main.host}/docker-local/public/app:p2`,
        ),
      );
      expect(push).toMatch(/unauthorized|authentication required|denied/i);
    } finally {
      await fetch(`http://${main.host}/api/security/configuration`, {
        method: 'PATCH',
        headers: { ...admin, 'x-granary-csrf': '1' },
        body: JSON.stringify({ anonymousAccess: false }),
      });
    }
  }, 120_000);

  it('refuses a pushed blob whose bytes do not match its digest, and keeps nothing of it', async () => {
    const bytes = Buffer.from('these bytes are not what the digest says');
    const claimed = digestOf('something else');
    const res = await fetch(`http://${main.host}/v2/docker-local/liar/blobs/uploads/?digest=${claimed}`, {
      method: 'POST',
      headers: { authorization: main.auth, 'content-type': 'application/octet-stream' },
      body: bytes,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('DIGEST_INVALID');
    for (const digest of [claimed, digestOf(bytes)]) {
      const head = await fetch(`http://${main.host}/v2/docker-local/liar/blobs/${digest}`, {
        method: 'HEAD',
        headers: { authorization: main.auth },
      });
      expect(head.status).toBe(404);
    }
  });
});
