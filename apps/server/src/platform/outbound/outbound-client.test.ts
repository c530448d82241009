import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createOutboundClient,
  OutboundBlockedError,
  type OutboundClient,
  type OutboundOptions,
  OutboundRedirectError,
} from './index.ts';

// Every server here listens on loopback (127.0.0.1, 127.0.0.2, ::1). Requests to other addresses
// (10.0.0.1, 169.254.169.254, …) are IP literals the client refuses before it connects.

interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface TestServer {
  origin: string;
  port: number;
  requests: SeenRequest[];
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

const servers: http.Server[] = [];
const clients: OutboundClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(
    servers.splice(0).map((s) => {
      s.closeAllConnections();
      return new Promise((resolve) => s.close(resolve));
    }),
  );
});

function listen(server: http.Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve((server.address() as AddressInfo).port));
  });
}

async function startServer(
  host: string,
  handler: Handler = (_req, res) => res.end('hello'),
): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      requests.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      handler(req, res, body);
    });
  });
  servers.push(server);
  const port = await listen(server, host);
  return { origin: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, port, requests };
}

/** A forward proxy for absolute-URI http requests; it only ever forwards to loopback. */
async function startProxy(): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method!, url: req.url!, headers: req.headers, body: '' });
    const target = new URL(req.url!);
    if (target.protocol !== 'http:' || !target.hostname.startsWith('127.')) {
      res.writeHead(403).end();
      return;
    }
    const upstream = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: req.method,
        headers: { ...req.headers, 'x-test-proxy': 'yes' },
      },
      (up) => {
        res.writeHead(up.statusCode!, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  servers.push(server);
  const port = await listen(server, '127.0.0.1');
  return { origin: `http://127.0.0.1:${port}`, port, requests };
}

function client(opts: Partial<OutboundOptions> = {}): OutboundClient {
  const c = createOutboundClient({ allowlist: [], ...opts });
  clients.push(c);
  return c;
}

async function blocked(promise: Promise<unknown>): Promise<OutboundBlockedError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OutboundBlockedError);
  return err as OutboundBlockedError;
}

function causeCodes(err: unknown): string[] {
  const codes: string[] = [];
  for (let e = err as { code?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code) codes.push(e.code);
  }
  return codes;
}

// Checked once: IPv6 tests run wherever ::1 can be bound.
const ipv6Loopback = await (async () => {
  const probe = http.createServer();
  try {
    await listen(probe, '::1');
    await new Promise((resolve) => probe.close(resolve));
    return true;
  } catch {
    return false;
  }
})();

