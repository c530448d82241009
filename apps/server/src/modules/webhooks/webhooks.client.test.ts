import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeOciLayout } from '../../formats/docker/oci-testing.ts';
import { makeWheel } from '../../formats/pypi/test-dists.ts';
import { startTestServer, type TestServer } from '../../testing/server-process.ts';

/**
 * Acceptance (issue 14): real clients (npm, twine, skopeo) and the REST API change artifacts on a
 * real server process; a receiver on loopback gets exactly one signed delivery for each change,
 * and the signature verifies with `standardwebhooks` (an independent implementation).
 */
const PASSWORD = 'Webhook-acceptance-Pa55!';
const run = promisify(execFile);
const SECRET = `whsec_${randomBytes(24).toString('base64')}`;

interface Delivery {
  verified: boolean;
  headers: IncomingHttpHeaders;
  body: { domain: string; event_type: string; subscription_key: string; data: Record<string, unknown> };
}

describe('webhooks with real clients (issue 14 acceptance)', () => {
  let server: TestServer;
  let work: string;
  const received: Delivery[] = [];
  const receiver = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => {
      raw += d;
    });
    req.on('end', () => {
      let verified = true;
      try {
        new Webhook(SECRET).verify(raw, req.headers as Record<string, string>);
      } catch {
        verified = false;
      }
      received.push({ verified, headers: req.headers, body: JSON.parse(raw) as Delivery['body'] });
      res.writeHead(200).end();
    });
  });

  const api = (method: string, url: string, body?: unknown) =>
    fetch(`${server.url}${url}`, {
      method,
      headers: { authorization: server.auth, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });

  /** What the receiver got because of `action`: waits for the first delivery, then a while for any second one. */
  async function deliveriesOf(action: () => Promise<unknown>, settleMs = 2500): Promise<Delivery[]> {
    const before = received.length;
    await action();
    const deadline = Date.now() + 30_000;
    while (received.length === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, settleMs));
    return received.slice(before);
  }

  const subscription = (key: string, domain: string, eventTypes: string[], url: string) => ({
    key,
    enabled: true,
    event_filter: {
      domain,
      event_types: eventTypes,
      criteria: { anyLocal: true, anyRemote: false, repoKeys: [] },
    },
    handlers: [{ handler_type: 'webhook', url, secret: SECRET, use_secret_for_signing: true }],
  });

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'granary-webhook-clients-'));
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    server = await startTestServer(PASSWORD, { GRANARY_OUTBOUND_ALLOWLIST: '127.0.0.1' });
    await server.createRepository('npm-local', { rclass: 'local', packageType: 'npm' });
    await server.createRepository('pypi-local', { rclass: 'local', packageType: 'pypi' });
    await server.createRepository('docker-local', { rclass: 'local', packageType: 'docker' });
    await server.createRepository('files-local', { rclass: 'local', packageType: 'generic' });
    for (const body of [
      subscription('artifacts', 'artifact', ['deployed', 'deleted', 'moved', 'copied'], hook),
      subscription('properties', 'artifact_property', ['added', 'deleted'], hook),
      subscription('images', 'docker', ['pushed', 'deleted'], hook),
    ]) {
      const res = await api('POST', '/event/api/v1/subscriptions', body);
      expect(res.status, await res.text()).toBe(201);
    }
  }, 240_000);
  afterAll(async () => {
    await server?.stop();
    receiver.close();
    await rm(work, { recursive: true, force: true });
  });

  const one = (deliveries: Delivery[]) => {
    const seen = deliveries.map((d) => `${d.body.domain}.${d.body.event_type} ${String(d.body.data.path)}`);
    expect(seen, seen.join(', ')).toHaveLength(1);
    const [d] = deliveries;
    expect(d!.verified).toBe(true);
    expect(d!.headers['webhook-id']).toBeTruthy();
    return d!.body;
  };

  it('issue 14: npm publish delivers one signed artifact.deployed naming the tarball', async () => {
    const pkg = path.join(work, 'pkg');
    await mkdir(pkg);
    await writeFile(path.join(pkg, 'package.json'), JSON.stringify({ name: 'hooked-pkg', version: '1.0.0' }));
    const registry = `${server.url}/repository/npm-local/`;
    const npmrc = path.join(work, 'npmrc');
    await writeFile(
      npmrc,
      `${registry.replace(/^http:/, '')}:_auth=${Buffer.from(`admin:${PASSWORD}`).toString('base64')}\n`,
    );
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: work, NO_UPDATE_NOTIFIER: '1' };
    const body = one(
      await deliveriesOf(() =>
        run(
          'npm',
          ['publish', '--registry', registry, '--userconfig', npmrc, '--cache', path.join(work, 'cache')],
          {
            cwd: pkg,
            env,
          },
        ),
      ),
    );
    expect(body).toMatchObject({ domain: 'artifact', event_type: 'deployed', subscription_key: 'artifacts' });
    expect(body.data).toMatchObject({ repo_key: 'npm-local', name: 'hooked-pkg-1.0.0.tgz' });
    expect(String(body.data.sha256)).toMatch(/^[0-9a-f]{64}$/);
  }, 120_000);

  it('issue 14: twine upload delivers one signed artifact.deployed naming the wheel', async () => {
    const wheel = await makeWheel({ name: 'hooked-dist', version: '1.0.0' });
    const file = path.join(work, wheel.filename);
    await writeFile(file, wheel.bytes);
    const body = one(
      await deliveriesOf(() =>
        run('twine', [
          'upload',
          '--non-interactive',
          '--disable-progress-bar',
          '--repository-url',
          `${server.url}/repository/pypi-local/`,
          '-u',
          'admin',
          '-p',
          PASSWORD,
          file,
        ]),
      ),
    );
    expect(body).toMatchObject({ domain: 'artifact', event_type: 'deployed' });
    expect(body.data).toMatchObject({
      repo_key: 'pypi-local',
      name: wheel.filename,
      size: wheel.bytes.length,
    });
  }, 120_000);

  it('issue 14: skopeo push delivers one signed docker.pushed naming the image and tag', async () => {
    const layout = path.join(work, 'layout');
    await writeOciLayout(layout, 'v1', [{ arch: 'amd64', layerSizes: [64 * 1024] }]);
    const pushed = (
      await deliveriesOf(() =>
        run('skopeo', [
          '--insecure-policy',
          'copy',
          `oci:${layout}:v1`,
          '--dest-tls-verify=false',
          '--dest-creds',
          `admin:${PASSWORD}`,
          `docker://${server.host}/docker-local/hooked/app:v1`,
        ]),
      )
    ).filter((d) => d.body.domain === 'docker');
    const body = one(pushed);
    expect(body).toMatchObject({ event_type: 'pushed', subscription_key: 'images' });
    expect(body.data).toMatchObject({ repo_key: 'docker-local', image_name: 'hooked/app', tag: 'v1' });
  }, 180_000);

  it('issue 14: a generic PUT, a property set and removed, a copy, a move and a delete each deliver exactly one signed event naming the artifact', async () => {
    const put = one(
      await deliveriesOf(() => api('PUT', '/repository/files-local/docs/readme.txt', 'hello webhooks\n')),
    );
    expect(put.data).toMatchObject({
      repo_key: 'files-local',
      path: 'docs/readme.txt',
      name: 'readme.txt',
      size: 15,
    });

    const added = one(
      await deliveriesOf(() => api('PUT', '/api/storage/files-local/docs/readme.txt?properties=stage=qa')),
    );
    expect(added).toMatchObject({ domain: 'artifact_property', event_type: 'added' });
    expect(added.data).toMatchObject({
      path: 'docs/readme.txt',
      property_key: 'stage',
      property_values: ['qa'],
    });
    const removed = one(
      await deliveriesOf(() => api('DELETE', '/api/storage/files-local/docs/readme.txt?properties=stage')),
    );
    expect(removed).toMatchObject({ domain: 'artifact_property', event_type: 'deleted' });

    const copied = one(
      await deliveriesOf(() =>
        api('POST', '/api/copy/files-local/docs/readme.txt?to=/files-local/copy/readme.txt'),
      ),
    );
    expect(copied).toMatchObject({ domain: 'artifact', event_type: 'copied' });
    expect(copied.data).toMatchObject({
      repo_key: 'files-local',
      path: 'copy/readme.txt',
      source_path: 'docs/readme.txt',
    });

    const moved = one(
      await deliveriesOf(() =>
        api('POST', '/api/move/files-local/copy/readme.txt?to=/files-local/moved/readme.txt'),
      ),
    );
    expect(moved).toMatchObject({ domain: 'artifact', event_type: 'moved' });
    expect(moved.data).toMatchObject({ path: 'moved/readme.txt', source_path: 'copy/readme.txt' });

    const deleted = one(await deliveriesOf(() => api('DELETE', '/repository/files-local/moved/readme.txt')));
    expect(deleted).toMatchObject({ domain: 'artifact', event_type: 'deleted' });
    expect(deleted.data).toMatchObject({
      repo_key: 'files-local',
      path: 'moved/readme.txt',
      name: 'readme.txt',
    });
  }, 120_000);
});
