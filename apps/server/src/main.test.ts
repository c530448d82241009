import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempHome } from './testing/index.ts';
import { freePort, startServerProcess as startServer, waitForPing } from './testing/server-process.ts';

describe('the server process', () => {
  const homes: string[] = [];
  afterAll(async () => {
    for (const h of homes) await rm(h, { recursive: true, force: true });
  });

  it('starts with no external service (embedded database, files in GRANARY_HOME), prints the generated admin password once, stops on SIGTERM after finishing a request in flight, and restarts on the same data', async () => {
    const home = await makeTempHome();
    homes.push(home);
    const port = await freePort();
    const first = startServer(home, port);
    await waitForPing(port, first);
    const password = readFileSync(path.join(home, 'initial-admin-password'), 'utf8').trim();
    expect(first.out()).toContain(password);

    // A request in flight: its body arrives slowly, and SIGTERM is sent in the middle of it.
    const inflight = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/ui/api/v1/slow',
          headers: { 'content-type': 'application/json', 'content-length': '13' },
        },
        (res) => {
          let body = '';
          res.on('data', (d) => {
            body += d;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.write('{"slow":');
      setTimeout(() => {
        first.child.kill('SIGTERM');
        setTimeout(() => req.end('true}'), 1000);
      }, 1000);
    });
    const answer = await inflight;
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body).errors[0].code).toBe('NOT_FOUND');
    expect(await first.exited).toBe(0);
    // no new connections once stopped
    await expect(fetch(`http://127.0.0.1:${port}/api/system/ping`)).rejects.toThrow();

    const second = startServer(home, port);
    await waitForPing(port, second);
    expect(second.out()).not.toContain(password);
    const users = await fetch(`http://127.0.0.1:${port}/api/security/users`, {
      headers: { authorization: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}` },
    });
    expect(users.status).toBe(200);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 120_000);
});
