import * as openpgp from 'openpgp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { createSystemHandle, findRepository } from '../repositories/repositories.api.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);

describe(`repository signing keys (issue 23: Debian and RPM index signatures, ${testEngine})`, () => {
  let t: TestApp;
  const inject = (method: string, url: string, payload?: unknown, auth: string | null = ADMIN) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: auth ? { authorization: auth } : {},
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const handleOf = async (key: string) =>
    createSystemHandle(t.app.repositories, (await findRepository(t.app.repositories.db, key))!);

  beforeAll(async () => {
    t = await createTestApp();
    for (const key of ['signed-a', 'signed-b'])
      expect(
        (await inject('PUT', `/api/repositories/${key}`, { rclass: 'local', packageType: 'generic' }))
          .statusCode,
      ).toBe(201);
  });
  afterAll(async () => t?.close());

  it('issue 23: a repository that names no key gets its own on first use, kept (one key however often asked), its public half served to readers only', async () => {
    const first = await inject('GET', '/api/security/keypair/public/repositories/signed-a');
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain('-----BEGIN PGP PUBLIC KEY BLOCK-----');
    const again = await inject('GET', '/api/security/keypair/public/repositories/signed-a');
    expect(again.body).toBe(first.body);
    const keys = (await inject('GET', '/api/security/keypair')).json() as { pairName: string }[];
    expect(keys.filter((k) => k.pairName === 'repo-signed-a')).toHaveLength(1);
    expect(JSON.stringify(keys)).not.toContain('PRIVATE KEY');
    // a private repository's key is not shown to anonymous callers; an unknown repository is 404 to admins
    expect(
      (await inject('GET', '/api/security/keypair/public/repositories/signed-a', undefined, null)).statusCode,
    ).toBe(401);
    expect((await inject('GET', '/api/security/keypair/public/repositories/nope')).statusCode).toBe(404);
  });

  it('issue 23: signatures (detached and cleartext) verify with the served public key and fail on altered bytes', async () => {
    const handle = await handleOf('signed-b');
    const publicKey = await openpgp.readKey({ armoredKey: await handle.signing.publicKey() });
    expect(await handle.signing.fingerprint()).toBe(publicKey.getFingerprint().toUpperCase());
    const data = Buffer.from('Origin: Granary\nSuite: stable\n');
    const detached = await handle.signing.signDetached(data);
    const check = async (bytes: Buffer) => {
      const { signatures } = await openpgp.verify({
        message: await openpgp.createMessage({ binary: new Uint8Array(bytes) }),
        signature: await openpgp.readSignature({ armoredSignature: detached }),
        verificationKeys: publicKey,
      });
      return signatures[0]!.verified.then(
        () => true,
        () => false,
      );
    };
    expect(await check(data)).toBe(true);
    expect(await check(Buffer.from('Origin: Granary\nSuite: evil\n'))).toBe(false);
    const clear = await handle.signing.clearsign('Origin: Granary\nSuite: stable\n');
    expect(clear).toMatch(/^-----BEGIN PGP SIGNED MESSAGE-----/);
    const read = await openpgp.readCleartextMessage({ cleartextMessage: clear });
    const verified = await openpgp.verify({ message: read, verificationKeys: publicKey });
    await expect(verified.signatures[0]!.verified).resolves.toBe(true);
    expect(verified.data).toContain('Suite: stable');
  });

  it("issue 23: primaryKeyPairRef names an existing signing key (Artifactory's field); an unknown one is refused on save", async () => {
    const bad = await inject('POST', '/api/repositories/signed-b', { primaryKeyPairRef: 'no-such-key' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain("no signing key named 'no-such-key'");
    expect((await inject('GET', '/api/repositories/signed-b')).json()).not.toHaveProperty(
      'primaryKeyPairRef',
    );
    const made = await inject('POST', '/api/security/keypair', {
      pairName: 'org-release',
      userName: 'Org Releases',
      email: 'release@example.org',
      algorithm: 'curve25519',
    });
    expect(made.statusCode).toBe(201);
    expect(
      (await inject('POST', '/api/repositories/signed-b', { primaryKeyPairRef: 'org-release' })).statusCode,
    ).toBe(200);
    expect((await inject('GET', '/api/repositories/signed-b')).json()).toMatchObject({
      primaryKeyPairRef: 'org-release',
    });
    const served = await inject('GET', '/api/security/keypair/public/repositories/signed-b');
    expect(served.body).toBe((await inject('GET', '/api/security/keypair/org-release/public')).body);
  });
});
