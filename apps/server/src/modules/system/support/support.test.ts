import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import {
  basicAuth,
  createTestApp,
  createTestDatabasePair,
  makeTempHome,
  TEST_ADMIN_PASSWORD,
  type TestApp,
} from '../../../testing/index.ts';
import { freePort } from '../../../testing/server-process.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);

/** Every entry of a zip, by name. */
function unzip(zip: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (err, file) => {
      if (err || !file) return reject(err);
      const out = new Map<string, Buffer>();
      file.on('entry', (entry: yauzl.Entry) => {
        file.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            out.set(entry.fileName, Buffer.concat(chunks));
            file.readEntry();
          });
          stream.on('error', reject);
        });
      });
      file.on('end', () => resolve(out));
      file.on('error', reject);
      file.readEntry();
    });
  });
}

async function waitForStatus(t: TestApp, id: string, want: (status: string) => boolean, ms = 60_000) {
  const until = Date.now() + ms;
  for (;;) {
    const res = await t.app.inject({
      url: `/api/system/support/bundle/${id}`,
      headers: { authorization: ADMIN },
    });
    const body = res.json() as { status: string; artifactory: { size: number | null } };
    if (want(body.status) || Date.now() > until) return body;
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Manifest {
  files: { path: string; size: number; sha256: string; redacted: number }[];
  notes: string[];
}

describe('issue 15 support bundles (spec 001 §3, §7)', () => {
  let t: TestApp;
  const awsSecret = `aws-${randomBytes(18).toString('base64url')}`;
  let previousAws: string | undefined;

  beforeAll(async () => {
    previousAws = process.env.AWS_SECRET_ACCESS_KEY;
    process.env.AWS_SECRET_ACCESS_KEY = awsSecret;
    t = await createTestApp({ outboundAllowlist: '127.0.0.1' });
  });
  afterAll(async () => {
    await t?.close();
    if (previousAws === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
    else process.env.AWS_SECRET_ACCESS_KEY = previousAws;
  });

  const generate = async (parameters: object, name = 'bundle') => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/system/support/bundle',
      headers: { authorization: ADMIN },
      payload: { name, description: 'from a test', parameters },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { id: string; artifactory: { service_id: string; bundle_url: string } };
  };
  const download = async (id: string) => {
    const res = await t.app.inject({
      url: `/api/system/support/bundle/${id}/archive`,
      headers: { authorization: ADMIN },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    return res.rawPayload;
  };

  it('generates in the background with thread dumps (count 2, interval 100): the zip opens and the manifest’s checksums match', async () => {
    const created = await generate({
      configuration: true,
      system: true,
      logs: { include: true },
      thread_dump: { count: 2, interval: 100 },
    });
    expect(created.artifactory.bundle_url).toMatch(
      new RegExp(`/api/system/support/bundle/${created.id}/archive$`),
    );
    // in progress at once (the console's placeholder), then success
    const listed = await t.app.inject({
      url: '/api/system/support/bundles',
      headers: { authorization: ADMIN },
    });
    expect(listed.json()).toMatchObject({ count: 1, bundles: [{ id: created.id, name: 'bundle' }] });
    const done = await waitForStatus(t, created.id, (s) => s !== 'in progress');
    expect(done.status).toBe('success');

    const entries = await unzip(await download(created.id));
    const manifest = JSON.parse(entries.get('manifest.json')!.toString()) as Manifest;
    expect(manifest.files.length).toBe(entries.size - 1);
    for (const f of manifest.files) {
      const data = entries.get(f.path);
      expect(data, f.path).toBeDefined();
      expect(data!.length, f.path).toBe(f.size);
      expect(createHash('sha256').update(data!).digest('hex'), f.path).toBe(f.sha256);
    }
    const names = [...entries.keys()].sort();
    expect(names.filter((n) => n.startsWith('thread-dumps/'))).toHaveLength(2);
    expect(names).toEqual(
      expect.arrayContaining([
        'configuration/settings.json',
        'configuration/repositories.json',
        'configuration/security.json',
        'configuration/webhooks.json',
        'system/system.json',
        'system/storage.json',
        'logs/server.log',
      ]),
    );
    const dump = JSON.parse(entries.get('thread-dumps/thread-dump-01.json')!.toString());
    expect(dump.header.nodejsVersion).toBe(process.version);
    expect(dump.environmentVariables).toBeUndefined();
    const system = JSON.parse(entries.get('system/system.json')!.toString());
    expect(system.versions.node).toBe(process.version);
    expect(system.migrations.length).toBeGreaterThan(0);
    expect(system.database.kind).toMatch(/pglite|postgres/);
    expect(system.disk.totalBytes).toBeGreaterThan(0);
  });

  it('issue 15 acceptance: plants secrets (admin password, an access token, a remote password, a webhook secret, a proxy password, AWS_SECRET_ACCESS_KEY) and finds none of them in the bundle', async () => {
    const token = (
      await t.app.inject({
        method: 'POST',
        url: '/api/security/tokens',
        headers: { authorization: ADMIN },
        payload: { scope: 'applied-permissions/admin' },
      })
    ).json().access_token as string;
    expect(token).toBeTruthy();
    // used, so it passes through the request log
    expect(
      (await t.app.inject({ url: '/api/repositories', headers: { authorization: `Bearer ${token}` } }))
        .statusCode,
    ).toBe(200);

    const remotePassword = `remote-${randomBytes(12).toString('hex')}`;
    const remote = await t.app.inject({
      method: 'PUT',
      url: '/api/repositories/planted-remote',
      headers: { authorization: ADMIN },
      payload: {
        rclass: 'remote',
        packageType: 'generic',
        url: 'http://127.0.0.1:9/files',
        username: 'u',
        password: remotePassword,
        offline: true,
      },
    });
    expect(remote.statusCode, remote.body).toBe(201);

    const webhookSecret = `hook-${randomBytes(12).toString('hex')}`;
    const hook = await t.app.inject({
      method: 'POST',
      url: '/event/api/v1/subscriptions',
      headers: { authorization: ADMIN },
      payload: {
        key: 'planted-hook',
        enabled: true,
        event_filter: { domain: 'artifact', event_types: ['deployed'], criteria: { anyLocal: true } },
        handlers: [{ handler_type: 'webhook', url: 'http://127.0.0.1:9/hook', secret: webhookSecret }],
      },
    });
    expect(hook.statusCode, hook.body).toBe(201);

    const proxyPassword = `proxy-${randomBytes(12).toString('hex')}`;
    const proxy = await t.app.inject({
      method: 'PUT',
      url: '/api/proxies/planted-proxy',
      headers: { authorization: ADMIN },
      payload: { host: '127.0.0.1', port: 3128, username: 'p', password: proxyPassword },
    });
    expect(proxy.statusCode, proxy.body).toBe(201);

    const created = await generate(
      { configuration: true, system: true, logs: { include: true }, thread_dump: { count: 1, interval: 0 } },
      'planted',
    );
    expect((await waitForStatus(t, created.id, (s) => s !== 'in progress')).status).toBe('success');
    const entries = await unzip(await download(created.id));

    const planted = {
      admin: TEST_ADMIN_PASSWORD,
      token,
      remotePassword,
      webhookSecret,
      proxyPassword,
      awsSecret,
    };
    for (const [what, secret] of Object.entries(planted)) {
      const forms = [
        secret,
        Buffer.from(secret).toString('base64'),
        Buffer.from(secret).toString('base64url'),
        encodeURIComponent(secret),
      ];
      for (const [name, data] of entries) {
        const text = data.toString('utf8');
        for (const form of forms) expect(text.includes(form), `${what} found in ${name}`).toBe(false);
      }
    }
    // the configuration is still there, only its secrets are gone
    const repos = entries.get('configuration/repositories.json')!.toString();
    expect(repos).toContain('planted-remote');
    expect(repos).toContain('**redacted**');
    expect(entries.get('configuration/webhooks.json')!.toString()).toContain('planted-hook');
    expect(entries.get('configuration/proxies.json')!.toString()).toContain('planted-proxy');
    const settings = JSON.parse(entries.get('configuration/settings.json')!.toString());
    expect(settings.resolved.adminPassword).toBe('**redacted**');
    const manifest = JSON.parse(entries.get('manifest.json')!.toString()) as Manifest;
    expect(
      manifest.files.find((f) => f.path === 'configuration/repositories.json')!.redacted,
    ).toBeGreaterThan(0);
  });

  it('validates: thread dump count and interval are integers within their caps, dates are dates', async () => {
    const post = (parameters: object) =>
      t.app.inject({
        method: 'POST',
        url: '/ui/api/v1/ui/userSupport/generateBundle',
        headers: { authorization: ADMIN },
        payload: { name: 'x', parameters },
      });
    expect((await post({ thread_dump: { count: 1.5, interval: 0 } })).statusCode).toBe(400);
    expect((await post({ thread_dump: { count: 11, interval: 0 } })).statusCode).toBe(400);
    expect((await post({ thread_dump: { count: 1, interval: 60_001 } })).statusCode).toBe(400);
    expect((await post({ logs: { include: true, start_date: 'yesterday' } })).statusCode).toBe(400);
    expect(
      (await post({ logs: { include: true, start_date: '2024-05-02', end_date: '2024-05-01' } })).statusCode,
    ).toBe(400);
    const ok = await post({
      logs: { include: true, start_date: '2024-05-01', end_date: '2999-01-01' },
      thread_dump: { count: '0', interval: '0' },
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({
      status: 'in progress',
      parameters: { thread_dump: { count: 0, interval: 0 } },
    });
    await waitForStatus(t, ok.json().id, (s) => s !== 'in progress');
  });

  it('the console calls list, download and delete; delete removes the zip', async () => {
    const created = await generate(
      {
        configuration: false,
        system: false,
        logs: { include: false },
        thread_dump: { count: 0, interval: 0 },
      },
      'to-delete',
    );
    expect((await waitForStatus(t, created.id, (s) => s !== 'in progress')).status).toBe('success');
    const list = await t.app.inject({
      url: '/ui/api/v1/ui/userSupport/listBundles',
      headers: { authorization: ADMIN },
    });
    expect(list.json()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: created.id, name: 'to-delete', status: 'success' }),
      ]),
    );
    const zip = await t.app.inject({
      url: `/ui/api/v1/ui/userSupport/downloadBundle/${created.id}`,
      headers: { authorization: ADMIN },
    });
    expect(zip.statusCode).toBe(200);
    expect([...(await unzip(zip.rawPayload)).keys()]).toEqual(['manifest.json']);
    const file = path.join(t.home, 'support', `${created.id}.zip`);
    expect(existsSync(file)).toBe(true);
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/ui/api/v1/ui/userSupport/deleteBundle/${created.id}`,
      headers: { authorization: ADMIN },
    });
    expect(del.statusCode).toBe(204);
    expect(existsSync(file)).toBe(false);
    expect(
      (
        await t.app.inject({
          url: `/api/system/support/bundle/${created.id}`,
          headers: { authorization: ADMIN },
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (
        await t.app.inject({
          method: 'DELETE',
          url: `/api/system/support/bundle/${created.id}`,
          headers: { authorization: ADMIN },
        })
      ).statusCode,
    ).toBe(404);
  });

  it('every route is for admins only: a signed-in user gets 403, an anonymous caller 401', async () => {
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/users/plain',
      headers: { authorization: ADMIN },
      payload: { password: 'Plain-pa55word!' },
    });
    const plain = basicAuth('plain', 'Plain-pa55word!');
    const body = { name: 'x', parameters: {} };
    const routes: [string, string, object?][] = [
      ['GET', '/ui/api/v1/ui/userSupport/listBundles'],
      ['POST', '/ui/api/v1/ui/userSupport/generateBundle', body],
      ['DELETE', '/ui/api/v1/ui/userSupport/deleteBundle/x'],
      ['GET', '/ui/api/v1/ui/userSupport/downloadBundle/x'],
      ['POST', '/api/system/support/bundle', body],
      ['GET', '/api/system/support/bundles'],
      ['GET', '/api/system/support/bundle/x'],
      ['GET', '/api/system/support/bundle/x/archive'],
      ['DELETE', '/api/system/support/bundle/x'],
    ];
    for (const [method, url, payload] of routes) {
      const asUser = await t.app.inject({
        method: method as 'GET',
        url,
        headers: { authorization: plain },
        payload,
      });
      expect(asUser.statusCode, `${method} ${url}`).toBe(403);
      const anonymous = await t.app.inject({ method: method as 'GET', url, payload });
      expect(anonymous.statusCode, `${method} ${url}`).toBe(401);
    }
  });
});

describe('issue 15 support bundles: restarts', () => {
  it('a bundle in progress when its node restarts is marked failure at start, and no partial file is left', async () => {
    const home = await makeTempHome();
    const [first, second] = await createTestDatabasePair();
    try {
      const a = await createTestApp({}, { home, database: first });
      let id: string;
      try {
        const res = await a.app.inject({
          method: 'POST',
          url: '/ui/api/v1/ui/userSupport/generateBundle',
          headers: { authorization: ADMIN },
          // ten reports a minute apart: still in progress when the node stops
          payload: {
            name: 'long',
            parameters: { logs: { include: false }, thread_dump: { count: 10, interval: 60_000 } },
          },
        });
        expect(res.statusCode, res.body).toBe(200);
        id = res.json().id;
        // wait until this node took the job
        for (let i = 0; i < 200; i++) {
          const list = (
            await a.app.inject({
              url: '/ui/api/v1/ui/userSupport/listBundles',
              headers: { authorization: ADMIN },
            })
          ).json() as { node_id: string | null }[];
          if (list[0]?.node_id) break;
          await new Promise((r) => setTimeout(r, 50));
        }
      } finally {
        await a.close();
      }
      const b = await createTestApp({}, { home, database: second });
      try {
        const list = (
          await b.app.inject({
            url: '/ui/api/v1/ui/userSupport/listBundles',
            headers: { authorization: ADMIN },
          })
        ).json() as { id: string; status: string }[];
        expect(list).toEqual([expect.objectContaining({ id: id!, status: 'failure' })]);
        // the job handed back at shutdown runs again here and leaves the failure as it is
        await new Promise((r) => setTimeout(r, 1500));
        const again = (
          await b.app.inject({ url: `/api/system/support/bundle/${id!}`, headers: { authorization: ADMIN } })
        ).json();
        expect(again.status).toBe('failure');
        expect(await readdir(path.join(home, 'support'))).toEqual([]);
      } finally {
        await b.close();
      }
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe('issue 15 support bundles with two nodes on one database', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    const [dbA, dbB] = await createTestDatabasePair();
    const [portA, portB] = [await freePort(), await freePort()];
    a = await createTestApp({ port: portA, nodeUrl: `http://127.0.0.1:${portA}` }, { database: dbA });
    b = await createTestApp({ port: portB, nodeUrl: `http://127.0.0.1:${portB}` }, { database: dbB });
    await a.app.listen({ port: portA, host: '127.0.0.1' });
    await b.app.listen({ port: portB, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('issue 15: a bundle made on one node downloads through either node (the other asks its maker), and deleting through the other node removes its zip', async () => {
    const res = await a.app.inject({
      method: 'POST',
      url: '/api/system/support/bundle',
      headers: { authorization: ADMIN },
      payload: { name: 'two-nodes', parameters: { configuration: true, system: true } },
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json().id as string;
    expect((await waitForStatus(a, id, (s) => s !== 'in progress')).status).toBe('success');
    const zip = `support/${id}.zip`;
    const [maker, other] = existsSync(path.join(a.home, zip)) ? [a, b] : [b, a];
    expect(existsSync(path.join(maker.home, zip))).toBe(true);
    expect(existsSync(path.join(other.home, zip))).toBe(false);

    const get = (app: TestApp) =>
      app.app.inject({ url: `/api/system/support/bundle/${id}/archive`, headers: { authorization: ADMIN } });
    const direct = await get(maker);
    const relayed = await get(other);
    expect(relayed.statusCode, relayed.body).toBe(200);
    expect(relayed.headers['content-type']).toBe('application/zip');
    expect(relayed.headers['content-disposition']).toContain('.zip');
    expect(relayed.rawPayload.equals(direct.rawPayload)).toBe(true);
    // The maker checks admin itself: a non-admin's request, relayed, is refused.
    expect((await other.app.inject({ url: `/api/system/support/bundle/${id}/archive` })).statusCode).toBe(
      401,
    );

    const removed = await other.app.inject({
      method: 'DELETE',
      url: `/ui/api/v1/ui/userSupport/deleteBundle/${id}`,
      headers: { authorization: ADMIN },
    });
    expect(removed.statusCode).toBe(204);
    expect(existsSync(path.join(maker.home, zip))).toBe(false);
    expect((await get(maker)).statusCode).toBe(404);
  });
});