describe('outbound client: refused targets', () => {
  it('outbound: refuses 127.0.0.1 unless allow-listed', async () => {
    const target = await startServer('127.0.0.1');
    const err = await blocked(client().fetch(`${target.origin}/`));
    expect(err).toMatchObject({ code: 'OUTBOUND_BLOCKED', host: '127.0.0.1', address: '127.0.0.1' });
    expect(err.message).toMatch(/GRANARY_OUTBOUND_ALLOWLIST/);
    expect(target.requests).toHaveLength(0);
  });

  it.skipIf(!ipv6Loopback)('outbound: refuses [::1] unless allow-listed', async () => {
    const target = await startServer('::1');
    const err = await blocked(client().fetch(`${target.origin}/`));
    expect(err).toMatchObject({ host: '::1', address: '::1' });
    expect(target.requests).toHaveLength(0);
  });

  it('outbound: refuses ::ffff:127.0.0.1 (IPv4-mapped loopback) unless allow-listed', async () => {
    const target = await startServer('127.0.0.1');
    await blocked(client().fetch(`http://[::ffff:127.0.0.1]:${target.port}/`));
    expect(target.requests).toHaveLength(0);
  });

  it('outbound: refuses localhost (a name resolving to loopback) at connect time unless allow-listed', async () => {
    const target = await startServer('127.0.0.1');
    const err = await blocked(client().fetch(`http://localhost:${target.port}/`));
    expect(err).toMatchObject({ host: 'localhost', address: expect.stringMatching(/^(127\.|::1$)/) });
    expect(target.requests).toHaveLength(0);
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', 'link-local metadata'],
    ['http://10.0.0.1/', 'private'],
    ['http://100.100.100.200/', 'carrier-grade NAT metadata'],
    ['http://[fd00:ec2::254]/', 'unique-local metadata'],
    ['https://0.0.0.0/', 'unspecified'],
  ])('outbound: refuses %s (%s) before connecting', async (url) => {
    const started = Date.now();
    const err = await blocked(client({ connectTimeoutMs: 100 }).fetch(url));
    expect(err.address).toBe(new URL(url).hostname.replace(/^\[|\]$/g, ''));
    expect(Date.now() - started).toBeLessThan(100);
  });

  it('outbound: refuses a redirect from an allow-listed 127.0.0.2 server to 127.0.0.1', async () => {
    const target = await startServer('127.0.0.1');
    const redirector = await startServer('127.0.0.2', (_req, res) =>
      res.writeHead(302, { location: `${target.origin}/secret` }).end(),
    );
    const err = await blocked(client({ allowlist: ['127.0.0.2'] }).fetch(`${redirector.origin}/`));
    expect(err).toMatchObject({ host: '127.0.0.1', address: '127.0.0.1' });
    expect(redirector.requests).toHaveLength(1);
    expect(target.requests).toHaveLength(0);
  });

  it('outbound: refuses a redirect to a name resolving to loopback', async () => {
    const target = await startServer('127.0.0.1');
    const redirector = await startServer('127.0.0.2', (_req, res) =>
      res.writeHead(307, { location: `http://localhost:${target.port}/` }).end(),
    );
    await blocked(client({ allowlist: ['127.0.0.2'] }).fetch(`${redirector.origin}/`));
    expect(target.requests).toHaveLength(0);
  });

  it.each(['ftp://127.0.0.1/file', 'file:///etc/passwd', 'ws://127.0.0.1/'])(
    'outbound: refuses %s (only http and https)',
    async (url) => {
      const err = await blocked(client({ allowlist: ['127.0.0.1'] }).fetch(url));
      expect(err.message).toMatch(/only http and https/);
    },
  );

  it('outbound: naming a host in the allow-list does not allow its IP literal', async () => {
    const target = await startServer('127.0.0.1');
    await blocked(client({ allowlist: ['localhost'] }).fetch(`${target.origin}/`));
    expect(target.requests).toHaveLength(0);
  });
});

describe('outbound client: allowed targets', () => {
  it.each([['127.0.0.1'], ['127.0.0.0/8'], ['::ffff:127.0.0.1']])(
    'outbound: allows 127.0.0.1 when the allow-list names %s',
    async (entry) => {
      const target = await startServer('127.0.0.1');
      const res = await client({ allowlist: [entry] }).fetch(`${target.origin}/hi?x=1`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('hello');
      expect(res.url).toBe(`${target.origin}/hi?x=1`);
      expect(res.redirected).toBe(false);
      expect(target.requests.map((r) => r.url)).toEqual(['/hi?x=1']);
    },
  );

  it('outbound: allows localhost when the allow-list names the host localhost', async () => {
    const target = await startServer('127.0.0.1');
    const res = await client({ allowlist: ['LOCALHOST'] }).fetch(`http://localhost:${target.port}/`);
    expect(await res.text()).toBe('hello');
    expect(target.requests).toHaveLength(1);
  });

  it.skipIf(!ipv6Loopback).each([['::1'], ['::1/128'], ['[::1]']])(
    'outbound: allows [::1] when the allow-list names %s',
    async (entry) => {
      const target = await startServer('::1');
      const res = await client({ allowlist: [entry] }).fetch(`${target.origin}/`);
      expect(await res.text()).toBe('hello');
      expect(target.requests).toHaveLength(1);
    },
  );

  it('outbound: sends method, headers, a string or streamed body and the user agent', async () => {
    const target = await startServer('127.0.0.1', (_req, res, body) =>
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ got: body })),
    );
    const c = client({ allowlist: ['127.0.0.1'], userAgent: 'Granary/test' });
    const res = await c.fetch(`${target.origin}/hook`, {
      method: 'post',
      headers: { 'Content-Type': 'application/json', 'X-Hook': '1' },
      body: '{"a":1}',
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ got: '{"a":1}' });
    await c.fetch(`${target.origin}/stream`, {
      method: 'PUT',
      body: Readable.from(['chunk-1,', Buffer.from('chunk-2')]),
    });
    expect(
      target.requests.map((r) => [r.method, r.body, r.headers['user-agent'], r.headers['x-hook']]),
    ).toEqual([
      ['POST', '{"a":1}', 'Granary/test', '1'],
      ['PUT', 'chunk-1,chunk-2', 'Granary/test', undefined],
    ]);
  });
});

