import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import * as openpgp from 'openpgp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startServerProcess,
  startTestServer,
  type TestServer,
  waitForPing,
} from '../../testing/server-process.ts';

/**
 * Acceptance (issue 19): two real server processes on loopback. The source makes a signed bundle from
 * artifacts, promotes it DEV → PROD and distributes it; the target pulls the files (paced by
 * `GRANARY_DISTRIBUTION_PULL_RATE_BYTES_PER_SEC`, a real bandwidth cap, so the transfer is long enough
 * to be interrupted), is killed with SIGKILL mid-transfer, restarts on the same data folder, resumes
 * without pulling again what it had verified, and ends with the whole bundle — never half of it.
 */
const PASSWORD = 'Distribution-acceptance-Pa55!';
const LC = '/lifecycle/api/v2';
const MIB = 1024 * 1024;
const RATE = 512 * 1024;
const FILES = Array.from({ length: 8 }, (_, i) => ({
  path: `app/2.0/part-${i}.bin`,
  bytes: randomBytes(MIB),
}));
FILES.push({ path: 'app/2.0/README.txt', bytes: Buffer.from('release notes 2.0\n') });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    await sleep(200);
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

describe('release bundle distribution between two real servers (issue 19 acceptance)', () => {
  let source: TestServer;
  let target: TestServer;
  const env = { GRANARY_OUTBOUND_ALLOWLIST: '127.0.0.1' };
  const targetEnv = { ...env, GRANARY_DISTRIBUTION_PULL_RATE_BYTES_PER_SEC: String(RATE) };

  const call = (
    server: TestServer,
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) =>
    fetch(`${server.url}${url}`, {
      method,
      headers: {
        authorization: server.auth,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const json = async (res: Response, status: number) => {
    const text = await res.text();
    expect(res.status, text).toBe(status);
    return JSON.parse(text);
  };

  beforeAll(async () => {
    [source, target] = await Promise.all([
      startTestServer(PASSWORD, env),
      startTestServer(PASSWORD, targetEnv),
    ]);
  }, 300_000);
  afterAll(async () => {
    await source?.stop();
    await target?.stop();
  });

  it('issue 19: a bundle made from artifacts, promoted DEV → PROD and distributed arrives byte-identical, signed, and whole after the target is killed mid-transfer', async () => {
    // Source: repositories, files, a signing key, environments.
    for (const key of ['libs-src', 'libs-dev', 'libs-prod'])
      await source.createRepository(key, { rclass: 'local', packageType: 'generic' });
    await target.createRepository('libs-src', { rclass: 'local', packageType: 'generic' });
    for (const f of FILES) {
      const res = await fetch(`${source.url}/repository/libs-src/${f.path}`, {
        method: 'PUT',
        headers: { authorization: source.auth, 'content-type': 'application/octet-stream' },
        body: new Uint8Array(f.bytes),
      });
      expect(res.status).toBe(201);
    }
    const key = await json(
      await call(source, 'POST', '/api/security/keypair', { pairName: 'release', algorithm: 'rsa3072' }),
      201,
    );
    for (const [name, repo] of [
      ['DEV', 'libs-dev'],
      ['PROD', 'libs-prod'],
    ])
      await json(
        await call(source, 'POST', '/access/api/v1/environments', { name, repositories: [repo] }),
        201,
      );

    const created = await call(
      source,
      'POST',
      `${LC}/release_bundle`,
      {
        release_bundle_name: 'shop',
        release_bundle_version: '2.0',
        source_type: 'artifacts',
        source: { artifacts: FILES.map((f) => ({ path: `libs-src/${f.path}` })) },
      },
      { 'x-jfrog-signing-key-name': 'release' },
    );
    await json(created, 201);
    for (const environment of ['DEV', 'PROD'])
      expect(
        (await json(await call(source, 'POST', `${LC}/promotion/records/shop/2.0`, { environment }), 201))
          .status,
      ).toBe('COMPLETED');
    const prodCopy = await fetch(`${source.url}/repository/libs-prod/${FILES[0]!.path}`, {
      headers: { authorization: source.auth },
    });
    expect(Buffer.from(await prodCopy.arrayBuffer()).equals(FILES[0]!.bytes)).toBe(true);

    // Target: trusts the source's public key; the source holds a token of the target's admin.
    const publicKey = await (await fetch(`${source.url}/api/security/keypair/release/public`)).text();
    await json(
      await call(target, 'POST', '/api/security/keys/trusted', { alias: 'source', public_key: publicKey }),
      201,
    );
    const token = await json(
      await call(target, 'POST', '/api/security/tokens', { scope: 'applied-permissions/admin' }),
      200,
    );
    const registered = await json(
      await call(source, 'POST', `${LC}/distribution/targets`, {
        name: 'edge',
        url: target.url,
        token: token.access_token,
      }),
      201,
    );
    expect(JSON.stringify(registered)).not.toContain(token.access_token);

    const tracker = await json(
      await call(source, 'POST', `${LC}/distribution/distribute/shop/2.0`, { targets: ['edge'] }),
      202,
    );
    expect(tracker.targets).toEqual([
      expect.objectContaining({ target: 'edge', status: 'IN_PROGRESS', files_total: FILES.length }),
    ]);

    // Mid-transfer on the target: some files pulled, the bundle and its files not visible yet.
    const partial = await until('the target to have pulled two files', async () => {
      const list = (await json(await call(target, 'GET', `${LC}/distribution/received`), 200)) as {
        id: string;
        files_done: number;
        status: string;
      }[];
      return list[0] && list[0].files_done >= 2 ? list[0] : undefined;
    });
    expect(partial.status).toBe('IN_PROGRESS');
    expect((await call(target, 'GET', `${LC}/release_bundle/records/shop/2.0`)).status).toBe(404);
    expect((await call(target, 'GET', `/repository/libs-src/${FILES[0]!.path}`)).status).toBe(404);

    target.proc.child.kill('SIGKILL');
    await target.proc.exited;
    const doneAtKill = partial.files_done;
    expect(doneAtKill).toBeLessThan(FILES.length);

    // Restart on the same data folder and port: the job resumes once the killed run's lease lapses.
    target.proc = startServerProcess(target.home, target.port, {
      GRANARY_ADMIN_PASSWORD: PASSWORD,
      ...targetEnv,
    });
    await waitForPing(target.port, target.proc, 240_000);
    const restarted = (await json(
      await call(target, 'GET', `${LC}/distribution/received/${partial.id}`),
      200,
    )) as {
      status: string;
      files_done: number;
    };
    if (restarted.status !== 'COMPLETED') {
      expect((await call(target, 'GET', `${LC}/release_bundle/records/shop/2.0`)).status).toBe(404);
    }

    const finished = await until(
      'the source to see the distribution completed',
      async () => {
        const [t] = await json(await call(source, 'GET', `${LC}/distribution/trackers/shop/2.0`), 200);
        if (t.status === 'FAILED') throw new Error(`distribution failed: ${JSON.stringify(t)}`);
        return t.status === 'COMPLETED' ? t : undefined;
      },
      180_000,
    );
    expect(finished.targets[0]).toMatchObject({
      target: 'edge',
      status: 'COMPLETED',
      files_done: FILES.length,
    });

    // On the target: the whole bundle, byte-identical files, the same signed manifest.
    const there = await json(await call(target, 'GET', `${LC}/release_bundle/records/shop/2.0`), 200);
    expect(there).toMatchObject({ source: 'received', status: 'COMPLETED', file_count: FILES.length });
    for (const f of FILES) {
      const res = await call(target, 'GET', `/repository/libs-src/${f.path}`);
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(f.bytes), f.path).toBe(true);
    }
    const manifest = await (
      await call(target, 'GET', `${LC}/release_bundle/records/shop/2.0/manifest`)
    ).text();
    const signature = await (
      await call(target, 'GET', `${LC}/release_bundle/records/shop/2.0/signature`)
    ).text();
    expect(manifest).toBe(
      await (await call(source, 'GET', `${LC}/release_bundle/records/shop/2.0/manifest`)).text(),
    );
    const verified = await openpgp.verify({
      message: await openpgp.createMessage({ binary: new Uint8Array(Buffer.from(manifest)) }),
      signature: await openpgp.readSignature({ armoredSignature: signature }),
      verificationKeys: await openpgp.readKey({ armoredKey: key.publicKey }),
    });
    await expect(verified.signatures[0]!.verified).resolves.toBe(true);

    // Resumed, not restarted: the files verified before the kill were not pulled again (at most the one
    // in flight at the kill was). The source's request log counts the pulls.
    source.proc.child.kill('SIGTERM');
    await source.proc.exited;
    const log = await readFile(path.join(source.home, 'logs', 'request.log'), 'utf8');
    const pulls = log.split('\n').filter((l) => l.includes('/distribution/pull/')).length;
    expect(pulls).toBeGreaterThanOrEqual(FILES.length);
    expect(pulls).toBeLessThanOrEqual(FILES.length + 1);
    await rm(source.home, { recursive: true, force: true });
  }, 600_000);
});
