import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEvents } from '../../platform/events/index.ts';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { THROTTLE } from './throttle.service.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const PW = 'Event-user-Pa55word!';
const V1 = '/ui/api/v1';

/** A mail server on loopback that keeps each message's body (invitations are mailed). */
async function startSmtp(inbox: string[]): Promise<{ server: SMTPServer; port: number }> {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      let body = '';
      stream.on('data', (c: Buffer) => {
        body += c.toString('utf8');
      });
      stream.on('end', () => {
        inbox.push(body.replace(/=\r?\n/g, '').replace(/=3D/g, '='));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.server.address() as AddressInfo).port };
}

describe(`issue 14 §Events: users created, deleted and locked out (${testEngine})`, () => {
  let t: TestApp;
  let smtp: SMTPServer;
  const inbox: string[] = [];
  beforeAll(async () => {
    const started = await startSmtp(inbox);
    smtp = started.server;
    t = await createTestApp();
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/security/configuration',
      headers: { authorization: ADMIN },
      payload: {
        selfRegistration: true,
        mail: { enabled: true, host: '127.0.0.1', port: started.port, from: 'granary@example.com' },
      },
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
  });
  afterAll(async () => {
    await t?.close();
    await new Promise<void>((resolve) => smtp?.close(() => resolve()));
  });

  /** The user events `action` adds to the outbox, as `{type, data}`. */
  async function userEventsOf(action: () => Promise<unknown>) {
    const before = Math.max(0, ...(await listEvents(t.app.granary.database.db)).map((e) => e.id));
    await action();
    return (await listEvents(t.app.granary.database.db))
      .filter((e) => e.id > before && e.type.startsWith('user.'))
      .map((e) => ({ type: e.type, data: e.payload }));
  }
  const putUser = (name: string, payload: object) =>
    t.app.inject({
      method: 'PUT',
      url: `/api/security/users/${name}`,
      headers: { authorization: ADMIN },
      payload,
    });

  it('issue 14 §Events: an admin creating a user is one user.created naming the user (no email) and who created it; updating it is none', async () => {
    const created = await userEventsOf(async () =>
      expect((await putUser('olga', { password: PW, email: 'olga@example.com' })).statusCode).toBe(201),
    );
    expect(created).toEqual([{ type: 'user.created', data: { user_name: 'olga', by: 'admin' } }]);
    const updated = await userEventsOf(async () =>
      expect((await putUser('olga', { email: 'olga2@example.com' })).statusCode).toBe(200),
    );
    expect(updated).toEqual([]);
  });

  it('issue 14 §Events: self-registration and an accepted invitation each publish one user.created', async () => {
    const registered = await userEventsOf(async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: `${V1}/ui/auth/register`,
        payload: { user: 'rita', email: 'rita@example.com', password: PW },
      });
      expect(res.statusCode, res.body).toBe(201);
    });
    expect(registered).toEqual([{ type: 'user.created', data: { user_name: 'rita' } }]);

    const invited = await t.app.inject({
      method: 'POST',
      url: '/api/security/invitations',
      headers: { authorization: ADMIN },
      payload: { email: 'ivan@example.com' },
    });
    expect(invited.statusCode, invited.body).toBe(201);
    const mail = inbox.find((m) => m.includes('/ui/login/invitation?token='));
    const token = decodeURIComponent(/invitation\?token=([A-Za-z0-9_%-]+)/.exec(mail ?? '')?.[1] ?? '');
    expect(token).not.toBe('');
    const accepted = await userEventsOf(async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: `${V1}/access/entities/users/invited/setPassword`,
        payload: { token, username: 'ivan', password: PW },
      });
      expect(res.statusCode, res.body).toBe(201);
    });
    expect(accepted).toEqual([{ type: 'user.created', data: { user_name: 'ivan' } }]);
  });

  it('issue 14 §Events: deleting a user is one user.deleted', async () => {
    expect((await putUser('dora', { password: PW })).statusCode).toBe(201);
    const deleted = await userEventsOf(async () =>
      expect(
        (
          await t.app.inject({
            method: 'DELETE',
            url: '/api/security/users/dora',
            headers: { authorization: ADMIN },
          })
        ).statusCode,
      ).toBeLessThan(300),
    );
    expect(deleted).toEqual([{ type: 'user.deleted', data: { user_name: 'dora', by: 'admin' } }]);
  });

  it('issue 14 §Events: failed sign-ins that lock a user out publish one user.locked; more tries while locked publish none, nor does a name nobody has', async () => {
    expect((await putUser('lena', { password: PW })).statusCode).toBe(201);
    const login = (user: string, remoteAddress: string) =>
      t.app.inject({
        method: 'POST',
        url: `${V1}/ui/auth/login`,
        remoteAddress,
        payload: { user, password: 'Wrong-pa55word!', type: 'login' },
      });
    const locked = await userEventsOf(async () => {
      for (let i = 0; i < THROTTLE.pairLimit; i++) await login('lena', '198.51.100.7');
      // Locked now: the attempts answer 429 and change nothing.
      expect((await login('lena', '198.51.100.7')).statusCode).toBe(429);
      expect((await login('lena', '198.51.100.7')).statusCode).toBe(429);
    });
    expect(locked).toEqual([{ type: 'user.locked', data: { user_name: 'lena' } }]);
    const nobody = await userEventsOf(async () => {
      for (let i = 0; i < THROTTLE.pairLimit; i++) await login('no-such-user', '198.51.100.8');
      expect((await login('no-such-user', '198.51.100.8')).statusCode).toBe(429);
    });
    expect(nobody).toEqual([]);
  });
});
