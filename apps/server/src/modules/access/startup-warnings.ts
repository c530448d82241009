import { isIP } from 'node:net';
import path from 'node:path';
import type { Config } from '../../config/index.ts';
import type { Db } from '../../platform/db/index.ts';
import { findUserByName } from './access.queries.ts';
import {
  adoptInitialPasswordFile,
  FIRST_ADMIN_NAME,
  INITIAL_PASSWORD_FILE,
  initialAdminPasswordUnchanged,
} from './access.service.ts';

function isLoopback(host: string): boolean {
  const name = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (name === 'localhost' || name.endsWith('.localhost') || name === '::1') return true;
  return isIP(name) === 4 && name.startsWith('127.');
}

/**
 * What start-up warns about (issue 12 §23), one line each:
 * - plain HTTP where the network can see it: session cookies go without `Secure` and passwords in
 *   clear. Granary itself speaks HTTP only, so it warns when the public base URL is `http://` on a
 *   name that is not loopback, or, without a base URL, when it listens beyond loopback and trusts no
 *   TLS proxy's `X-Forwarded-Proto`;
 * - the first administrator still has the password generated at installation.
 */
export async function startupWarnings(
  db: Db,
  config: Pick<Config, 'home' | 'host' | 'port' | 'baseUrl' | 'trustProxy'>,
): Promise<string[]> {
  const warnings: string[] = [];
  if (config.baseUrl) {
    const url = new URL(config.baseUrl);
    if (url.protocol === 'http:' && !isLoopback(url.hostname))
      warnings.push(
        `GRANARY_BASE_URL ${url.origin} is plain HTTP on an address that is not loopback: session cookies are not Secure and passwords cross the network in clear. Serve it over HTTPS (a TLS proxy, with GRANARY_TRUST_PROXY) and set an https:// base URL.`,
      );
  } else if (!isLoopback(config.host) && config.trustProxy === false)
    warnings.push(
      `Listening on plain HTTP on ${config.host}:${config.port}, which is not loopback: session cookies are not Secure and passwords cross the network in clear. Put a TLS proxy in front (with GRANARY_TRUST_PROXY and an https:// GRANARY_BASE_URL), or listen on 127.0.0.1.`,
    );
  await adoptInitialPasswordFile(db, config.home);
  const admin = await findUserByName(db, FIRST_ADMIN_NAME);
  if (admin && (await initialAdminPasswordUnchanged(db, admin)))
    warnings.push(
      `The administrator "${admin.name}" still has the password generated at installation (${path.join(config.home, INITIAL_PASSWORD_FILE)}): change it (console: Edit Profile) and delete that file.`,
    );
  return warnings;
}
