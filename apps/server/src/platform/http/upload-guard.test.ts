import { readdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
type Errors = { errors: { status?: number; code: string; message: string }[] };

/**
 * A client on a real socket sending a request's headers, then its body `chunk` bytes every
 * `everyMs` until `total` bytes or the server closes; resolves with what the server answered.
 */
function trickle(
  port: number,
  head: string,
  opts: { total: number; chunk: number; everyMs: number },
): { done: Promise<{ answer: string; closedAfterMs: number; sent: number }>; socket: net.Socket } {
  const socket = net.connect(port, '127.0.0.1');
  const started = Date.now();
  let answer = '';
  let sent = 0;
  let timer: NodeJS.Timeout | undefined;
  socket.on('data', (d) => {
    answer += d.toString('latin1');
  });
  socket.on('error', () => {});
  socket.on('connect', () => {
    socket.write(`${head}Content-Length: ${opts.total}\r\n\r\n`);
    timer = setInterval(() => {
      if (socket.destroyed || sent >= opts.total) return clearInterval(timer);
      const n = Math.min(opts.chunk, opts.total - sent);
      socket.write(Buffer.alloc(n, 0x61));
      sent += n;
    }, opts.everyMs);
  });
  const done = new Promise<{ answer: string; closedAfterMs: number; sent: number }>((resolve) => {
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer, closedAfterMs: Date.now() - started, sent });
    });
  });
  return { done, socket };
}

const putHead = (url: string) =>
  `PUT ${url} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${ADMIN}\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n`;

describe('issue 12 §15: slow clients', () => {
  let t: TestApp;
  let port: number;
  const tempFiles = () => readdir(path.join(t.home, 'tmp', 'blobs')).catch(() => [] as string[]);
  beforeAll(async () => {
    // 200 bytes/s over 1 s windows, two uploads at once per address: small enough to test in seconds.
    t = await createTestApp({
      minUploadRateBytesPerSec: 200,
      minUploadRateWindowSecs: 1,
      maxUploadsPerAddress: 2,
    });
    const created = await t.app.inject({
      method: 'PUT',
      url: '/api/repositories/docker-local',
      headers: { authorization: ADMIN },
      payload: { rclass: 'local', packageType: 'docker' },
    });
    expect(created.statusCode).toBe(201);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('issue 12 §15: an upload trickling below the minimum rate is cut with 408 within the window and leaves no temp file and no file', async () => {
    const slow = trickle(port, putHead('/repository/generic-local/slow/file.bin'), {
      total: 100_000,
      chunk: 1,
      everyMs: 100,
    });
    const { answer, closedAfterMs, sent } = await slow.done;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/below the minimum of 200 bytes\/s/);
    expect(closedAfterMs).toBeLessThan(4000);
    expect(sent).toBeLessThan(100);
    const get = await t.app.inject({
      url: '/repository/generic-local/slow/file.bin',
      headers: { authorization: ADMIN },
    });
    expect(get.statusCode).toBe(404);
    for (let i = 0; i < 20 && (await tempFiles()).length > 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(await tempFiles()).toEqual([]);
    const log = await import('node:fs/promises').then((fs) =>
      fs.readFile(path.join(t.home, 'logs', 'server.log'), 'utf8'),
    );
    expect(log).toMatch(/upload cut: slower than the minimum rate/);
  });

  it('issue 12 §15: an OCI chunk trickling below the rate is cut; the upload session keeps only what came before', async () => {
    const opened = await t.app.inject({
      method: 'POST',
      url: '/v2/docker-local/slow/blobs/uploads/',
      headers: { authorization: ADMIN },
    });
    expect(opened.statusCode).toBe(202);
    const location = String(opened.headers.location);
    const head = `PATCH ${location} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${ADMIN}\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n`;
    const { answer } = await trickle(port, head, { total: 50_000, chunk: 2, everyMs: 100 }).done;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    const status = await t.app.inject({ url: location, headers: { authorization: ADMIN } });
    expect(status.statusCode).toBe(204);
    expect(status.headers.range).toBe('0-0');
    for (let i = 0; i < 20 && (await tempFiles()).length > 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(await tempFiles()).toEqual([]);
  });

  it('issue 12 §15: an upload above the minimum rate over several windows is not cut', async () => {
    const { answer } = await trickle(port, putHead('/repository/generic-local/steady/file.bin'), {
      total: 3000,
      chunk: 100,
      everyMs: 100,
    }).done;
    expect(answer).toMatch(/^HTTP\/1\.1 201 /);
    const get = await t.app.inject({
      url: '/repository/generic-local/steady/file.bin',
      headers: { authorization: ADMIN },
    });
    expect(get.rawPayload.length).toBe(3000);
  });

  it('issue 12 §15: beyond the per-address cap an upload gets 429 with Retry-After in the client’s format; a slot freed is usable again', async () => {
    const steady = { total: 4000, chunk: 100, everyMs: 100 };
    const first = trickle(port, putHead('/repository/generic-local/cap/1.bin'), steady);
    const second = trickle(port, putHead('/repository/generic-local/cap/2.bin'), steady);
    await new Promise((r) => setTimeout(r, 500));
    expect(t.app.granary.uploads.inFlight('127.0.0.1')).toBe(2);
    const generic = await fetch(`http://127.0.0.1:${port}/repository/generic-local/cap/3.bin`, {
      method: 'PUT',
      headers: { authorization: ADMIN, 'content-type': 'application/octet-stream' },
      body: 'third',
    });
    expect(generic.status).toBe(429);
    expect(generic.headers.get('retry-after')).toBe('5');
    expect(((await generic.json()) as Errors).errors[0]).toMatchObject({
      status: 429,
      code: 'TOO_MANY_REQUESTS',
    });
    const oci = await fetch(
      `http://127.0.0.1:${port}/v2/docker-local/cap/blobs/uploads/?digest=sha256:${'0'.repeat(64)}`,
      {
        method: 'POST',
        headers: { authorization: ADMIN, 'content-type': 'application/octet-stream' },
        body: 'third',
      },
    );
    expect(oci.status).toBe(429);
    expect(oci.headers.get('retry-after')).toBe('5');
    expect(((await oci.json()) as Errors).errors[0]!.code).toBe('TOOMANYREQUESTS');
    // Reads are not uploads: never capped.
    const read = await fetch(`http://127.0.0.1:${port}/repository/generic-local/steady/file.bin`, {
      headers: { authorization: ADMIN },
    });
    expect(read.status).toBe(200);
    expect((await first.done).answer).toMatch(/^HTTP\/1\.1 201 /);
    expect((await second.done).answer).toMatch(/^HTTP\/1\.1 201 /);
    expect(t.app.granary.uploads.inFlight('127.0.0.1')).toBe(0);
    const again = await fetch(`http://127.0.0.1:${port}/repository/generic-local/cap/3.bin`, {
      method: 'PUT',
      headers: { authorization: ADMIN, 'content-type': 'application/octet-stream' },
      body: 'third',
    });
    expect(again.status).toBe(201);
    expect(
      (await t.app.inject({ url: '/repository/generic-local/cap/3.bin', headers: { authorization: ADMIN } }))
        .body,
    ).toBe('third');
  });
});
