import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seedPgliteHome } from './testing/pglite-seed.ts';
import { freePort, type ServerProcess, startServerProcess, waitForPing } from './testing/server-process.ts';

const CLI = path.resolve(import.meta.dirname, 'cli.ts');

function runCliProcess(home: string, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', CLI, ...args],
      { env: { ...process.env, GRANARY_HOME: home, GRANARY_DATABASE_URL: '' }, timeout: 120_000 },
      (err, stdout, stderr) => {
        const code = err ? ((err as { code?: number }).code ?? 1) : 0;
        resolve({ code: typeof code === 'number' ? code : 1, out: `${stdout}${stderr}` });
      },
    );
  });
}

async function stop(proc: ServerProcess): Promise<void> {
  if (proc.child.exitCode !== null) return;
  proc.child.kill('SIGTERM');
  await proc.exited;
}

describe('issue 12 §3: `npm run granary -- unlock <name>` gets a locked-out admin back in without the console', () => {
  let home = '';
  const procs: ServerProcess[] = [];
  afterAll(async () => {
    for (const p of procs) await stop(p);
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('issue 12 §3, §23: the server warns at start (plain HTTP base URL, generated admin password); the CLI refuses while the server runs on the embedded database, unlocks once it is stopped, and the admin signs in again', async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'granary-cli-'));
    await seedPgliteHome(home);
    const env = { GRANARY_TRUST_PROXY: 'true', GRANARY_BASE_URL: 'http://repo.example.com' };
    let port = await freePort();
    const first = startServerProcess(home, port, env);
    procs.push(first);
    await waitForPing(port, first, 240_000);
    // the warnings come right after the serving line
    await expect
      .poll(() => first.out(), { timeout: 10_000 })
      .toMatch(/Granary warning: .*generated at installation/);
    expect(first.out()).toMatch(
      /Granary warning: GRANARY_BASE_URL http:\/\/repo\.example\.com is plain HTTP/,
    );
    const password = /generated password (\S+)/.exec(first.out())?.[1];
    // 18 random bytes, base64url
    expect(password).toMatch(/^[\w-]{24}$/);

    const login = (p: number, pw: string, ip: string) =>
      fetch(`http://127.0.0.1:${p}/ui/api/v1/ui/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
        body: JSON.stringify({ user: 'admin', password: pw, type: 'login' }),
      });
    // Failures from four addresses lock the account for every address.
    for (let a = 0; a < 4; a++)
      for (let i = 0; i < 5; i++) await (await login(port, `wrong-${i}`, `203.0.113.${a + 1}`)).text();
    const locked = await login(port, password!, '192.0.2.1');
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);

    const whileRunning = await runCliProcess(home, ['unlock', 'admin']);
    expect(whileRunning.code).toBe(1);
    expect(whileRunning.out).toMatch(/is running on the embedded database/);

    await stop(first);
    const unlocked = await runCliProcess(home, ['unlock', 'admin']);
    expect(unlocked.out).toMatch(/Unlocked admin/);
    expect(unlocked.code).toBe(0);

    port = await freePort();
    const second = startServerProcess(home, port, env);
    procs.push(second);
    await waitForPing(port, second, 240_000);
    expect((await login(port, password!, '192.0.2.1')).status).toBe(200);
    const auditRes = await fetch(`http://127.0.0.1:${port}/api/security/audit?limit=50`, {
      headers: { authorization: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}` },
    });
    const { events } = (await auditRes.json()) as { events: { action: string; target: string }[] };
    expect(events.some((e) => e.action === 'user.unlock' && e.target === 'admin')).toBe(true);
  }, 600_000);

  it('issue 12 §3: the CLI explains its usage and exits 2 on an unknown command', async () => {
    const res = await runCliProcess(home || os.tmpdir(), ['lock-everyone']);
    expect(res.code).toBe(2);
    expect(res.out).toMatch(/unlock <name>/);
  }, 120_000);
});
