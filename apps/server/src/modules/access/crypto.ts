import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

/** argon2id, m = 19 MiB, t = 2, p = 1 (OWASP's minimum): ~75 ms a verification here. */
export const ARGON2_PARAMS = {
  algorithm: 2, // Algorithm.Argon2id (a const enum, not importable under verbatimModuleSyntax)
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_PARAMS);
}

export function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  return verify(passwordHash, password).catch(() => false);
}

/**
 * A hash of a random password, started at load and awaited where used: a top-level await would make
 * every module importing this one (most of the server) wait on it, and deadlocked the bundled server's
 * import cycles (scripts/build-server.mjs).
 */
const dummyHash = hashPassword(randomBytes(16).toString('hex'));

/** Spends one argon2 verification, so answers for unknown names take as long as for known ones. */
export async function spendVerification(password: string): Promise<void> {
  await verifyPassword(await dummyHash, password);
}

/** Access tokens and identity tokens start with this, so Basic auth can tell them from passwords. */
export const TOKEN_PREFIX = 'grn_';

/** A random opaque secret (256 bits), URL-safe. */
export function randomSecret(prefix = ''): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/** What is stored in place of a token, session id or reset key. */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
