import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Envelope encryption of stored secrets (webhook secrets, later integration tokens): each record gets
 * a random 256-bit data key that encrypts it with AES-256-GCM, and the data key itself is encrypted
 * (wrapped) with the master key. Only the master key has to be kept safe and backed up; the database
 * holds nothing usable without it. Key rotation (issue 18): the keyring holds the current master key,
 * which seals, and earlier ones, which still open; `rewrap` moves a sealed value's data key under the
 * current key without touching its ciphertext (see at-rest.ts for the background job that does it).
 *
 * Sealed text: `gs1.<key id>.<wrap iv>.<wrapped data key + tag>.<iv>.<ciphertext + tag>`, base64url
 * parts; the key id (first 8 bytes of the master key's SHA-256, hex) says which master key wrapped it.
 */
export interface Secrets {
  /** Encrypts `plaintext` for storage. */
  sealSecret(plaintext: string): string;
  /** Decrypts what `sealSecret` made; throws `SecretsError` if it was made with another key or altered. */
  openSecret(sealed: string): string;
  /** Whether `value` looks like sealed text (and not a plaintext someone stored by mistake). */
  isSealed(value: string): boolean;
  /** The current master key's id (what `sealSecret` writes); earlier keys of the keyring follow in `keyIds`. */
  readonly keyId: string;
  readonly keyIds: readonly string[];
  /** The id of the master key that sealed `value`, or undefined when it is not sealed text. */
  keyIdOf(value: string): string | undefined;
  /** The same secret with its data key wrapped under the current master key (throws as `openSecret`). */
  rewrap(sealed: string): string;
}

/** A master key's id: the first 8 bytes of its SHA-256, hex (written in every sealed value). */
export function masterKeyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

export class SecretsError extends Error {
  override readonly name = 'SecretsError';
}

const VERSION = 'gs1';
const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Where the master key is kept when `GRANARY_MASTER_KEY` is not set. */
export function masterKeyFile(home: string): string {
  return path.join(home, 'security', 'master.key');
}

/** Reads a base64 master key (32 bytes), or throws naming what is wrong (never the value). */
export function parseMasterKey(text: string, where: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32) throw new SecretsError(`${where}: expected a base64-encoded 32-byte key`);
  return key;
}

/**
 * The master key: `GRANARY_MASTER_KEY` when given, else `$GRANARY_HOME/security/master.key`, created
 * (mode 0600) on the first start. Nodes sharing one database must share the key.
 */
export function loadMasterKey(opts: { home: string; masterKey?: string }): Buffer {
  if (opts.masterKey) return parseMasterKey(opts.masterKey, 'GRANARY_MASTER_KEY');
  const file = masterKeyFile(opts.home);
  if (existsSync(file)) return parseMasterKey(readFileSync(file, 'utf8'), file);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  try {
    // `wx`: a node starting at the same moment on the same home does not overwrite the other's key.
    writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST')
      return parseMasterKey(readFileSync(file, 'utf8'), file);
    throw err;
  }
  chmodSync(file, 0o600);
  return key;
}

const b64 = (b: Buffer) => b.toString('base64url');

function encrypt(key: Buffer, plaintext: Buffer): { iv: Buffer; data: Buffer } {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv);
  const data = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return { iv, data };
}

function decrypt(key: Buffer, iv: Buffer, data: Buffer): Buffer {
  if (iv.length !== IV_BYTES || data.length < TAG_BYTES) throw new SecretsError('sealed secret is malformed');
  const decipher = createDecipheriv(ALGORITHM, key, iv);
  decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
  return Buffer.concat([decipher.update(data.subarray(0, data.length - TAG_BYTES)), decipher.final()]);
}

/**
 * The previous master keys: `GRANARY_MASTER_KEY_PREVIOUS` (comma-separated base64) and the lines of
 * `$GRANARY_HOME/security/master.key.previous`, when present. They open secrets, never seal.
 */
