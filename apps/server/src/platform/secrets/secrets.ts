import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Envelope encryption of stored secrets (webhook secrets, later integration tokens): each record gets
 * a random 256-bit data key that encrypts it with AES-256-GCM, and the data key itself is encrypted
 * (wrapped) with the master key. Only the master key has to be kept safe and backed up; the database
 * holds nothing usable without it. Key rotation (re-wrapping under a new master key) is issue 18.
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

/** Seal and open with one master key (32 bytes). */
export function createSecrets(masterKey: Buffer): Secrets {
  if (masterKey.length !== 32) throw new SecretsError('the master key must be 32 bytes');
  const keyId = createHash('sha256').update(masterKey).digest('hex').slice(0, 16);
  return {
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
      const parts = sealed.split('.');
      if (parts.length !== 6 || parts[0] !== VERSION) throw new SecretsError('not a sealed secret');
      if (parts[1] !== keyId)
        throw new SecretsError(
          'this secret was sealed with another master key (GRANARY_MASTER_KEY or security/master.key)',
        );
      const [wrapIv, wrapped, iv, data] = parts.slice(2).map((p) => Buffer.from(p, 'base64url')) as [
        Buffer,
        Buffer,
        Buffer,
        Buffer,
      ];
      let dataKey: Buffer;
      try {
        dataKey = decrypt(masterKey, wrapIv, wrapped);
      } catch (err) {
        if (err instanceof SecretsError) throw err;
        throw new SecretsError('sealed secret could not be opened: altered or sealed with another key');
      }
      try {
        return decrypt(dataKey, iv, data).toString('utf8');
      } catch (err) {
        if (err instanceof SecretsError) throw err;
        throw new SecretsError('sealed secret could not be opened: altered or sealed with another key');
      } finally {
        dataKey.fill(0);
      }
    },
    isSealed(value) {
      return value.startsWith(`${VERSION}.`) && value.split('.').length === 6;
    },
  };
}
