import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SESSION_COOKIE, ssoProviderWriteSchema } from '@granary/contracts';
import { Client } from 'ldapts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCert } from '../../../testing/self-signed-cert.ts';
import { freePort } from '../../../testing/server-process.ts';
import { basicAuth, createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../../testing/test-app.ts';
import { LDAP_UNREACHABLE_MESSAGE } from './ldap.ts';
import { putProvider } from './providers.service.ts';

/**
 * Acceptance (issue 20, LDAP): Debian's `slapd` started by the test on a free loopback port with its
 * own configuration (mdb backend) and a small directory (users, groups) written with a real LDAP client;
 * a real Granary server on loopback signs users in through it.
 */
const SUFFIX = 'dc=example,dc=test';
const ROOT_DN = `cn=admin,${SUFFIX}`;
const ROOT_PW = 'Root-secret-1';
const SEARCH_DN = `cn=granary,ou=services,${SUFFIX}`;
const SEARCH_PW = 'Search-secret-1';

interface Slapd {
  /** ldap:// (StartTLS offered) */
  url: string;
  /** ldaps:// */
  tlsUrl: string;
  /** The server certificate (self-signed, for 127.0.0.1): the CA a provider trusts. */
  caPem: string;
  stop(): Promise<void>;
}

async function startSlapd(dir: string): Promise<Slapd> {
  const port = await freePort();
  const tlsPort = await freePort();
  await mkdir(path.join(dir, 'db'), { recursive: true });
  await selfSignedCert(dir);
  const conf = path.join(dir, 'slapd.conf');
  await writeFile(
    conf,
    [
      'include /etc/ldap/schema/core.schema',
      'include /etc/ldap/schema/cosine.schema',
      'include /etc/ldap/schema/nis.schema',
      'include /etc/ldap/schema/inetorgperson.schema',
      'modulepath /usr/lib/ldap',
      'moduleload back_mdb',
      `pidfile ${dir}/slapd.pid`,
      `argsfile ${dir}/slapd.args`,
      `TLSCertificateFile ${dir}/cert.pem`,
      `TLSCertificateKeyFile ${dir}/key.pem`,
      'database mdb',
      'maxsize 16777216',
      `suffix "${SUFFIX}"`,
      `rootdn "${ROOT_DN}"`,
      `rootpw ${ROOT_PW}`,
      `directory ${dir}/db`,
      // Passwords: each entry binds with its own; nobody reads them.
      'access to attrs=userPassword by self write by anonymous auth by * none',
      'access to * by users read by * none',
      '',
    ].join('\n'),
  );
  const url = `ldap://127.0.0.1:${port}`;
  const tlsUrl = `ldaps://127.0.0.1:${tlsPort}`;
  const child: ChildProcess = spawn('/usr/sbin/slapd', ['-f', conf, '-h', `${url}/ ${tlsUrl}/`, '-d', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 20_000;
  for (;;) {
    const client = new Client({ url, connectTimeout: 1000, timeout: 1000 });
    try {
      await client.bind(ROOT_DN, ROOT_PW);
      await client.unbind();
      break;
    } catch (err) {
      await client.unbind().catch(() => {});
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`slapd did not start: ${err instanceof Error ? err.message : err}\n${stderr}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return {
    url,
    tlsUrl,
    caPem: await readFile(path.join(dir, 'cert.pem'), 'utf8'),
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

/** The test directory: a search user, four people (one disabled), two groups. */
async function fillDirectory(url: string): Promise<void> {
  const client = new Client({ url, timeout: 5000 });
  await client.bind(ROOT_DN, ROOT_PW);
  const person = (uid: string, extra: Record<string, string | string[]> = {}) => ({
    objectClass: ['inetOrgPerson', ...(extra.shadowExpire ? ['shadowAccount'] : [])],
    uid,
    cn: uid,
    sn: uid,
    mail: `${uid}@example.test`,
    userPassword: `${uid[0]!.toUpperCase()}${uid.slice(1)}-pass-1`,
    ...extra,
  });
  await client.add(SUFFIX, { objectClass: ['dcObject', 'organization'], dc: 'example', o: 'Example' });
  for (const ou of ['people', 'groups', 'services'])
    await client.add(`ou=${ou},${SUFFIX}`, { objectClass: 'organizationalUnit', ou });
  await client.add(SEARCH_DN, {
    objectClass: ['organizationalRole', 'simpleSecurityObject'],
    cn: 'granary',
    userPassword: SEARCH_PW,
  });
  await client.add(`uid=carol,ou=people,${SUFFIX}`, person('carol'));
  await client.add(`uid=dave,ou=people,${SUFFIX}`, person('dave'));
  // shadowExpire 1: the account expired on 2 January 1970 (RFC 2307): disabled.
  await client.add(`uid=erin,ou=people,${SUFFIX}`, person('erin', { shadowExpire: '1' }));
  // A name with filter metacharacters: only an escaped filter finds exactly this entry.
  await client.add(`uid=star*,ou=people,${SUFFIX}`, person('star*'));
  await client.add(`cn=developers,ou=groups,${SUFFIX}`, {
    objectClass: 'groupOfNames',
    cn: 'developers',
    member: [`uid=carol,ou=people,${SUFFIX}`, `uid=dave,ou=people,${SUFFIX}`],
  });
  await client.add(`cn=release-managers,ou=groups,${SUFFIX}`, {
    objectClass: 'groupOfNames',
    cn: 'release-managers',
    member: [`uid=carol,ou=people,${SUFFIX}`],
  });
  await client.unbind();
}

describe('LDAP sign-in against a real slapd (issue 20)', () => {
  let dir: string;
  let slapd: Slapd;
  let t: TestApp;
  let base: string;

  const login = (user: string, password: string) =>
    fetch(`${base}/ui/api/v1/ui/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user, password }),
    });

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'granary-slapd-'));
    slapd = await startSlapd(dir);
    await fillDirectory(slapd.url);
    t = await createTestApp({ adminPassword: TEST_ADMIN_PASSWORD });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    await corp();
  }, 120_000);

  /** (Re)configures the one LDAP provider; the bind password kept when not given (write-only). */
  const corp = (extra: Record<string, unknown> = {}) =>
    putProvider(
      t.app.access.context,
      { principal: null, ip: '127.0.0.1', requestId: 'test', baseUrl: base, mailBaseUrl: null, https: false },
      'corp',
      ssoProviderWriteSchema.parse({
        type: 'ldap',
        name: 'Corporate directory',
        url: slapd.url,
        bindDn: SEARCH_DN,
        bindPassword: SEARCH_PW,
        userSearchBase: `ou=people,${SUFFIX}`,
        userSearchFilter: '(uid={0})',
        groupSearchBase: `ou=groups,${SUFFIX}`,
        groupSearchFilter: '(member={0})',
        timeoutMs: 2000,
        autoCreateUsers: true,
        mapping: { createMissingGroups: true },
        ...extra,
      }),
    );

  afterAll(async () => {
    await t?.close();
    await slapd?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('issue 20: a directory user signs in on the login form, is created with realm ldap and the mapped groups', async () => {
    const res = await login('carol', 'Carol-pass-1');
    expect(res.status).toBe(200);
    const data = (await res.json()) as { name: string; realm: string; email: string; groups: string[] };
    expect(data).toMatchObject({ name: 'carol', realm: 'ldap', email: 'carol@example.test' });
    expect([...data.groups].sort()).toEqual(['developers', 'release-managers']);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
    expect(cookie).toBeDefined();
    // The user exists in Granary now: no local password, realm ldap.
    const user = await fetch(`${base}/api/security/users/carol`, {
      headers: { authorization: basicAuth('admin', TEST_ADMIN_PASSWORD) },
    });
    expect(user.status).toBe(200);
    expect(await user.json()).toMatchObject({
      name: 'carol',
      groups: expect.arrayContaining(['developers']),
    });
  });

  it('issue 20: an LDAP user authenticates with HTTP Basic (REST API and clients), a wrong password is refused', async () => {
    const ok = await fetch(`${base}/api/repositories`, {
      headers: { authorization: basicAuth('dave', 'Dave-pass-1') },
    });
    expect(ok.status).toBe(200);
    const wrong = await fetch(`${base}/api/repositories`, {
      headers: { authorization: basicAuth('dave', 'not-his-password') },
    });
    expect(wrong.status).toBe(401);
  });

  it('issue 20: a wrong password, an unknown name and a name with filter metacharacters are refused', async () => {
    expect((await login('carol', 'wrong-password')).status).toBe(401);
    expect((await login('nobody', 'Nobody-pass-1')).status).toBe(401);
    // `*` escaped in the filter: "c*" does not match carol.
    expect((await login('c*', 'Carol-pass-1')).status).toBe(401);
    // An empty password is never an (unauthenticated) bind.
    expect((await login('carol', '')).status).toBeGreaterThanOrEqual(400);
    const [last] = (await t.app.access.context.audit.recent(10)).filter((e) => e.action === 'login.failure');
    expect(last?.actor).toBe('c*');
  });

  it('issue 20: a disabled directory account is refused even with its right password', async () => {
    const res = await login('erin', 'Erin-pass-1');
    expect(res.status).toBe(401);
    const [last] = (await t.app.access.context.audit.recent(10)).filter((e) => e.action === 'login.failure');
    expect(last).toMatchObject({
      actor: 'erin',
      details: { reason: 'user disabled', directory: 'ldap corp: disabled' },
    });
  });

  it('issue 20: StartTLS and LDAPS with the directory’s CA sign in; an untrusted certificate is refused', async () => {
    await corp({ startTls: true, tlsCaPem: slapd.caPem });
    expect((await login('dave', 'Dave-pass-1')).status).toBe(200);
    await corp({ url: slapd.tlsUrl, tlsCaPem: slapd.caPem });
    expect((await login('dave', 'Dave-pass-1')).status).toBe(200);
    // Without the CA the certificate is not trusted: nothing is sent to that server.
    await corp({ url: slapd.tlsUrl, tlsCaPem: null });
    const untrusted = await login('dave', 'Dave-pass-1');
    expect(untrusted.status).toBe(502);
    await corp();
  });

  it("issue 20: the admin screen's Test connection binds as the search user and names the step that failed; admins only", async () => {
    const test = (auth: string) =>
      fetch(`${base}/ui/api/v1/sso/corp/ldap/test`, { method: 'POST', headers: { authorization: auth } });
    const ok = await test(basicAuth('admin', TEST_ADMIN_PASSWORD));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ ok: true, message: expect.stringContaining('Connected to') });
    await corp({ bindPassword: 'not-the-search-password' });
    try {
      const wrong = await test(basicAuth('admin', TEST_ADMIN_PASSWORD));
      expect(await wrong.json()).toMatchObject({
        ok: false,
        message: expect.stringContaining(`LDAP bind as ${SEARCH_DN} failed`),
      });
    } finally {
      await corp();
    }
    // dave (signed in above, realm ldap) is no admin.
    expect((await test(basicAuth('dave', 'Dave-pass-1'))).status).toBe(403);
  });

  it('issue 20: a directory that accepts connections but never answers fails within the timeout', async () => {
    const silent: Server = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      await corp({ url: `ldap://127.0.0.1:${(silent.address() as AddressInfo).port}`, timeoutMs: 1000 });
      const started = Date.now();
      const res = await login('carol', 'Carol-pass-1');
      expect(res.status).toBe(502);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      silent.close();
      await corp();
    }
  });

  it('issue 20: the directory down — a clear message within the timeout, and the local admin still signs in', async () => {
    await slapd.stop();
    const started = Date.now();
    const res = await login('carol', 'Carol-pass-1');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(res.status).toBe(502);
    expect(
      ((await res.json()) as { message?: string; errors?: { message: string }[] }).errors?.[0]?.message ?? '',
    ).toBe(LDAP_UNREACHABLE_MESSAGE);
    // A client with an LDAP user's Basic credentials (not in the short-lived credential cache) is told
    // the same, not "wrong password".
    const basic = await fetch(`${base}/api/repositories`, {
      headers: { authorization: basicAuth('carol', 'Carol-pass-1') },
    });
    expect(basic.status).toBe(502);
    const admin = await login('admin', TEST_ADMIN_PASSWORD);
    expect(admin.status).toBe(200);
    expect(((await admin.json()) as { name: string }).name).toBe('admin');
  });
});
