import { createHash, randomBytes } from 'node:crypto';
import { readFile, truncate, unlink, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestS3, type TestS3 } from '../../platform/blobs/s3rver-testing.ts';
import { basicAuth, createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../testing/index.ts';

/**
 * issue 12 §9 (bit rot) and §11 (a missing or empty blob): a download is verified as it goes out;
 * a damaged blob is never served as a complete 200, and every fault is logged with the artifact
 * and the blob, recorded for repair and shown in the scrub report.
 */

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const MIB = 1024 * 1024;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

interface Download {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The whole body announced by Content-Length arrived and the response ended normally. */
  complete: boolean;
}

/** A GET on a real socket, so a response cut mid-body shows as what a client sees. */
function download(base: string, url: string): Promise<Download> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${url}`, { headers: { authorization: ADMIN }, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('error', () => {});
      res.on('close', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(parts),
          complete: res.complete && !res.errored,
        }),
      );
    });
    req.on('error', reject);
  });
}

async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}

async function serverLog(t: TestApp): Promise<string> {
  t.app.granary.logging.flush();
  await new Promise((r) => setTimeout(r, 100));
  return readFile(path.join(t.home, 'logs', 'server.log'), 'utf8');
}

describe('issue 12 §9, §11: downloads of damaged blobs (filesystem store)', () => {
  let t: TestApp;
  let base: string;
  const blobFile = (sha: string) => path.join(t.home, 'blobs', sha.slice(0, 2), sha.slice(2, 4), sha);
  const put = async (url: string, body: Buffer) => {
    const res = await t.app.inject({ method: 'PUT', url, headers: { authorization: ADMIN }, payload: body });
    expect(res.statusCode, res.body).toBe(201);
  };
  const scrubReport = async () => {
    const res = await t.app.inject({ url: '/api/system/storage/scrub', headers: { authorization: ADMIN } });
    expect(res.statusCode).toBe(200);
    return res.json() as {
      report: Record<string, unknown> | null;
      openFaults: { sha256: string; kind: string; artifact: string; source: string }[];
    };
  };
  const runScrub = async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/system/jobs/blobs.scrub/run',
      headers: { authorization: ADMIN },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().result as Record<string, number>;
  };

  beforeAll(async () => {
    t = await createTestApp();
    base = await listen(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('issue 12 §9: a flipped byte in a large file cuts the transfer (never a complete 200), is logged, marked and repaired by a re-deploy', async () => {
    const url = '/repository/generic-local/rot/big.bin';
    const bytes = randomBytes(6 * MIB + 123);
    const sha = sha256(bytes);
    await put(url, bytes);
    const good = await download(base, url);
    expect(good.status).toBe(200);
    expect(good.complete).toBe(true);
    expect(sha256(good.body)).toBe(sha);

    const rotten = Buffer.from(bytes);
    rotten[5 * MIB + 7] = rotten[5 * MIB + 7]! ^ 0x10;
    await writeFile(blobFile(sha), rotten);
    const cut = await download(base, url);
    expect(cut.status).toBe(200); // the status line went out with the first chunk…
    expect(cut.complete).toBe(false); // …but the transfer is broken, not a complete wrong body
    expect(cut.body.length).toBeLessThan(bytes.length);
    expect(cut.body.equals(rotten.subarray(0, cut.body.length))).toBe(true);

    const log = await serverLog(t);
    expect(log).toMatch(new RegExp(`stored content of generic-local/rot/big.bin is damaged: blob ${sha}`));
    const line = log.split('\n').find((l) => l.includes('generic-local/rot/big.bin is damaged'))!;
    expect(JSON.parse(line)).toMatchObject({ level: 50, sha256: sha, path: 'rot/big.bin', fault: 'corrupt' });
    expect((await scrubReport()).openFaults).toContainEqual(
      expect.objectContaining({
        sha256: sha,
        kind: 'corrupt',
        artifact: 'generic-local/rot/big.bin',
        source: 'download',
      }),
    );

    // The damaged copy was moved aside: the next download says so plainly.
    const after = await t.app.inject({ url, headers: { authorization: ADMIN } });
    expect(after.statusCode).toBe(500);
    expect(after.json().errors[0]).toMatchObject({ status: 500, code: 'CONTENT_DAMAGED' });

    // Deploying the same bytes again repairs it; the next scrub closes the fault.
    await put(url, bytes);
    const repaired = await download(base, url);
    expect(repaired.complete).toBe(true);
    expect(sha256(repaired.body)).toBe(sha);
    const result = await runScrub();
    expect(result.repaired).toBeGreaterThanOrEqual(1);
    expect((await scrubReport()).openFaults.map((f) => f.sha256)).not.toContain(sha);
  });

  it('issue 12 §9: a damaged small file (served from memory) answers 500 and the cache never keeps its bytes', async () => {
    const url = '/repository/generic-local/rot/small.txt';
    const bytes = Buffer.from('a small, often read file\n'.repeat(40));
    const sha = sha256(bytes);
    await put(url, bytes);
    const rotten = Buffer.from(bytes);
    rotten[100] = rotten[100]! ^ 0x01;
    await writeFile(blobFile(sha), rotten);
    const cached = t.app.granary.blobCache.sizeBytes;

    const res = await t.app.inject({ url, headers: { authorization: ADMIN } });
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toContain('a small, often read file');
    expect(res.json().errors[0]).toEqual({
      status: 500,
      code: 'CONTENT_DAMAGED',
      message: `The stored content of generic-local/rot/small.txt is damaged (request ${res.headers['x-request-id']})`,
    });
    expect(t.app.granary.blobCache.sizeBytes).toBe(cached);
    const again = await t.app.inject({ url, headers: { authorization: ADMIN } });
    expect(again.statusCode).toBe(500);
  });

  it('issue 12 §11: a missing blob answers a clear 500 naming it, with a log line naming the artifact and the blob', async () => {
    const url = '/repository/generic-local/faults/missing.bin';
    const bytes = randomBytes(5 * MIB);
    const sha = sha256(bytes);
    await put(url, bytes);
    await unlink(blobFile(sha));
    const res = await download(base, url);
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toContain('application/json');
    expect(JSON.parse(res.body.toString()).errors[0]).toEqual({
      status: 500,
      code: 'CONTENT_DAMAGED',
      message: `The stored content of generic-local/faults/missing.bin is missing (request ${res.headers['x-request-id']})`,
    });
    const log = await serverLog(t);
    expect(log).toContain(`stored content of generic-local/faults/missing.bin is missing: blob ${sha}`);
  });

  it('issue 12 §11: a zero-length blob answers a clear 500 (not a closed connection) with a log line', async () => {
    const url = '/repository/generic-local/faults/empty.bin';
    const bytes = randomBytes(5 * MIB);
    const sha = sha256(bytes);
    await put(url, bytes);
    await truncate(blobFile(sha), 0);
    const res = await download(base, url);
    expect(res.status).toBe(500);
    expect(res.complete).toBe(true);
    expect(JSON.parse(res.body.toString()).errors[0]).toMatchObject({
      code: 'CONTENT_DAMAGED',
      message: expect.stringContaining('generic-local/faults/empty.bin is damaged (stored empty)'),
    });
    const log = await serverLog(t);
    expect(log).toContain(
      `stored content of generic-local/faults/empty.bin is damaged (stored empty): blob ${sha}`,
    );
  });

  it('issue 12 §9, §11: the scrub report shows the missing, empty and damaged blobs with their artifacts', async () => {
    const result = await runScrub();
    // small.txt's damaged copy was moved aside (now missing), missing.bin is gone, empty.bin is empty.
    expect(result).toMatchObject({ complete: true, missing: 2, empty: 1, corrupt: 0 });
    const { report, openFaults } = await scrubReport();
    expect(report).toMatchObject({ store: 'filesystem', missing: 2, empty: 1, corrupt: 0 });
    const byArtifact = Object.fromEntries(openFaults.map((f) => [f.artifact, f.kind]));
    expect(byArtifact).toMatchObject({
      'generic-local/rot/small.txt': 'missing',
      'generic-local/faults/missing.bin': 'missing',
      'generic-local/faults/empty.bin': 'empty',
    });
    // A regular user does not see it.
    const res = await t.app.inject({ url: '/api/system/storage/scrub' });
    expect(res.statusCode).toBe(401);
  });
});

describe('issue 12 §9: downloads verified on the S3 store', () => {
  let s3: TestS3;
  let t: TestApp;
  let base: string;
  let bucket: string;

  beforeAll(async () => {
    s3 = await startTestS3();
    const made = await s3.bucketUrl('blobs/');
    bucket = made.bucket;
    // No memory cache: every download streams from S3 through the verifier.
    t = await createTestApp({ blobstoreUrl: made.url, blobCacheBytes: 0 });
    base = await listen(t);
  });
  afterAll(async () => {
    await t?.close();
    await s3?.stop();
  });

  const rot = async (bytes: Buffer, at: number) => {
    const sha = sha256(bytes);
    const rotten = Buffer.from(bytes);
    rotten[at] = rotten[at]! ^ 0x04;
    await s3.admin.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: `blobs/${sha.slice(0, 2)}/${sha.slice(2, 4)}/${sha}`,
        Body: rotten,
      }),
    );
  };

  it('issue 12 §9: a flipped byte in a large S3 object cuts the transfer; in a small one it answers 500', async () => {
    const big = randomBytes(3 * MIB + 5);
    await t.app.inject({
      method: 'PUT',
      url: '/repository/generic-local/s3/big.bin',
      headers: { authorization: ADMIN },
      payload: big,
    });
    const good = await download(base, '/repository/generic-local/s3/big.bin');
    expect(good.complete).toBe(true);
    expect(sha256(good.body)).toBe(sha256(big));
    await rot(big, 3 * MIB);
    const cut = await download(base, '/repository/generic-local/s3/big.bin');
    expect(cut.complete).toBe(false);
    expect(cut.body.length).toBeLessThan(big.length);

    const small = Buffer.from('tiny but precious');
    await t.app.inject({
      method: 'PUT',
      url: '/repository/generic-local/s3/small.txt',
      headers: { authorization: ADMIN },
      payload: small,
    });
    await rot(small, 3);
    const res = await t.app.inject({
      url: '/repository/generic-local/s3/small.txt',
      headers: { authorization: ADMIN },
    });
    expect(res.statusCode).toBe(500);
    expect(res.json().errors[0].code).toBe('CONTENT_DAMAGED');

    const log = await serverLog(t);
    expect(log).toContain(`stored content of generic-local/s3/big.bin is damaged: blob ${sha256(big)}`);
    expect(log).toContain(`stored content of generic-local/s3/small.txt is damaged: blob ${sha256(small)}`);
  });
});
