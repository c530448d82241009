import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSecrets, loadMasterKey, loadPreviousMasterKeys, masterKeyFile, masterKeyId } from './index.ts';

describe('platform/secrets: envelope encryption of stored secrets (issue 14)', () => {
  const homes: string[] = [];
  afterAll(async () => {
    for (const h of homes) await rm(h, { recursive: true, force: true });
  });

  it('seals with AES-256-GCM under a fresh data key each time, and opens what it sealed', () => {
    const secrets = createSecrets(randomBytes(32));
    const a = secrets.sealSecret('hunter2-long-secret');
    const b = secrets.sealSecret('hunter2-long-secret');
    expect(a).not.toBe(b);
    expect(a).not.toContain('hunter2');
    expect(secrets.isSealed(a)).toBe(true);
    expect(secrets.openSecret(a)).toBe('hunter2-long-secret');
    expect(secrets.openSecret(secrets.sealSecret(''))).toBe('');
    expect(secrets.openSecret(secrets.sealSecret('ünïcødé ✓'))).toBe('ünïcødé ✓');
  });

  it('refuses altered sealed text and text sealed under another master key', () => {
    const secrets = createSecrets(randomBytes(32));
    const sealed = secrets.sealSecret('value');
    const parts = sealed.split('.');
    const last = Buffer.from(parts[5]!, 'base64url');
    last[0]! ^= 1;
    parts[5] = last.toString('base64url');
    expect(() => secrets.openSecret(parts.join('.'))).toThrow(/altered/);
    expect(() => createSecrets(randomBytes(32)).openSecret(sealed)).toThrow(/another master key/);
    expect(() => secrets.openSecret('plain')).toThrow(/not a sealed secret/);
  });

  it('GRANARY_MASTER_KEY wins; otherwise $GRANARY_HOME/security/master.key is created 0600 on the first start and reused', async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), 'granary-secrets-'));
    homes.push(home);
    const given = randomBytes(32);
    expect(loadMasterKey({ home, masterKey: given.toString('base64') }).equals(given)).toBe(true);
    await expect(stat(masterKeyFile(home))).rejects.toThrow();
    const created = loadMasterKey({ home });
    expect((await stat(masterKeyFile(home))).mode & 0o777).toBe(0o600);
    expect(Buffer.from((await readFile(masterKeyFile(home), 'utf8')).trim(), 'base64').equals(created)).toBe(
      true,
    );
    expect(loadMasterKey({ home }).equals(created)).toBe(true);
    expect(() => loadMasterKey({ home, masterKey: 'c2hvcnQ=' })).toThrow(
      /GRANARY_MASTER_KEY: expected a base64-encoded 32-byte key/,
    );
  });

  it('issue 18: a keyring opens values of a previous key and re-wraps them under the current one without changing the secret', async () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const sealed = createSecrets(oldKey).sealSecret('remote-pa55');
    const ring = createSecrets(newKey, [oldKey]);
    expect(ring.keyId).toBe(masterKeyId(newKey));
    expect(ring.keyIds).toEqual([masterKeyId(newKey), masterKeyId(oldKey)]);
    expect(ring.keyIdOf(sealed)).toBe(masterKeyId(oldKey));
    expect(ring.openSecret(sealed)).toBe('remote-pa55');
    const rewrapped = ring.rewrap(sealed);
    expect(ring.keyIdOf(rewrapped)).toBe(masterKeyId(newKey));
    expect(createSecrets(newKey).openSecret(rewrapped)).toBe('remote-pa55');
    expect(() => createSecrets(oldKey).openSecret(rewrapped)).toThrow(/another master key/);
    expect(() => createSecrets(newKey).rewrap(sealed)).toThrow(/another master key/);

    const home = await mkdtemp(path.join(os.tmpdir(), 'granary-secrets-'));
    homes.push(home);
    const a = randomBytes(32);
    const b = randomBytes(32);
    const { writeFile, mkdir } = await import('node:fs/promises');
    await mkdir(path.dirname(masterKeyFile(home)), { recursive: true });
    await writeFile(`${masterKeyFile(home)}.previous`, `# rotated 2026-11\n${b.toString('base64')}\n`);
    const keys = loadPreviousMasterKeys({ home, masterKeyPrevious: a.toString('base64') });
    expect(keys.map((k) => k.toString('hex'))).toEqual([a.toString('hex'), b.toString('hex')]);
  });
});
