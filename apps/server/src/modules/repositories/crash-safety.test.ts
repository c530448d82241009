import { createHash, randomBytes } from 'node:crypto';
import { readdir, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempHome } from '../../testing/index.ts';
import { seedPgliteHome } from '../../testing/pglite-seed.ts';
import {
  freePort,
  type ServerProcess,
  startServerProcess,
  waitForPing,
} from '../../testing/server-process.ts';

const PASSWORD = 'Crash-test-pa55word!';
const AUTH = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;
const MiB = 1024 * 1024;
/** 500 MB, as the issue asks: 500 chunks of one random MiB (rotated so no two chunks are equal). */
const CHUNKS = 500;
const CHUNK = randomBytes(MiB);
const chunkAt = (i: number) => Buffer.concat([CHUNK.subarray(i % MiB), CHUNK.subarray(0, i % MiB)]);

/** Bytes in the server's temp area (the spool of uploads in progress). */
async function tempBytes(home: string): Promise<{ files: number; bytes: number }> {
  const dir = path.join(home, 'tmp', 'blobs');
  const names = await readdir(dir).catch(() => [] as string[]);
  let bytes = 0;
  for (const n of names) bytes += (await stat(path.join(dir, n)).catch(() => ({ size: 0 }))).size;
  return { files: names.length, bytes };
}

/**
 * Streams the 500 MB body; `onProgress` is called after each chunk is written, and may end the
 * upload's life (by killing the server) — then the promise settles with the socket error.
 */
function streamPut(
  port: number,
  onProgress?: (sent: number) => Promise<void>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'PUT',
        path: '/repository/generic-local/big.bin',
        headers: {
          authorization: AUTH,
          'content-type': 'application/octet-stream',
          'content-length': String(CHUNKS * MiB),
        },
      },
      (res) => {
        let body = '';
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    (async () => {
      for (let i = 0; i < CHUNKS; i++) {
        if (req.destroyed) return;
        if (!req.write(chunkAt(i)))
          await new Promise<void>((r) => {
            const go = () => {
              req.off('drain', go);
              req.off('close', go);
              r();
            };
            req.on('drain', go);
            req.on('close', go);
          });
        await onProgress?.((i + 1) * MiB);
      }
      req.end();
    })().catch(reject);
  });
}

describe('crash safety over HTTP', () => {
  const homes: string[] = [];
  const procs: ServerProcess[] = [];
  afterAll(async () => {
    for (const p of procs)
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    for (const h of homes) await rm(h, { recursive: true, force: true });
  });

  it('DESIGN Storage model: a 500 MB PUT cut by kill -9 leaves nothing at the path and an empty temp area after restart; the retried upload completes with matching checksums', async () => {
    const home = await makeTempHome();
    homes.push(home);
    await seedPgliteHome(home);
    const port = await freePort();
    const first = startServerProcess(home, port, { GRANARY_ADMIN_PASSWORD: PASSWORD });
    procs.push(first);
    await waitForPing(port, first, 120_000);

    // Kill the server once a good part of the body sits in its temp area (the upload is mid-stream).
    let killed = false;
    let spooledFiles = 0;
    const cut = await streamPut(port, async (sent) => {
      if (killed || sent % (16 * MiB) !== 0) return;
      const spooled = await tempBytes(home);
      if (spooled.bytes >= 100 * MiB || sent >= 400 * MiB) {
        killed = true;
        spooledFiles = spooled.files;
        first.child.kill('SIGKILL');
        await first.exited;
      }
    }).then(
      (answer) => ({ answer }),
      (error: Error) => ({ error }),
    );
    expect(killed).toBe(true);
    expect(spooledFiles).toBe(1);
    expect('error' in cut).toBe(true);
    await first.exited;
    expect(first.child.signalCode, `exit ${first.child.exitCode}: ${first.out()}`).toBe('SIGKILL');

    const second = startServerProcess(home, port, { GRANARY_ADMIN_PASSWORD: PASSWORD });
    procs.push(second);
    await waitForPing(port, second, 120_000);
    const base = `http://127.0.0.1:${port}`;
    const headers = { authorization: AUTH };
    expect((await fetch(`${base}/repository/generic-local/big.bin`, { headers })).status).toBe(404);
    const root = (await (await fetch(`${base}/api/storage/generic-local`, { headers })).json()) as {
      children: { uri: string }[];
    };
    expect(root.children.map((c) => c.uri)).not.toContain('/big.bin');
    expect(await tempBytes(home)).toEqual({ files: 0, bytes: 0 });

    // The same upload again: complete, with the checksums of the bytes sent.
    const sha256 = createHash('sha256');
    const sha1 = createHash('sha1');
    for (let i = 0; i < CHUNKS; i++) {
      const c = chunkAt(i);
      sha256.update(c);
      sha1.update(c);
    }
    const done = await streamPut(port);
    expect(done.status).toBe(201);
    const answer = JSON.parse(done.body) as { size: string; checksums: { sha256: string; sha1: string } };
    expect(answer.size).toBe(String(CHUNKS * MiB));
    expect(answer.checksums.sha256).toBe(sha256.digest('hex'));
    expect(answer.checksums.sha1).toBe(sha1.digest('hex'));
    const head = await fetch(`${base}/repository/generic-local/big.bin`, { method: 'HEAD', headers });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(CHUNKS * MiB));
    expect(head.headers.get('x-checksum-sha256')).toBe(answer.checksums.sha256);
    expect(await tempBytes(home)).toEqual({ files: 0, bytes: 0 });

    second.child.kill('SIGTERM');
    await second.exited;
  }, 360_000);
});
