import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundClient, type ProxySnapshot, type ProxyTarget } from '../../platform/outbound/index.ts';
import { freePort, startTestServer, type TestServer } from '../../testing/server-process.ts';

/**
 * Acceptance (issue 15): outbound requests go through a real forward proxy — Debian's tinyproxy,
 * started here on loopback with its own configuration and log — chosen at run time: a remote
 * repository set to a proxy fetches its upstream through it (the proxy's log shows the relayed
 * request), switching the default proxy applies at once, and wrong proxy credentials are an error
 * the client sees.
 */
const PASSWORD = 'Proxies-acceptance-Pa55!';

interface Tinyproxy {
  port: number;
  log: string;
  child: ChildProcess;
  /** The requests it relayed so far ("GET http://… HTTP/1.1"). */
  relayed(): Promise<string[]>;
}

async function startTinyproxy(dir: string, name: string, basicAuth?: [string, string]): Promise<Tinyproxy> {
  const port = await freePort();
  const log = path.join(dir, `${name}.log`);
  const conf = path.join(dir, `${name}.conf`);
  await writeFile(
    conf,
    [
      `Port ${port}`,
      'Listen 127.0.0.1',
      'Timeout 30',
      `LogFile "${log}"`,
      'LogLevel Info',
      'MaxClients 20',
      'Allow 127.0.0.1',
      'ConnectPort 443',
      ...(basicAuth ? [`BasicAuth ${basicAuth[0]} ${basicAuth[1]}`] : []),
      '',
    ].join('\n'),
  );
  await writeFile(log, '');
  const child = spawn('tinyproxy', ['-d', '-c', conf], { stdio: 'ignore' });
  // Ready once it accepts connections.
  const deadline = Date.now() + 10_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (up) break;
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error(`tinyproxy ${name} did not start`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    log,
    child,
    async relayed() {
      const text = await readFile(log, 'utf8');
      return [...text.matchAll(/Request \(file descriptor \d+\): (\S+ \S+ HTTP\/1\.\d)/g)].map((m) => m[1]!);
    },
  };
}

