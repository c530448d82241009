import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROXY_MESSAGES } from '@granary/contracts';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../platform/db/index.ts';
import {
  basicAuth,
  createTestApp,
  selfSignedCert,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const USER = basicAuth('plain', 'Plain-pa55word!');
const UI = '/ui/api/v1/ui';
const run = promisify(execFile);
const nginx = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));

describe(`proxies and reverse proxy settings (issue 15, ${testEngine})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ outboundAllowlist: '127.0.0.1' });
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/users/plain',
      headers: { authorization: ADMIN },
      payload: { password: 'Plain-pa55word!' },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, auth = ADMIN) =>
    t.app.inject({ method, url, headers: { authorization: auth }, ...(payload ? { payload } : {}) });

  it('issue 15: every proxy and reverse proxy route is for administrators only (401 anonymous, 403 a plain user)', async () => {
    const routes: ['GET' | 'POST' | 'PUT' | 'DELETE', string][] = [
      ['GET', `${UI}/proxies`],
      ['POST', `${UI}/proxies`],
      ['GET', `${UI}/proxies/p1`],
      ['PUT', `${UI}/proxies/p1`],
      ['DELETE', `${UI}/proxies/p1`],
      ['GET', '/api/proxies'],
      ['GET', '/api/proxies/p1'],
      ['PUT', '/api/proxies/p1'],
      ['DELETE', '/api/proxies/p1'],
      ['GET', `${UI}/reverseProxies`],
      ['PUT', `${UI}/reverseProxies`],
      ['GET', `${UI}/reverseProxies/snippet`],
      ['GET', '/api/system/configuration/webServer'],
      ['POST', '/api/system/configuration/webServer'],
      ['GET', '/api/system/configuration/reverseProxy/nginx'],
    ];
    for (const [method, url] of routes) {
      const body = method === 'GET' || method === 'DELETE' ? undefined : {};
      const anonymous = await t.app.inject({ method, url, ...(body ? { payload: body } : {}) });
      expect(anonymous.statusCode, `${method} ${url} anonymous`).toBe(401);
      expect((await api(method, url, body, USER)).statusCode, `${method} ${url} as a plain user`).toBe(403);
    }
  });

  it('issue 15: a proxy password is write-only and sealed at rest; an update without one keeps it', async () => {
    const created = await api('POST', `${UI}/proxies`, {
      key: 'corp',
      host: 'proxy.example.com',
      port: 3128,
      username: 'svc',
      password: 'Pr0xy-Secret-981',
      ntHost: 'WS1',
      domain: 'CORP',
      redirectToHosts: ['Mirror.example.com'],
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({
      key: 'corp',
      password: '',
      passwordSet: true,
      ntHost: 'WS1',
      domain: 'CORP',
      defaultProxy: false,
      redirectToHosts: ['mirror.example.com'],
    });
    for (const url of [`${UI}/proxies`, `${UI}/proxies/corp`, '/api/proxies', '/api/proxies/corp'])
      expect((await api('GET', url)).body).not.toContain('Pr0xy-Secret-981');
    const stored = await queryRows<{ password: string }>(
      t.app.granary.database.db,
      sql`select password from proxies where key = 'corp'`,
    );
    expect(stored[0]!.password).not.toContain('Pr0xy-Secret-981');
    expect(t.app.granary.secrets.openSecret(stored[0]!.password)).toBe('Pr0xy-Secret-981');

    // The console's edit form sends the password field empty: the stored one stays.
    const updated = await api('PUT', `${UI}/proxies/corp`, {
      host: 'proxy2.example.com',
      port: 8080,
      username: 'svc',
      password: '',
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()).toMatchObject({ host: 'proxy2.example.com', port: 8080, passwordSet: true });
    const kept = await queryRows<{ password: string }>(
      t.app.granary.database.db,
      sql`select password from proxies where key = 'corp'`,
    );
    expect(t.app.granary.secrets.openSecret(kept[0]!.password)).toBe('Pr0xy-Secret-981');
    // null removes it.
    const removed = await api('PUT', '/api/proxies/corp', {
      host: 'proxy2.example.com',
      port: 8080,
      username: 'svc',
      password: null,
    });
    expect(removed.json()).toMatchObject({ passwordSet: false });
  });

  it('issue 15: proxy validation — key, host, port 1–65535, a duplicate name (spec 001 §5 message)', async () => {
    const bad = async (body: Record<string, unknown>, message: string) => {
      const res = await api('POST', `${UI}/proxies`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errors[0].message).toContain(message);
    };
    await bad({ key: '1x', host: 'h.example', port: 80 }, PROXY_MESSAGES.key);
    await bad({ key: 'ok', host: 'http://h.example', port: 80 }, PROXY_MESSAGES.host);
    await bad({ key: 'ok', host: 'h.example', port: 0 }, PROXY_MESSAGES.port);
    await bad({ key: 'ok', host: 'h.example', port: 65536 }, PROXY_MESSAGES.port);
    const dup = await api('POST', `${UI}/proxies`, { key: 'CORP', host: 'h.example', port: 80 });
    expect(dup.statusCode).toBe(409);
    expect(dup.body).toContain(PROXY_MESSAGES.duplicate);
  });

  it('issue 15: at most one default proxy — marking one clears the other; the public PUT creates then replaces', async () => {
    const a = await api('PUT', '/api/proxies/first', { host: '10.0.0.1', port: 3128, defaultProxy: true });
    expect(a.statusCode, a.body).toBe(201);
    const b = await api('PUT', '/api/proxies/second', { host: '10.0.0.2', port: 3128, defaultProxy: true });
    expect(b.statusCode).toBe(201);
    const again = await api('PUT', '/api/proxies/second', {
      host: '10.0.0.3',
      port: 3128,
      defaultProxy: true,
    });
    expect(again.statusCode).toBe(200);
    const list = (await api('GET', '/api/proxies')).json() as { key: string; defaultProxy: boolean }[];
    expect(list.filter((p) => p.defaultProxy).map((p) => p.key)).toEqual(['second']);
    // The webhook form reads names from ui/proxies (admin-webhooks queries.ts: `key` of each item).
    expect((await api('GET', `${UI}/proxies`)).json().map((p: { key: string }) => p.key)).toEqual([
      'corp',
      'first',
      'second',
    ]);
  });

  it('issue 15: deleting a proxy clears it from the remote repositories and webhooks that named it (Artifactory removeProxy)', async () => {
    await api('PUT', '/api/proxies/gone', { host: '10.0.0.9', port: 3128 });
    const repo = await api('PUT', '/api/repositories/via-gone', {
      rclass: 'remote',
      packageType: 'generic',
      url: 'http://127.0.0.1:9/',
      proxy: 'gone',
    });
    expect(repo.statusCode, repo.body).toBe(201);
    const hook = await api('POST', '/event/api/v1/subscriptions', {
      key: 'hook-gone',
      enabled: true,
      event_filter: {
        domain: 'artifact',
        event_types: ['deployed'],
        criteria: { anyLocal: true, repoKeys: [] },
      },
      handlers: [
        { handler_type: 'webhook', url: 'http://127.0.0.1:9/hook', proxy: 'gone', secret: 'S3cret-hook-1' },
      ],
    });
    expect(hook.statusCode, hook.body).toBe(201);
    expect(hook.json().handlers[0].proxy).toBe('gone');
    // A webhook naming no configured proxy is refused.
    const unknown = await api('POST', '/event/api/v1/subscriptions', {
      key: 'hook-unknown',
      enabled: true,
      event_filter: {
        domain: 'artifact',
        event_types: ['deployed'],
        criteria: { anyLocal: true, repoKeys: [] },
      },
      handlers: [{ handler_type: 'webhook', url: 'http://127.0.0.1:9/hook', proxy: 'nope' }],
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toContain('no proxy named nope');

    const del = await api('DELETE', '/api/proxies/gone');
    expect(del.statusCode, del.body).toBe(200);
    expect(del.json()).toEqual({
      key: 'gone',
      cleared: [
        { kind: 'repository', name: 'via-gone' },
        { kind: 'webhook', name: 'hook-gone' },
      ],
    });
    expect((await api('GET', '/api/repositories/via-gone')).json().proxy).toBeUndefined();
    const after = (await api('GET', '/event/api/v1/subscriptions/hook-gone')).json();
    expect(after.handlers[0].proxy).toBeUndefined();
    expect(after.handlers[0].secret).toBe(''); // its secret was kept, not removed
    expect((await api('GET', '/api/proxies/gone')).statusCode).toBe(404);
  });

  it('spec 001 §3/§9: reverse proxy settings default to HTTP 80 / HTTPS 443 and are validated', async () => {
    const first = (await api('GET', `${UI}/reverseProxies`)).json();
    expect(first).toMatchObject({ httpPort: 80, httpsPort: 443, useHttp: true, useHttps: false });
    const bad = async (body: Record<string, unknown>, message: string) => {
      const res = await api('PUT', `${UI}/reverseProxies`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errors[0].message).toContain(message);
    };
    await bad({ serverName: 'not a host!' }, PROXY_MESSAGES.serverName);
    await bad({ serverName: 'repo.example.com', httpPort: 70000 }, PROXY_MESSAGES.port);
    await bad({ serverName: 'repo.example.com', useHttp: false, useHttps: false }, PROXY_MESSAGES.noListener);
    await bad({ serverName: 'repo.example.com', sslCertificate: '/etc/x.crt;\n}' }, 'sslCertificate');
    await bad(
      {
        serverName: 'repo.example.com',
        dockerReverseProxyMethod: 'portPerRepo',
        reverseProxyRepositories: [{ repoKey: 'd' }],
      },
      'needs a port',
    );
  });

  it('issue 15: the generated nginx configuration follows the settings and passes `nginx -t`', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'granary-nginx-'));
    try {
      const { key, cert } = await selfSignedCert(dir, 'repo.example.com');
      const saved = await api('PUT', `${UI}/reverseProxies`, {
        serverName: 'repo.example.com',
        useHttp: true,
        httpPort: 8081,
        useHttps: true,
        httpsPort: 8443,
        sslCertificate: cert,
        sslKey: key,
        upstreamUrl: 'http://127.0.0.1:8080',
        dockerReverseProxyMethod: 'portPerRepo',
        reverseProxyRepositories: [{ repoKey: 'docker-local', port: 5001 }],
      });
      expect(saved.statusCode, saved.body).toBe(200);
      expect((await api('GET', '/api/system/configuration/webServer')).json()).toMatchObject({
        serverName: 'repo.example.com',
        httpsPort: 8443,
      });
      const { snippet } = (await api('GET', `${UI}/reverseProxies/snippet`)).json() as { snippet: string };
      const text = (await api('GET', '/api/system/configuration/reverseProxy/nginx')).body;
      expect(text).toBe(snippet);
      for (const expected of [
        'server_name repo.example.com;',
        'listen 8081;',
        'listen 8443 ssl;',
        'listen 5001 ssl;',
        'server 127.0.0.1:8080;',
        'client_max_body_size 0;',
        'proxy_request_buffering off;',
        'proxy_buffering off;',
        'proxy_set_header X-Forwarded-Proto $scheme;',
        'proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
        'rewrite ^/v2/(.*)$ /v2/docker-local/$1 break;',
      ])
        expect(snippet).toContain(expected);

      if (!nginx) return; // scripts/test-deps.d/operations.list installs it; the checks above still ran
      const conf = path.join(dir, 'nginx.conf');
      await writeFile(path.join(dir, 'granary.conf'), snippet);
      await writeFile(
        conf,
        [
          `pid ${path.join(dir, 'nginx.pid')};`,
          'error_log stderr;',
          'events {}',
          'http {',
          `  access_log off;`,
          `  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy;`,
          `  fastcgi_temp_path ${dir}/fcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;`,
          `  include ${path.join(dir, 'granary.conf')};`,
          '}',
        ].join('\n'),
      );
      const checked = await run(nginx, ['-t', '-p', dir, '-c', conf]).catch((err: { stderr: string }) => err);
      expect(checked.stderr).toContain('test is successful');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('issue 15: the subdomain docker method adds a server per docker repository', async () => {
    const created = await api('PUT', '/api/repositories/images', { rclass: 'local', packageType: 'docker' });
    expect(created.statusCode, created.body).toBe(201);
    const saved = await api('PUT', `${UI}/reverseProxies`, {
      serverName: 'repo.example.com',
      dockerReverseProxyMethod: 'subDomain',
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const { snippet } = (await api('GET', `${UI}/reverseProxies/snippet`)).json() as { snippet: string };
    expect(snippet).toContain('server_name images.repo.example.com;');
    expect(snippet).toContain('rewrite ^/v2/(.*)$ /v2/images/$1 break;');
    expect(snippet).toContain('listen 80;');
  });
});
