import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SESSION_COOKIE } from '@granary/contracts';
import { sql } from 'drizzle-orm';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { generate, generateSecret } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.ts';
import { basicAuth, makeTempHome, TEST_ADMIN_PASSWORD, testConfig } from '../../testing/index.ts';
import { type Db, queryRows } from '../db/index.ts';
import { masterKeyFile, masterKeyId, REWRAP_JOB, sealedColumns } from './index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const V1 = '/ui/api/v1';
const CSRF = { 'x-granary-csrf': '1' };
const USER_PW = 'Mfa-user-Pa55word!';
const REMOTE_PW = 'Upstream-pw-4471';
const WEBHOOK_SECRET = 'Webhook-secret-0193';
const PROXY_PW = 'Pr0xy-pw-5520';
const MAIL_PW = 'Mail-pw-7736';
const K1 = randomBytes(32).toString('base64');
const K2 = randomBytes(32).toString('base64');
const id = (k: string) => masterKeyId(Buffer.from(k, 'base64'));

/** Every value of every registered sealed column (inside JSON ones too), read with SQL. */
async function storedSecrets(db: Db): Promise<string[]> {
  const out: string[] = [];
  for (const c of sealedColumns()) {
    const rows = await queryRows<{ v: unknown }>(
      db,
      sql`select ${sql.identifier(c.column)} as v from ${sql.identifier(c.table)} where ${sql.identifier(c.column)} is not null`,
    );
    for (const { v } of rows)
      if (c.each)
        c.each(v, (s) => {
          out.push(s);
          return s;
        });
      else if (typeof v === 'string' && v) out.push(v);
  }
  return out;
}

/** The rows of the tables that hold secrets, as JSON text: what someone with the database sees. */
async function dump(db: Db): Promise<string> {
  const parts: string[] = [];
  for (const table of ['users', 'repositories', 'webhook_subscriptions', 'proxies', 'security_settings'])
    parts.push(
      ...(
        await queryRows<{ j: string }>(
          db,
          sql`select row_to_json(t)::text as j from ${sql.identifier(table)} t`,
        )
      ).map((r) => r.j),
    );
  return parts.join('\n');
}