export function loadPreviousMasterKeys(opts: { home: string; masterKeyPrevious?: string }): Buffer[] {
  const keys: Buffer[] = [];
  for (const k of (opts.masterKeyPrevious ?? '').split(','))
    if (k.trim()) keys.push(parseMasterKey(k, 'GRANARY_MASTER_KEY_PREVIOUS'));
  const file = `${masterKeyFile(opts.home)}.previous`;
  if (existsSync(file))
    for (const line of readFileSync(file, 'utf8').split('\n'))
      if (line.trim() && !line.trim().startsWith('#')) keys.push(parseMasterKey(line, file));
  return keys;
}

/** Seal with the master key (32 bytes); open with it or any of `previous` (key rotation). */
export function createSecrets(masterKey: Buffer, previous: readonly Buffer[] = []): Secrets {
  if (masterKey.length !== 32) throw new SecretsError('the master key must be 32 bytes');
  const keyId = masterKeyId(masterKey);
  const ring = new Map<string, Buffer>([[keyId, masterKey]]);
  for (const k of previous) if (!ring.has(masterKeyId(k))) ring.set(masterKeyId(k), k);
  const isSealed = (value: string) => value.startsWith(`${VERSION}.`) && value.split('.').length === 6;
  /** Unwraps a sealed value's data key with whichever keyring key wrapped it. */
  const unwrap = (parts: string[]): Buffer => {
    const key = ring.get(parts[1]!);
    if (!key)
      throw new SecretsError(
        'this secret was sealed with another master key (GRANARY_MASTER_KEY or security/master.key)',
      );
    try {
      return decrypt(key, Buffer.from(parts[2]!, 'base64url'), Buffer.from(parts[3]!, 'base64url'));
    } catch (err) {
      if (err instanceof SecretsError) throw err;
      throw new SecretsError('sealed secret could not be opened: altered or sealed with another key');
    }
  };
  const split = (sealed: string) => {
    const parts = sealed.split('.');
    if (parts.length !== 6 || parts[0] !== VERSION) throw new SecretsError('not a sealed secret');
    return parts;
  };
  return {
    keyId,
    keyIds: [...ring.keys()],
    keyIdOf: (value) => (isSealed(value) ? value.split('.')[1] : undefined),
    rewrap(sealed) {
      const parts = split(sealed);
      if (parts[1] === keyId) return sealed;
      const dataKey = unwrap(parts);
      try {
        // Proves the data key opens the ciphertext before the old wrapping is thrown away.
        decrypt(dataKey, Buffer.from(parts[4]!, 'base64url'), Buffer.from(parts[5]!, 'base64url'));
        const wrapped = encrypt(masterKey, dataKey);
        return [VERSION, keyId, b64(wrapped.iv), b64(wrapped.data), parts[4], parts[5]].join('.');
      } catch (err) {
        if (err instanceof SecretsError) throw err;
        throw new SecretsError('sealed secret could not be opened: altered or sealed with another key');
      } finally {
        dataKey.fill(0);
      }
    },
    sealSecret(plaintext) {
      const dataKey = randomBytes(32);
      try {
        const wrapped = encrypt(masterKey, dataKey);
        const sealed = encrypt(dataKey, Buffer.from(plaintext, 'utf8'));
        return [VERSION, keyId, b64(wrapped.iv), b64(wrapped.data), b64(sealed.iv), b64(sealed.data)].join(
          '.',
        );
      } finally {
        dataKey.fill(0);
      }
    },
    openSecret(sealed) {
      const parts = split(sealed);
      const dataKey = unwrap(parts);
      try {
        return decrypt(
          dataKey,
          Buffer.from(parts[4]!, 'base64url'),
          Buffer.from(parts[5]!, 'base64url'),
        ).toString('utf8');
      } catch (err) {
        if (err instanceof SecretsError) throw err;
        throw new SecretsError('sealed secret could not be opened: altered or sealed with another key');
      } finally {
        dataKey.fill(0);
      }
    },
    isSealed,
  };
}
