import { randomBytes } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { basicAuth, createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../testing/index.ts';
import {
  type ServerProcess,
  startServerProcess,
  startTestServer,
  type TestServer,
  waitForPing,
} from '../../testing/server-process.ts';
import { digestOf } from './oci-testing.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const sessionsDir = (home: string) => path.join(home, 'tmp', 'oci-uploads');
const filesIn = (dir: string) => readdir(dir).catch(() => [] as string[]);

describe('issue 12 §14: OCI upload sessions live under $GRANARY_HOME and survive a restart', () => {
  let server: TestServer | undefined;
  let restarted: ServerProcess | undefined;
  afterAll(async () => {
    if (restarted && restarted.child.exitCode === null) {
      restarted.child.kill('SIGTERM');
      await restarted.exited;
    }
    await server?.stop();
  });

  it('issue 12 §14: uploads begun before a restart continue and finish after it (one chunk in the blob store, several chunks in a session file)', async () => {
    server = await startTestServer(TEST_ADMIN_PASSWORD);
    await server.createRepository('docker-local', { rclass: 'local', packageType: 'docker' });
    const base = server.url;
    const call = (method: string, url: string, headers: Record<string, string> = {}, body?: Buffer) =>
      fetch(url.startsWith('http') ? url : `${base}${url}`, {
        method,
        headers: { authorization: ADMIN, ...headers },
        body,
      });
    const open = async (image: string) => {
      const res = await call('POST', `/v2/docker-local/${image}/blobs/uploads/`);
      expect(res.status).toBe(202);
      return res.headers.get('location')!;
    };
    const patch = async (location: string, chunk: Buffer, start: number) => {
      const res = await call(
        'PATCH',
        location,
        {
          'content-type': 'application/octet-stream',
          'content-range': `${start}-${start + chunk.length - 1}`,
        },
        chunk,
      );
      expect(res.status, await res.clone().text()).toBe(202);
      return res.headers.get('location')!;
    };
    const [a1, a2] = [randomBytes(70_000), randomBytes(30_000)];
    const [b1, b2, b3] = [randomBytes(40_000), randomBytes(20_000), randomBytes(10_000)];
    const c1 = randomBytes(50_000);
    // A: one chunk before the restart (straight into the blob store), one after.
    const a = await patch(await open('app'), a1, 0);
    // B: two chunks before (the session's own file), one after.
    let b = await patch(await open('app'), b1, 0);
    b = await patch(b, b2, b1.length);
    // C: its only chunk before, closed after (what skopeo does when a restart falls between PATCH and PUT).
    const c = await patch(await open('app'), c1, 0);

    const sessions = await filesIn(sessionsDir(server.home));
    expect(sessions.filter((f) => f.endsWith('.json'))).toHaveLength(3);
    expect(sessions.filter((f) => f.endsWith('.data'))).toHaveLength(1);
    expect(await filesIn(path.join('/tmp', 'granary-oci-uploads'))).not.toContainEqual(
      expect.stringMatching(new RegExp(`^${server.proc.child.pid}-`)),
    );

    server.proc.child.kill('SIGKILL');
    await server.proc.exited;
    restarted = startServerProcess(server.home, server.port);
    await waitForPing(server.port, restarted, 240_000);

    // The status of each upload is where it was.
    const status = await call('GET', b);
    expect(status.status).toBe(204);
    expect(status.headers.get('range')).toBe(`0-${b1.length + b2.length - 1}`);

    const close = async (location: string, bytes: Buffer, last?: Buffer, start = 0) => {
      const url = `${location}${location.includes('?') ? '&' : '?'}digest=${digestOf(bytes)}`;
      const res = last
        ? await call(
            'PUT',
            url,
            {
              'content-type': 'application/octet-stream',
              'content-range': `${start}-${start + last.length - 1}`,
            },
            last,
          )
        : await call('PUT', url);
      expect(res.status, await res.clone().text()).toBe(201);
      const blob = await call('GET', `/v2/docker-local/app/blobs/${digestOf(bytes)}`);
      expect(blob.status).toBe(200);
      expect(Buffer.from(await blob.arrayBuffer()).equals(bytes)).toBe(true);
    };
    await close(await patch(a, a2, a1.length), Buffer.concat([a1, a2]));
    await close(b, Buffer.concat([b1, b2, b3]), b3, b1.length + b2.length);
    await close(c, c1);
    // Closed sessions leave nothing behind.
    expect(await filesIn(sessionsDir(server.home))).toEqual([]);
  }, 600_000);
});

describe('issue 12 §14: expired OCI uploads are dropped by a job', () => {
  let t: TestApp | undefined;
  afterAll(async () => {
    await t?.close();
  });

  it('issue 12 §14: oci.uploads-expire drops sessions idle past GRANARY_OCI_UPLOAD_EXPIRY_SECS with their bytes; a fresh one stays', async () => {
    // The app's clock runs `ahead` of the wall clock: the test moves it past the expiry instead of sleeping.
    let ahead = 0;
    t = await createTestApp({ ociGcGraceSecs: 0 }, { now: () => Date.now() + ahead });
    const app = t.app;
    const inject = (method: string, url: string, headers: Record<string, string> = {}, payload?: Buffer) =>
      app.inject({ method: method as 'GET', url, headers: { authorization: ADMIN, ...headers }, payload });
    expect(
      (
        await app.inject({
          method: 'PUT',
          url: '/api/repositories/docker-local',
          headers: { authorization: ADMIN },
          payload: { rclass: 'local', packageType: 'docker' },
        })
      ).statusCode,
    ).toBe(201);
    const open = async () => {
      const res = await inject('POST', '/v2/docker-local/old/blobs/uploads/');
      expect(res.statusCode).toBe(202);
      return String(res.headers.location);
    };
    const chunk = (location: string, bytes: Buffer, start: number) =>
      inject(
        'PATCH',
        location,
        {
          'content-type': 'application/octet-stream',
          'content-range': `${start}-${start + bytes.length - 1}`,
        },
        bytes,
      );
    const stale = await open();
    expect((await chunk(stale, randomBytes(1000), 0)).statusCode).toBe(202);
    expect((await chunk(stale, randomBytes(1000), 1000)).statusCode).toBe(202);
    const dir = sessionsDir(t.home);
    const uuid = stale.split('/').at(-1)!;
    expect((await stat(path.join(dir, `${uuid}.data`))).size).toBe(2000);
    ahead += t.config.ociUploadExpirySecs * 1000 + 1;
    const fresh = await open();
    const result = await app.granary.jobs.runNow('oci.uploads-expire');
    expect(result).toMatchObject({ expired: 1, bytes: 2000 });
    expect((await filesIn(dir)).filter((f) => f.startsWith(uuid))).toEqual([]);
    const gone = await inject('GET', stale);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().errors[0].code).toBe('BLOB_UPLOAD_UNKNOWN');
    expect((await inject('GET', fresh)).statusCode).toBe(204);
  });

  it('issue 12 §14: OCI garbage collection runs as the oci.gc job, no request involved', async () => {
    const app = t!.app;
    const orphan = Buffer.from('referenced by no manifest');
    const pushed = await app.inject({
      method: 'POST',
      url: `/v2/docker-local/gcjob/blobs/uploads/?digest=${digestOf(orphan)}`,
      headers: { authorization: ADMIN, 'content-type': 'application/octet-stream' },
      payload: orphan,
    });
    expect(pushed.statusCode).toBe(201);
    const head = () =>
      app.inject({
        method: 'HEAD',
        url: `/v2/docker-local/gcjob/blobs/${digestOf(orphan)}`,
        headers: { authorization: ADMIN },
      });
    expect((await head()).statusCode).toBe(200);
    // No grace period set: the job removes it.
    const report = (await app.granary.jobs.runNow('oci.gc')) as { removed: number; paths: string[] };
    expect(report).toMatchObject({
      removed: 1,
      paths: [`docker-local/gcjob/_uploads/${digestOf(orphan).replace(':', '__')}`],
    });
    expect((await head()).statusCode).toBe(404);
    const status = (await app.granary.jobs.status()).find((j) => j.name === 'oci.gc');
    expect(status).toMatchObject({ scope: 'cluster', runs: 1, lastError: null });
  });
});