describe('outbound proxies with a real forward proxy (issue 15 acceptance)', () => {
  let dir: string;
  let server: TestServer;
  let open: Tinyproxy;
  let guarded: Tinyproxy;
  let upstream: Server;
  let upstreamUrl: string;
  const served: string[] = [];

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${server.url}${url}`, {
      method,
      headers: { authorization: server.auth, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'granary-proxies-'));
    upstream = createServer((req, res) => {
      served.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`upstream says ${req.url}`);
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    open = await startTinyproxy(dir, 'open');
    guarded = await startTinyproxy(dir, 'guarded', ['granary', 'Right-pa55']);
    server = await startTestServer(PASSWORD, { GRANARY_OUTBOUND_ALLOWLIST: '127.0.0.1' });
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
    for (const p of [open, guarded]) if (p && p.child.exitCode === null) p.child.kill('SIGTERM');
    await new Promise<void>((r) => (upstream ? upstream.close(() => r()) : r()));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('issue 15: a remote repository set to a proxy fetches its upstream through it (the proxy logs the relayed request)', async () => {
    expect((await api('PUT', '/api/proxies/open', { host: '127.0.0.1', port: open.port })).status).toBe(201);
    await server.createRepository('via-open', {
      rclass: 'remote',
      packageType: 'generic',
      url: upstreamUrl,
      proxy: 'open',
    });
    const res = await fetch(`${server.url}/repository/via-open/first.txt`, {
      headers: { authorization: server.auth },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('upstream says /first.txt');
    expect(await open.relayed()).toContain(`GET ${upstreamUrl}/first.txt HTTP/1.1`);
  });

  it('issue 15: switching the default proxy applies at once, without a restart; credentials go as Basic Proxy-Authorization; disableProxy goes direct; an unknown proxy key is refused on save', async () => {
    await server.createRepository('by-default', {
      rclass: 'remote',
      packageType: 'generic',
      url: upstreamUrl,
    });
    const get = (p: string) =>
      fetch(`${server.url}/repository/by-default/${p}`, { headers: { authorization: server.auth } });

    // No default proxy yet: straight to the upstream.
    expect((await get('direct.txt')).status).toBe(200);
    expect((await open.relayed()).some((r) => r.includes('/direct.txt'))).toBe(false);
    expect((await guarded.relayed()).some((r) => r.includes('/direct.txt'))).toBe(false);

    const made = await api('PUT', '/api/proxies/guarded', {
      host: '127.0.0.1',
      port: guarded.port,
      username: 'granary',
      password: 'Right-pa55',
      defaultProxy: true,
    });
    expect(made.status, made.text).toBe(201);
    expect((await get('second.txt')).status).toBe(200);
    expect(await guarded.relayed()).toContain(`GET ${upstreamUrl}/second.txt HTTP/1.1`);

    // The default moves to the other proxy: the very next request goes there.
    expect(
      (await api('PUT', '/api/proxies/open', { host: '127.0.0.1', port: open.port, defaultProxy: true }))
        .status,
    ).toBe(200);
    expect((await get('third.txt')).status).toBe(200);
    expect(await open.relayed()).toContain(`GET ${upstreamUrl}/third.txt HTTP/1.1`);
    expect((await guarded.relayed()).some((r) => r.includes('/third.txt'))).toBe(false);
    // Artifactory's disableProxy: this remote connects directly although a default proxy exists.
    const direct = await api('POST', '/api/repositories/by-default', { disableProxy: true });
    expect(direct.status, direct.text).toBe(200);
    expect(JSON.parse(direct.text).disableProxy).toBe(true);
    expect((await get('fourth.txt')).status).toBe(200);
    expect(served).toContain('/fourth.txt');
    for (const p of [open, guarded])
      expect((await p.relayed()).some((r) => r.includes('/fourth.txt'))).toBe(false);

    // A remote may name only a configured proxy: an unknown key is refused when saved.
    const unknown = await api('POST', '/api/repositories/by-default', { proxy: 'nope' });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain("no proxy is named 'nope'");
  });

  it('issue 15: wrong proxy credentials, or none, are an upstream error the client sees — nothing is cached', async () => {
    await server.createRepository('via-guarded', {
      rclass: 'remote',
      packageType: 'generic',
      url: upstreamUrl,
      proxy: 'guarded',
    });
    const before = served.length;
    const wrong = await api('PUT', '/api/proxies/guarded', {
      host: '127.0.0.1',
      port: guarded.port,
      username: 'granary',
      password: 'Wrong-pa55',
    });
    expect(wrong.status).toBe(200);
    const refused = await fetch(`${server.url}/repository/via-guarded/secret.txt`, {
      headers: { authorization: server.auth },
    });
    // tinyproxy answers wrong credentials with 401 (and missing ones with 407, below).
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(await refused.text()).toMatch(/401|407/);
    expect(served.length).toBe(before); // the upstream was never reached

    // No credentials at all: the proxy asks for them (407) and Granary names the proxy.
    await api('PUT', '/api/proxies/guarded', { host: '127.0.0.1', port: guarded.port, password: null });
    const missing = await fetch(`${server.url}/repository/via-guarded/secret.txt`, {
      headers: { authorization: server.auth },
    });
    expect(missing.status).toBe(502);
    expect(await missing.text()).toContain("The proxy 'guarded' refused the request: 407");
    expect(served.length).toBe(before);

    // Right again: it works at once.
    await api('PUT', '/api/proxies/guarded', {
      host: '127.0.0.1',
      port: guarded.port,
      username: 'granary',
      password: 'Right-pa55',
    });
    const ok = await fetch(`${server.url}/repository/via-guarded/secret.txt`, {
      headers: { authorization: server.auth },
    });
    expect(ok.status).toBe(200);
  });

  it('issue 15: a webhook set to a proxy delivers through it (its test call, POSTed via the proxy)', async () => {
    const tested = await api('POST', '/event/api/v1/subscriptions/test', {
      key: 'via-proxy',
      enabled: true,
      event_filter: {
        domain: 'artifact',
        event_types: ['deployed'],
        criteria: { anyLocal: true, repoKeys: [] },
      },
      handlers: [{ handler_type: 'webhook', url: `${upstreamUrl}/hook`, proxy: 'open' }],
    });
    expect(tested.status, tested.text).toBe(200);
    expect(await open.relayed()).toContain(`POST ${upstreamUrl}/hook HTTP/1.1`);
  });

  it('issue 15: the outbound client — `proxy: null` goes direct, a key goes through that proxy, an unknown key is refused', async () => {
    const target: ProxyTarget = { key: 'open', url: `http://127.0.0.1:${open.port}` };
    const snapshot: ProxySnapshot = { byKey: new Map([['open', target]]), defaultKey: 'open' };
    const client = createOutboundClient({ allowlist: ['127.0.0.1'] });
    client.setProxyResolver({ current: async () => snapshot });
    try {
      await (await client.fetch(`${upstreamUrl}/none.txt`, { proxy: null })).text();
      await (await client.fetch(`${upstreamUrl}/keyed.txt`, { proxy: 'open' })).text();
      await (await client.fetch(`${upstreamUrl}/defaulted.txt`)).text();
      const relayed = await open.relayed();
      expect(relayed.some((r) => r.includes('/none.txt'))).toBe(false);
      expect(relayed).toContain(`GET ${upstreamUrl}/keyed.txt HTTP/1.1`);
      expect(relayed).toContain(`GET ${upstreamUrl}/defaulted.txt HTTP/1.1`);
      await expect(client.fetch(`${upstreamUrl}/x`, { proxy: 'nope' })).rejects.toThrow(
        "No proxy named 'nope' is configured",
      );
    } finally {
      await client.close();
    }
  });
});
