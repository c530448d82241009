import { randomBytes } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Db } from '../../platform/db/index.ts';
import { findUserByName, insertUserIfAbsent, type UserRow } from './access.queries.ts';
import { hashPassword, sha256, verifyPassword } from './crypto.ts';
import { readSetting, writeSetting } from './settings.queries.ts';

export { CredentialCache } from './credential-cache.ts';
export { ARGON2_PARAMS, hashPassword } from './crypto.ts';
export { Authorizer, type ResourceRef } from './permissions.service.ts';

export const FIRST_ADMIN_NAME = 'admin';
export const INITIAL_PASSWORD_FILE = 'initial-admin-password';

/**
 * On first start (no users at all) creates `admin` with `GRANARY_ADMIN_PASSWORD`, or a generated
 * password printed once to stdout and written to `$GRANARY_HOME/initial-admin-password` (0600).
 * Safe when several nodes start at once: only the node whose insert lands writes the password.
 */
export async function ensureFirstAdmin(
  db: Db,
  opts: { home: string; password?: string; log: Logger; print?: (line: string) => void },
): Promise<{ created: boolean; generated: boolean }> {
  if (await findUserByName(db, FIRST_ADMIN_NAME)) return { created: false, generated: false };
  const generated = !opts.password;
  const password = opts.password ?? randomBytes(18).toString('base64url');
  const created = await insertUserIfAbsent(db, {
    name: FIRST_ADMIN_NAME,
    passwordHash: await hashPassword(password),
    admin: true,
  });
  if (!created) return { created: false, generated: false };
  if (generated) {
    const admin = await findUserByName(db, FIRST_ADMIN_NAME);
    if (admin?.passwordHash) await rememberGeneratedPassword(db, admin);
    const file = path.join(opts.home, INITIAL_PASSWORD_FILE);
    await writeFile(file, `${password}\n`, { mode: 0o600 });
    await chmod(file, 0o600);
    // Printed once, straight to the terminal: never through the logger, so no log file holds it.
    (opts.print ?? ((line) => process.stdout.write(`${line}\n`)))(
      `Granary: the first administrator is "${FIRST_ADMIN_NAME}" with the generated password ${password} (also in ${file})`,
    );
    opts.log.warn({ file }, 'created the first administrator with a generated password');
  } else {
    opts.log.info('created the first administrator with the password from GRANARY_ADMIN_PASSWORD');
  }
  return { created, generated };
}

/** Settings key of the generated first-admin password's fingerprint (a digest of its hash, not the hash). */
const GENERATED_PASSWORD_KEY = 'first-admin-generated-password';

async function rememberGeneratedPassword(db: Db, admin: UserRow): Promise<void> {
  await writeSetting(db, GENERATED_PASSWORD_KEY, {
    userId: admin.id,
    hashDigest: sha256(admin.passwordHash!),
  });
}

/**
 * Whether `user` is the first administrator still signing in with the password generated at
 * installation (issue 12 §23: start-up warns and the console nags until it changes). Any new
 * password gives a new argon2 hash (a new salt), so comparing hashes says whether it changed.
 */
export async function initialAdminPasswordUnchanged(db: Db, user: UserRow): Promise<boolean> {
  if (!user.passwordHash || user.name.toLowerCase() !== FIRST_ADMIN_NAME) return false;
  const stored = (await readSetting(db, GENERATED_PASSWORD_KEY)) as
    | { userId?: string; hashDigest?: string }
    | undefined;
  return stored?.userId === user.id && stored.hashDigest === sha256(user.passwordHash);
}

/**
 * An installation made before the fingerprint existed: if `initial-admin-password` still opens the
 * admin account, remember it as generated (one argon2 verification at start).
 */
export async function adoptInitialPasswordFile(db: Db, home: string): Promise<void> {
  if (await readSetting(db, GENERATED_PASSWORD_KEY)) return;
  const admin = await findUserByName(db, FIRST_ADMIN_NAME);
  if (!admin?.passwordHash) return;
  let password: string;
  try {
    password = (await readFile(path.join(home, INITIAL_PASSWORD_FILE), 'utf8')).trim();
  } catch {
    return;
  }
  if (password && (await verifyPassword(admin.passwordHash, password)))
    await rememberGeneratedPassword(db, admin);
}
