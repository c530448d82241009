import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.ts';
import { basicAuth, TEST_ADMIN_PASSWORD, testConfig } from '../../testing/index.ts';

/**
 * issue 12 §10: PostgreSQL stops answering (SIGSTOP on the server and every backend, as a hung host
 * or a network partition looks). Requests that need the database answer 503 with Retry-After within
 * a few seconds instead of hanging for the whole outage, ping and readiness say not ready, and once
 * the server resumes (SIGCONT) requests succeed again without a restart. A real PostgreSQL server is
 * started for this test alone (scripts/postgres.sh, as CI does), in a temp folder, and stopped after.
 */

const SCRIPT = path.resolve(import.meta.dirname, '../../../../../scripts/postgres.sh');
const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const TIMEOUT_MS = 1500;

/** The postmaster and every process under it (backends, checkpointer, walwriter, …). */
async function clusterPids(dataDir: string): Promise<number[]> {
  const postmaster = Number((await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  const parents = new Map<number, number>();
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    // pid (comm) state ppid …: comm may hold spaces, so read after its closing parenthesis.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid) parents.set(Number(name), ppid);
  }
  const all = [postmaster];
  for (let i = 0; i < all.length; i += 1)
    for (const [pid, ppid] of parents) if (ppid === all[i] && !all.includes(pid)) all.push(pid);
  return all;
}

describe('issue 12 §10: the database unreachable (real PostgreSQL, SIGSTOP/SIGCONT)', () => {
  let dir: string;
  let home: string;
  let app: FastifyInstance;
  let base: string;
  let stopped: number[] = [];

  const call = async (method: string, url: string, body?: string) => {
    const started = Date.now();
    const res = await fetch(`${base}${url}`, {
      method,
      headers: {
        authorization: ADMIN,
        ...(body === undefined ? {} : { 'content-type': 'application/octet-stream' }),
      },
      body,
      // Far more than the database timeout: a request hanging for the outage fails the test.
      signal: AbortSignal.timeout(30_000),
    });
    return { status: res.status, headers: res.headers, text: await res.text(), ms: Date.now() - started };
  };
  const signal = (name: 'SIGSTOP' | 'SIGCONT', pids: number[]) => {
    for (const pid of pids) {
      try {
        process.kill(pid, name);
      } catch {
        // a backend that exited meanwhile
      }
    }
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'granary-pg-outage-'));
    const url = execFileSync('bash', [SCRIPT, 'start', dir], { encoding: 'utf8' }).trim();
    home = await mkdtemp(path.join(os.tmpdir(), 'granary-pg-outage-home-'));
    app = await buildApp(testConfig(home, { databaseUrl: url, databaseTimeoutMs: TIMEOUT_MS }), {
      print: () => {},
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  }, 120_000);

  afterAll(async () => {
    signal('SIGCONT', stopped);
    await app?.close();
    if (dir) execFileSync('bash', [SCRIPT, 'stop', dir]);
    if (home) await rm(home, { recursive: true, force: true });
  }, 60_000);

  it('issue 12 §10: 503 with Retry-After within seconds while PostgreSQL is stopped, readiness says so, and recovery without restart', async () => {
    expect((await call('PUT', '/repository/generic-local/outage/before.txt', 'before')).status).toBe(201);
    expect((await call('GET', '/api/repositories')).status).toBe(200);
    expect((await call('GET', '/api/system/ping')).text).toBe('OK');
    expect((await call('GET', '/api/v1/system/readiness')).text).toBe('OK');

    stopped = await clusterPids(path.join(dir, 'data'));
    expect(stopped.length).toBeGreaterThan(1);
    signal('SIGSTOP', stopped);

    for (const [method, url, body] of [
      ['GET', '/api/repositories', undefined],
      ['PUT', '/repository/generic-local/outage/during.txt', 'during'],
      ['GET', '/api/storage/generic-local/outage/before.txt', undefined],
    ] as const) {
      const res = await call(method, url, body);
      expect(res.status, `${method} ${url}: ${res.text}`).toBe(503);
      expect(res.headers.get('retry-after'), `${method} ${url}`).toMatch(/^\d+$/);
      expect(JSON.parse(res.text).errors[0]).toMatchObject({
        status: 503,
        code: 'UNAVAILABLE',
        message: expect.stringContaining('The database is unavailable'),
      });
      expect(res.ms, `${method} ${url}`).toBeLessThan(4 * TIMEOUT_MS + 2000);
    }
    const ping = await call('GET', '/api/system/ping');
    expect(ping.status).toBe(503);
    expect(ping.text).toMatch(/^Database unavailable/);
    expect(ping.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await call('GET', '/api/v1/system/readiness')).status).toBe(503);
    expect((await call('GET', '/api/v1/system/liveness')).text).toBe('OK');
    const health = await call('GET', '/api/system/health');
    expect(health.status).toBe(503);
    expect(JSON.parse(health.text).checks.database.state).toBe('UNHEALTHY');

    signal('SIGCONT', stopped);
    stopped = [];
    let back = 0;
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && back !== 200) {
      back = (await call('GET', '/api/repositories')).status;
      if (back !== 200) await new Promise((r) => setTimeout(r, 250));
    }
    expect(back).toBe(200);
    expect((await call('GET', '/api/system/ping')).text).toBe('OK');
    expect((await call('PUT', '/repository/generic-local/outage/after.txt', 'after')).status).toBe(201);
    expect((await call('GET', '/repository/generic-local/outage/after.txt')).text).toBe('after');
    expect((await call('GET', '/repository/generic-local/outage/before.txt')).text).toBe('before');
    // What was refused during the outage was not stored.
    expect((await call('GET', '/repository/generic-local/outage/during.txt')).status).toBe(404);
  });
});
