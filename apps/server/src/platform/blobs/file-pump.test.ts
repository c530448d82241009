import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUMP_CHUNK_BYTES, pooledChunks, pumpFile } from './file-pump.ts';

describe('pumpFile: large files written to the socket through reused chunks', () => {
  let dir: string;
  let file: string;
  let bytes: Buffer;
  let server: http.Server;
  let base: string;
  const closedHandles: number[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'granary-pump-'));
    file = path.join(dir, 'blob');
    // Not a multiple of the chunk size: the last chunk is partial.
    bytes = randomBytes(5 * PUMP_CHUNK_BYTES + 12_345);
    await writeFile(file, bytes);
    server = http.createServer(async (req, res) => {
      const handle = await open(file, 'r');
      const fd = handle.fd;
      const close = handle.close.bind(handle);
      handle.close = () => {
        closedHandles.push(fd);
        return close();
      };
      const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
      const start = m ? Number(m[1]) : 0;
      const end = m ? Number(m[2]) : bytes.length - 1;
      res.writeHead(m ? 206 : 200, { 'content-length': end - start + 1 });
      await pumpFile(res, handle, start, end);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

  it('S4: concurrent downloads get every byte, in order, and the chunks go back to the pool', async () => {
    const bodies = await Promise.all(
      Array.from({ length: 6 }, async () => Buffer.from(await (await fetch(`${base}/`)).arrayBuffer())),
    );
    for (const body of bodies) {
      expect(body.length).toBe(bytes.length);
      expect(sha(body)).toBe(sha(bytes));
    }
    expect(pooledChunks()).toBeGreaterThanOrEqual(2);
  });

  it('serves a byte range that spans chunk boundaries', async () => {
    const start = PUMP_CHUNK_BYTES - 10;
    const end = 3 * PUMP_CHUNK_BYTES + 99;
    const res = await fetch(`${base}/`, { headers: { range: `bytes=${start}-${end}` } });
    expect(res.status).toBe(206);
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes.subarray(start, end + 1))).toBe(true);
  });

  it('a client that goes away mid-download: the server stops, closes the file and keeps serving', async () => {
    const before = closedHandles.length;
    await new Promise<void>((resolve, reject) => {
      const req = http.get(`${base}/`, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
    });
    await expect.poll(() => closedHandles.length, { timeout: 5000 }).toBeGreaterThan(before);
    const again = Buffer.from(await (await fetch(`${base}/`)).arrayBuffer());
    expect(sha(again)).toBe(sha(bytes));
  });
});