// Each step restarts the server on its own embedded database folder (as a real restart): slow on a busy machine.
describe('issue 18: secrets at rest — sealed in the database, migrated, checked and rotated', {
  timeout: 300_000,
}, () => {
  let home: string;
  let upstream: Server;
  let base: string;
  const seen: string[] = [];
  let app: FastifyInstance | undefined;
  let mfaSeed = '';

  const start = (masterKey: string, masterKeyPrevious?: string) =>
    buildApp(
      testConfig(home, {
        masterKey,
        ...(masterKeyPrevious ? { masterKeyPrevious } : {}),
        outboundAllowlist: '127.0.0.1',
      }),
      { print: () => {} },
    );
  const inject = (opts: InjectOptions) => app!.inject(opts);
  const db = () => app!.granary.database.db;

  /** Signs `mira` in on the console with her password and a TOTP code of `seed`: the verify answer. */
  async function signInWithCode(seed: string, epochOffset = 0) {
    const login = await inject({
      method: 'POST',
      url: `${V1}/ui/auth/login`,
      payload: { user: 'mira', password: USER_PW, type: 'login' },
    });
    expect(login.statusCode, login.body).toBe(200);
    const m = new RegExp(`${SESSION_COOKIE}=([^;]*)`).exec(String(login.headers['set-cookie'] ?? ''));
    return inject({
      method: 'POST',
      url: `${V1}/auth/mfa/verify/GOOGLE`,
      headers: { cookie: `${SESSION_COOKIE}=${m?.[1]}`, ...CSRF },
      payload: { otp: await generate({ secret: seed, epoch: Math.floor(Date.now() / 1000) + epochOffset }) },
    });
  }

  /** A file through the remote: the loopback upstream answers only with the right Basic credentials. */
  async function fetchThroughRemote(path: string) {
    seen.length = 0;
    const res = await inject({ url: `/repository/up-remote/${path}`, headers: { authorization: ADMIN } });
    return { status: res.statusCode, body: res.body, auth: seen[0] };
  }

  beforeAll(async () => {
    home = await makeTempHome();
    upstream = createServer((req, res) => {
      seen.push(String(req.headers.authorization ?? ''));
      if (req.method === 'POST') return void res.writeHead(204).end();
      if (req.headers.authorization !== basicAuth('mirror', REMOTE_PW))
        return void res.writeHead(401, { 'www-authenticate': 'Basic realm="up"' }).end();
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`content of ${req.url}`);
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app?.close();
    await new Promise((r) => upstream?.close(r));
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('issue 18: after MFA enrolment and saving a remote password, a webhook secret, a proxy password and a mail password, SQL finds none of them in plaintext', async () => {
    app = await start(K1);
    await inject({
      method: 'PUT',
      url: '/api/security/users/mira',
      headers: { authorization: ADMIN },
      payload: { password: USER_PW },
    });
    const login = await inject({
      method: 'POST',
      url: `${V1}/ui/auth/login`,
      payload: { user: 'mira', password: USER_PW, type: 'login' },
    });
    const cookie = `${SESSION_COOKIE}=${new RegExp(`${SESSION_COOKIE}=([^;]*)`).exec(String(login.headers['set-cookie']))?.[1]}`;
    mfaSeed = (await inject({ url: `${V1}/auth/mfa/enroll/GOOGLE`, headers: { cookie } })).json().secret;
    // While enrolling, the pending seed is sealed too.
    expect(await dump(db())).not.toContain(mfaSeed);
    const verified = await inject({
      method: 'POST',
      url: `${V1}/auth/mfa/verify/GOOGLE`,
      headers: { cookie, ...CSRF },
      payload: { otp: await generate({ secret: mfaSeed }) },
    });
    expect(verified.statusCode, verified.body).toBe(200);

    const remote = await inject({
      method: 'PUT',
      url: '/api/repositories/up-remote',
      headers: { authorization: ADMIN },
      payload: { rclass: 'remote', url: `${base}/files`, username: 'mirror', password: REMOTE_PW },
    });
    expect(remote.statusCode, remote.body).toBe(201);
    const hook = await inject({
      method: 'POST',
      url: '/event/api/v1/subscriptions',
      headers: { authorization: ADMIN },
      payload: {
        key: 'sealed-hook',
        description: 'issue 18',
        enabled: true,
        event_filter: { domain: 'artifact', event_types: ['deployed'], criteria: { anyLocal: true } },
        handlers: [{ handler_type: 'webhook', url: `${base}/hook`, secret: WEBHOOK_SECRET }],
      },
    });
    expect(hook.statusCode, hook.body).toBeLessThan(300);
    const proxy = await inject({
      method: 'POST',
      url: `${V1}/ui/proxies`,
      headers: { authorization: ADMIN },
      payload: { key: 'corp', host: 'proxy.example.com', port: 3128, username: 'svc', password: PROXY_PW },
    });
    expect(proxy.statusCode, proxy.body).toBe(201);
    const mail = await inject({
      method: 'PATCH',
      url: '/api/security/configuration',
      headers: { authorization: ADMIN },
      payload: { mail: { host: 'smtp.example.com', username: 'granary', password: MAIL_PW } },
    });
    expect(mail.statusCode, mail.body).toBe(200);

    const text = await dump(db());
    for (const secret of [mfaSeed, REMOTE_PW, WEBHOOK_SECRET, PROXY_PW, MAIL_PW])
      expect(text).not.toContain(secret);
    const stored = await storedSecrets(db());
    expect(stored.length).toBeGreaterThanOrEqual(6); // seed, remote, webhook, proxy, mail, the key check
    for (const value of stored) expect(value.startsWith(`gs1.${id(K1)}.`), value.slice(0, 30)).toBe(true);
    expect(stored.map((v) => app!.granary.secrets.openSecret(v))).toEqual(
      expect.arrayContaining([mfaSeed, REMOTE_PW, WEBHOOK_SECRET, PROXY_PW, MAIL_PW]),
    );
    // Write-only: no answer carries them.
    for (const url of [
      '/api/repositories/up-remote',
      '/event/api/v1/subscriptions/sealed-hook',
      '/api/proxies/corp',
      '/api/security/configuration',
    ])
      for (const secret of [REMOTE_PW, WEBHOOK_SECRET, PROXY_PW, MAIL_PW])
        expect((await inject({ url, headers: { authorization: ADMIN } })).body).not.toContain(secret);
    // The remote authenticates upstream with the opened password.
    const file = await fetchThroughRemote('a.txt');
    expect(file.status, file.body).toBe(200);
    expect(file.auth).toBe(basicAuth('mirror', REMOTE_PW));
  });

  it('issue 18: plaintext rows written by SQL are sealed at the next start, and the same master key reads them: the remote still authenticates upstream, the MFA user still signs in with a TOTP code', async () => {
    mfaSeed = generateSecret();
    await db().execute(
      sql`update users set mfa_secret = ${mfaSeed}, mfa_last_step = null where name = 'mira'`,
    );
    await db().execute(sql`update repositories set remote_password = ${REMOTE_PW} where key = 'up-remote'`);
    await db().execute(sql`update proxies set password = ${PROXY_PW} where key = 'corp'`);
    await db().execute(
      sql`update webhook_subscriptions set handlers = jsonb_set(handlers, '{0,secret}', to_jsonb(${WEBHOOK_SECRET}::text))`,
    );
    await db().execute(
      sql`update security_settings set value = jsonb_set(value, '{mail,password}', to_jsonb(${MAIL_PW}::text)) where key = 'security'`,
    );
    expect(await dump(db())).toContain(REMOTE_PW);
    await app!.close();

    app = await start(K1);
    const text = await dump(db());
    for (const secret of [mfaSeed, REMOTE_PW, WEBHOOK_SECRET, PROXY_PW, MAIL_PW])
      expect(text).not.toContain(secret);
    for (const value of await storedSecrets(db())) expect(app.granary.secrets.isSealed(value)).toBe(true);

    const file = await fetchThroughRemote('b.txt');
    expect(file.status, file.body).toBe(200);
    expect(file.auth).toBe(basicAuth('mirror', REMOTE_PW));
    const signIn = await signInWithCode(mfaSeed);
    expect(signIn.statusCode, signIn.body).toBe(200);
    // A second start finds nothing left to seal (idempotent): the values stay as they are.
    const before = await storedSecrets(db());
    await app.close();
    app = await start(K1);
    expect(await storedSecrets(db())).toEqual(before);
  });

  it('issue 18: a wrong master key fails start-up with a clear message naming both key ids and what to do', async () => {
    await app!.close();
    app = undefined;
    await expect(start(K2)).rejects.toThrow(
      `The master key does not match the one this database was encrypted with (key id ${id(K2)}, expected ${id(K1)}): ` +
        `set GRANARY_MASTER_KEY or restore ${masterKeyFile(home)}`,
    );
  });

  it('issue 18: rotation — with the new key and the old one as previous, the background job re-wraps every value; afterwards nothing is under the old key and everything opens with the new key alone', async () => {
    app = await start(K2, K1);
    // The remote works during the rotation (the old key still opens).
    expect((await fetchThroughRemote('c.txt')).status).toBe(200);
    let result: { remaining?: number; plaintext?: number; rewrapped?: number } = {};
    for (let i = 0; i < 50; i++) {
      const run = await inject({
        method: 'POST',
        url: `/api/system/jobs/${REWRAP_JOB}/run`,
        headers: { authorization: ADMIN },
      });
      if (run.statusCode === 200) {
        result = run.json().result;
        if (result.remaining === 0) break;
      } else expect(run.statusCode, run.body).toBe(409); // the start-up run is still going
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(result).toMatchObject({ remaining: 0, plaintext: 0 });
    const status = (await inject({ url: '/api/system/jobs', headers: { authorization: ADMIN } })).json();
    expect(JSON.stringify(status)).toContain(REWRAP_JOB);
    for (const value of await storedSecrets(db())) expect(value.startsWith(`gs1.${id(K2)}.`)).toBe(true);
    await app.close();

    app = await start(K2);
    const opened = (await storedSecrets(db())).map((v) => app!.granary.secrets.openSecret(v));
    expect(opened).toEqual(expect.arrayContaining([mfaSeed, REMOTE_PW, WEBHOOK_SECRET, PROXY_PW, MAIL_PW]));
    const file = await fetchThroughRemote('d.txt');
    expect(file.status, file.body).toBe(200);
    expect(file.auth).toBe(basicAuth('mirror', REMOTE_PW));
    const signIn = await signInWithCode(mfaSeed, 30);
    expect(signIn.statusCode, signIn.body).toBe(200);
    // The old key alone no longer matches the database.
    await app.close();
    app = undefined;
    await expect(start(K1)).rejects.toThrow(/The master key does not match/);
  });
});