describe('outbound client: redirects', () => {
  it('outbound: follows redirects, re-checking each hop, and reports the final URL', async () => {
    const target = await startServer('127.0.0.1', (req, res) => {
      if (req.url === '/a') res.writeHead(301, { location: '/b' }).end();
      else if (req.url === '/b') res.writeHead(302, { location: '/final' }).end();
      else res.end('final');
    });
    const res = await client({ allowlist: ['127.0.0.1'] }).fetch(`${target.origin}/a`);
    expect(await res.text()).toBe('final');
    expect(res.url).toBe(`${target.origin}/final`);
    expect(res.redirected).toBe(true);
    expect(target.requests.map((r) => r.url)).toEqual(['/a', '/b', '/final']);
  });

  it('outbound: redirect limit (maxRedirects) stops an endless chain', async () => {
    const target = await startServer('127.0.0.1', (req, res) => {
      const n = Number(req.url!.slice(1));
      res.writeHead(302, { location: `/${n + 1}` }).end();
    });
    const err = await client({ allowlist: ['127.0.0.1'], maxRedirects: 3 })
      .fetch(`${target.origin}/0`)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundRedirectError);
    expect((err as Error).message).toMatch(/more than 3/);
    expect(target.requests.map((r) => r.url)).toEqual(['/0', '/1', '/2', '/3']);
  });

  it('outbound: default redirect limit is 5', async () => {
    const target = await startServer('127.0.0.1', (req, res) => {
      const n = Number(req.url!.slice(1));
      if (n < 5) res.writeHead(302, { location: `/${n + 1}` }).end();
      else res.end('five');
    });
    const c = client({ allowlist: ['127.0.0.1'] });
    expect(await (await c.fetch(`${target.origin}/0`)).text()).toBe('five');
    await expect(c.fetch(`${target.origin}/-1`)).rejects.toBeInstanceOf(OutboundRedirectError);
  });

  it('outbound: strips Authorization on a cross-origin redirect, keeps it on the same origin', async () => {
    const other = await startServer('127.0.0.1');
    const first = await startServer('127.0.0.2', (req, res) => {
      if (req.url === '/start') res.writeHead(302, { location: '/same' }).end();
      else res.writeHead(307, { location: `${other.origin}/elsewhere` }).end();
    });
    const res = await client({ allowlist: ['127.0.0.0/8'] }).fetch(`${first.origin}/start`, {
      headers: { Authorization: 'Bearer s3cret', Cookie: 'sid=1', 'X-Kept': 'yes' },
    });
    expect(res.status).toBe(200);
    expect(first.requests.map((r) => [r.url, r.headers.authorization, r.headers.cookie])).toEqual([
      ['/start', 'Bearer s3cret', 'sid=1'],
      ['/same', 'Bearer s3cret', 'sid=1'],
    ]);
    expect(other.requests).toHaveLength(1);
    expect(other.requests[0]!.headers.authorization).toBeUndefined();
    expect(other.requests[0]!.headers.cookie).toBeUndefined();
    expect(other.requests[0]!.headers['x-kept']).toBe('yes');
  });

  it('outbound: a 303 after POST is followed with a GET without the body', async () => {
    const target = await startServer('127.0.0.1', (req, res) => {
      if (req.url === '/submit') res.writeHead(303, { location: '/done' }).end();
      else res.end('done');
    });
    await client({ allowlist: ['127.0.0.1'] }).fetch(`${target.origin}/submit`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'payload',
    });
    expect(target.requests.map((r) => [r.method, r.url, r.body, r.headers['content-type']])).toEqual([
      ['POST', '/submit', 'payload', 'text/plain'],
      ['GET', '/done', '', undefined],
    ]);
  });

  it("outbound: redirect 'manual' returns the 3xx answer without following it", async () => {
    const target = await startServer('127.0.0.1');
    const redirector = await startServer('127.0.0.2', (_req, res) =>
      res.writeHead(302, { location: `${target.origin}/` }).end(),
    );
    const res = await client({ allowlist: ['127.0.0.2'] }).fetch(`${redirector.origin}/`, {
      redirect: 'manual',
    });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${target.origin}/`);
    expect(target.requests).toHaveLength(0);
  });
});

describe('outbound client: timeouts and cancelling', () => {
  const silent: Handler = () => {
    // never answers
  };

  it('outbound: headers timeout ends a request to a server that never answers', async () => {
    const target = await startServer('127.0.0.1', silent);
    const started = Date.now();
    const err = await client({ allowlist: ['127.0.0.1'], headersTimeoutMs: 200 })
      .fetch(`${target.origin}/`)
      .catch((e: unknown) => e);
    expect(causeCodes(err)).toContain('UND_ERR_HEADERS_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(target.requests).toHaveLength(1);
  });

  it('outbound: body timeout ends a response whose body stalls', async () => {
    const target = await startServer('127.0.0.1', (_req, res) => {
      res.writeHead(200, { 'content-length': '10' });
      res.write('12345');
    });
    const res = await client({ allowlist: ['127.0.0.1'], bodyTimeoutMs: 200 }).fetch(`${target.origin}/`);
    const err = await res.text().catch((e: unknown) => e);
    expect(causeCodes(err)).toContain('UND_ERR_BODY_TIMEOUT');
  });

  it('outbound: an AbortSignal cancels the request', async () => {
    const target = await startServer('127.0.0.1', silent);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const err = await client({ allowlist: ['127.0.0.1'] })
      .fetch(`${target.origin}/`, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect((err as Error).name).toBe('AbortError');
  });
});

describe('outbound client: proxy', () => {
  it('outbound: with a proxy, an allow-listed target is reached through the proxy', async () => {
    const proxy = await startProxy();
    const target = await startServer('127.0.0.2', (req, res) =>
      res.end(`via ${req.headers['x-test-proxy']}`),
    );
    const c = client({ allowlist: ['127.0.0.2'], proxy: { url: proxy.origin } });
    const res = await c.fetch(`${target.origin}/pkg?v=1`);
    expect(await res.text()).toBe('via yes');
    expect(proxy.requests.map((r) => [r.method, r.url])).toEqual([['GET', `${target.origin}/pkg?v=1`]]);
    expect(target.requests).toHaveLength(1);
  });

  it('outbound: with a proxy, a refused target is never handed to the proxy', async () => {
    const proxy = await startProxy();
    const target = await startServer('127.0.0.2');
    const c = client({ allowlist: [], proxy: { url: proxy.origin } });
    await blocked(c.fetch(`${target.origin}/`));
    await blocked(c.fetch(`http://localhost:${target.port}/`));
    await blocked(c.fetch('http://169.254.169.254/'));
    expect(proxy.requests).toHaveLength(0);
    expect(target.requests).toHaveLength(0);
  });

  it('outbound: with a proxy, noProxy hosts go direct', async () => {
    const proxy = await startProxy();
    const target = await startServer('127.0.0.2', (req, res) =>
      res.end(`via ${req.headers['x-test-proxy']}`),
    );
    const c = client({ allowlist: ['127.0.0.2'], proxy: { url: proxy.origin, noProxy: ['127.0.0.0/8'] } });
    expect(await (await c.fetch(`${target.origin}/`)).text()).toBe('via undefined');
    expect(proxy.requests).toHaveLength(0);
    expect(target.requests).toHaveLength(1);
  });

  it('outbound: with a proxy, a redirect is re-checked before going through the proxy', async () => {
    const proxy = await startProxy();
    const target = await startServer('127.0.0.1');
    const redirector = await startServer('127.0.0.2', (_req, res) =>
      res.writeHead(302, { location: `${target.origin}/` }).end(),
    );
    const c = client({ allowlist: ['127.0.0.2'], proxy: { url: proxy.origin } });
    await blocked(c.fetch(`${redirector.origin}/`));
    expect(proxy.requests.map((r) => r.url)).toEqual([`${redirector.origin}/`]);
    expect(target.requests).toHaveLength(0);
  });
});
