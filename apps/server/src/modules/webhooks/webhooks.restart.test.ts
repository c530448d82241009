import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempHome } from '../../testing/index.ts';
import { seedPgliteHome } from '../../testing/pglite-seed.ts';
import {
  freePort,
  type ServerProcess,
  startServerProcess,
  waitForPing,
} from '../../testing/server-process.ts';
import { TestReceiver } from './test-receiver.ts';

const PASSWORD = 'Restart-admin-Pa55!';
const AUTH = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;
const SECRET = 'restart-secret-0123456789';

describe('webhooks across a server restart (real server processes, one GRANARY_HOME)', () => {
  const procs: ServerProcess[] = [];
  let receiver: TestReceiver | undefined;
  let home = '';
  afterAll(async () => {
    for (const p of procs)
      if (p.child.exitCode === null) {
        p.child.kill('SIGTERM');
        await p.exited;
      }
    await receiver?.stop();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('issue 14 acceptance: the receiver is down while the server restarts; the event arrives after the restart, signed with the stored (sealed) secret', async () => {
    home = await makeTempHome();
    await seedPgliteHome(home);
    const port = await freePort();
    const receiverPort = await freePort();
    const env = { GRANARY_ADMIN_PASSWORD: PASSWORD, GRANARY_OUTBOUND_ALLOWLIST: '127.0.0.1' };
    const base = `http://127.0.0.1:${port}`;
    const call = (method: string, url: string, body?: unknown) =>
      fetch(`${base}${url}`, {
        method,
        headers: {
          authorization: AUTH,
          'content-type': body === undefined ? 'application/octet-stream' : 'application/json',
        },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });

    const first = startServerProcess(home, port, env);
    procs.push(first);
    await waitForPing(port, first, 240_000);
    // platform/secrets: the master key was created on the first start, readable by the owner only.
    expect((await stat(path.join(home, 'security', 'master.key'))).mode & 0o777).toBe(0o600);

    const created = await call('POST', '/event/api/v1/subscriptions', {
      key: 'restart-hook',
      enabled: true,
      event_filter: { domain: 'artifact', event_types: ['deployed'], criteria: { anyLocal: true } },
      handlers: [{ handler_type: 'webhook', url: `http://127.0.0.1:${receiverPort}/hook`, secret: SECRET }],
    });
    expect(created.status).toBe(201);
    const put = await fetch(`${base}/repository/generic-local/restart/app.bin`, {
      method: 'PUT',
      headers: { authorization: AUTH, 'content-type': 'application/octet-stream' },
      body: 'bytes before the restart',
    });
    expect(put.status).toBe(201);

    // The first attempt fails (nobody listens) and is logged; a retry is scheduled in the database.
    let log: { attempts: { error: string | null; delivery_id: string }[] } = { attempts: [] };
    for (let i = 0; i < 100 && log.attempts.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 200));
      log = (await (
        await call('GET', '/event/api/v1/subscriptions/restart-hook/deliveries')
      ).json()) as typeof log;
    }
    expect(log.attempts).toHaveLength(1);
    expect(log.attempts[0]!.error).toBeTruthy();
    const deliveryId = log.attempts[0]!.delivery_id;

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    receiver = await new TestReceiver().start(receiverPort);

    const second = startServerProcess(home, port, env);
    procs.push(second);
    await waitForPing(port, second, 240_000);
    await receiver.waitFor(() => receiver!.arrivals.length > 0, 45_000, 'the delivery after the restart');
    const arrival = receiver.arrivals[0]!;
    expect(arrival.headers['webhook-id']).toBe(deliveryId);
    expect(() => new Webhook(SECRET, { format: 'raw' }).verify(arrival.body, arrival.headers)).not.toThrow();
    expect(JSON.parse(arrival.body)).toMatchObject({
      domain: 'artifact',
      event_type: 'deployed',
      subscription_key: 'restart-hook',
      data: { repo_key: 'generic-local', path: 'restart/app.bin', name: 'app.bin' },
    });
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.arrivals).toHaveLength(1);
  }, 300_000);
});
