import { createHmac, randomBytes } from 'node:crypto';
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { hash, verify } from '@node-rs/argon2';
import type { Logger } from 'pino';
import type { Db } from '../../platform/db/index.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { findUserByName, insertUserIfAbsent, listUserNames } from './access.queries.ts';

export const FIRST_ADMIN_NAME = 'admin';
export const INITIAL_PASSWORD_FILE = 'initial-admin-password';

/** argon2id with the library's defaults (m=19 MiB, t=2): ~75 ms a verification here. */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

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

export type AuthResult = { ok: true; principal: Principal } | { ok: false; reason: string };

/** Checks a user name and password. The same answer whether the user is unknown or the password wrong. */
export async function authenticatePassword(db: Db, name: string, password: string): Promise<AuthResult> {
  const user = await findUserByName(db, name);
  if (!user?.passwordHash) {
    // Spend the same time as a real verification so timing does not reveal which names exist.
    await verify(DUMMY_HASH, password).catch(() => false);
    return { ok: false, reason: 'bad credentials' };
  }
  if (!(await verify(user.passwordHash, password).catch(() => false)))
    return { ok: false, reason: 'bad credentials' };
  if (user.disabled) return { ok: false, reason: 'user disabled' };
  return { ok: true, principal: { id: user.id, name: user.name, admin: user.admin } };
}
const DUMMY_HASH = await hash(randomBytes(16).toString('hex'));

export function listUsers(db: Db): Promise<string[]> {
  return listUserNames(db);
}

/**
 * A short-lived cache of verified credentials under a keyed hash of the header, so a client's
 * hundreds of requests cost one argon2 verification (DESIGN.md "Access model"). The key is random
 * per process: nothing stored reveals a credential.
 */
export class CredentialCache {
  private readonly key = randomBytes(32);
  private readonly entries = new Map<string, { principal: Principal; expires: number }>();

  constructor(
    private readonly ttlMs = 60_000,
    private readonly maxEntries = 10_000,
  ) {}

  private digest(credential: string): string {
    return createHmac('sha256', this.key).update(credential).digest('base64url');
  }

  get(credential: string): Principal | undefined {
    const k = this.digest(credential);
    const hit = this.entries.get(k);
    if (!hit) return undefined;
    if (hit.expires < Date.now()) {
      this.entries.delete(k);
      return undefined;
    }
    return hit.principal;
  }

  set(credential: string, principal: Principal): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(this.digest(credential), { principal, expires: Date.now() + this.ttlMs });
  }

  clear(): void {
    this.entries.clear();
  }
}
