import { randomBytes } from 'node:crypto';
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Db } from '../../platform/db/index.ts';
import { findUserByName, insertUserIfAbsent } from './access.queries.ts';
import { hashPassword } from './crypto.ts';

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
