import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import type { Client, Entry } from 'ldapts';

/**
 * LDAP / Active Directory sign-in (issue 20) with `ldapts`: bind as the search user (or anonymously),
 * find the user by the provider's filter (the typed name escaped, RFC 4515), bind as that entry with
 * the typed password, then read its groups (an attribute on the user such as `memberOf`, or a group
 * search). StartTLS or `ldaps://`, with an optional CA; a connect and an operation timeout. A client is
 * opened per sign-in and closed after it; `LDAP_MAX_CONCURRENT_BINDS` sign-ins at once per process run,
 * the others wait (a storm of logins cannot open hundreds of connections to the directory).
 *
 * A directory account counts as disabled (refused even with the right password) when it carries:
 * Active Directory's `userAccountControl` with the ACCOUNTDISABLE bit (2); OpenLDAP ppolicy's
 * `pwdAccountLockedTime`; 389-ds / FreeIPA `nsAccountLock: true`; eDirectory `loginDisabled: TRUE`; or
 * a `shadowExpire` (days since 1970, RFC 2307 shadowAccount) in the past.
 */
export interface LdapSettings {
  url: string;
  startTls: boolean;
  bindDn: string;
  bindPassword?: string;
  userSearchBase: string;
  userSearchFilter: string;
  groupSearchBase: string;
  groupSearchFilter: string;
  groupMemberAttribute: string;
  emailAttribute: string;
  usernameAttribute?: string;
  timeoutMs: number;
  tlsCaPem?: string | null;
}

export type LdapOutcome =
  | {
      ok: true;
      dn: string;
      username: string;
      email: string | null;
      groups: string[];
      attributes: Record<string, string[]>;
    }
  | {
      ok: false;
      reason: 'not found' | 'ambiguous' | 'bad password' | 'disabled' | 'unreachable';
      detail?: string;
    };

export const LDAP_MAX_CONCURRENT_BINDS = 8;
export const LDAP_UNREACHABLE_MESSAGE =
  'The LDAP directory is not reachable: try again later, or ask an administrator (local accounts still sign in)';

/** RFC 4515 §3: `*`, `(`, `)`, `\` and NUL in an assertion value are written `\XX`. */
export function escapeFilterValue(value: string): string {
  return value.replace(/[\\*()\0]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** `{0}`, `{1}`… in a filter template, each value escaped. */
export function fillFilter(template: string, ...values: string[]): string {
  return template.replace(/\{(\d)\}/g, (_m, i: string) => escapeFilterValue(values[Number(i)] ?? ''));
}

let active = 0;
const waiting: (() => void)[] = [];
async function withSlot<T>(f: () => Promise<T>): Promise<T> {
  if (active >= LDAP_MAX_CONCURRENT_BINDS) await new Promise<void>((resolve) => waiting.push(resolve));
  active += 1;
  try {
    return await f();
  } finally {
    active -= 1;
    waiting.shift()?.();
  }
}

function values(entry: Entry, name: string): string[] {
  const key = Object.keys(entry).find((k) => k.toLowerCase() === name.toLowerCase());
  if (!key) return [];
  const v = entry[key];
  const list = Array.isArray(v) ? v : [v];
  return list.map((x) => (Buffer.isBuffer(x) ? x.toString('utf8') : String(x)));
}

/** Whether the entry says the account is disabled (see the list above). */
export function accountDisabled(entry: Entry, now = Date.now()): boolean {
  const uac = Number(values(entry, 'userAccountControl')[0] ?? 0);
  if (uac & 2) return true;
  if (values(entry, 'pwdAccountLockedTime').length > 0) return true;
  if (values(entry, 'nsAccountLock').some((v) => v.toLowerCase() === 'true')) return true;
  if (values(entry, 'loginDisabled').some((v) => v.toUpperCase() === 'TRUE')) return true;
  const shadowExpire = values(entry, 'shadowExpire')[0];
  if (shadowExpire !== undefined && Number(shadowExpire) >= 0 && Number(shadowExpire) * 86_400_000 <= now)
    return true;
  return false;
}

/** A group's display name from its DN: the value of the first RDN (`cn=developers,ou=groups,…` → developers). */
export function groupNameOf(dn: string): string {
  const first = dn.split(/(?<!\\),/)[0] ?? dn;
  const eq = first.indexOf('=');
  return (eq >= 0 ? first.slice(eq + 1) : first).replace(/\\(.)/g, '$1').trim();
}

const DISABLED_ATTRIBUTES = [
  'userAccountControl',
  'pwdAccountLockedTime',
  'nsAccountLock',
  'loginDisabled',
  'shadowExpire',
];

function unreachable(err: unknown): LdapOutcome {
  return { ok: false, reason: 'unreachable', detail: err instanceof Error ? err.message : String(err) };
}

let ldapLib: Promise<typeof import('ldapts')> | undefined;
/** ldapts, loaded on the first LDAP sign-in or test, not at start (issue 24, idle memory). */
const ldapts = () => (ldapLib ??= import('ldapts'));

async function clientFor(settings: LdapSettings): Promise<Client> {
  const { Client } = await ldapts();
  const ca = settings.tlsCaPem?.trim() ? [settings.tlsCaPem] : undefined;
  // TLS options only for ldaps://: ldapts speaks TLS from the first byte whenever they are given, and
  // an ldap:// server (StartTLS) would then see garbage.
  const ldaps = /^ldaps:/i.test(settings.url);
  return new Client({
    url: settings.url,
    timeout: settings.timeoutMs,
    connectTimeout: settings.timeoutMs,
    tlsOptions: ldaps && ca ? { ca } : undefined,
    strictDN: false,
  });
}

/**
 * TLS options for StartTLS: the CA, and the directory's host name, which the certificate must name
 * (ldapts upgrades the open socket, so without `host` Node checks the certificate against "localhost").
 */
function startTlsOptions(settings: LdapSettings): ConnectionOptions {
  const host = new URL(settings.url).hostname.replace(/^\[|\]$/g, '');
  const ca = settings.tlsCaPem?.trim() ? [settings.tlsCaPem] : undefined;
  return { host, ...(isIP(host) ? {} : { servername: host }), ...(ca ? { ca } : {}) };
}

/**
 * Checks a name and password against the directory. Never throws for the directory's answers: the
 * outcome says why a sign-in failed (`unreachable` when the directory could not be asked in time).
 */
export async function ldapAuthenticate(
  settings: LdapSettings,
  username: string,
  password: string,
): Promise<LdapOutcome> {
  // An empty password would be an unauthenticated bind, which directories answer with success.
  if (!password || !username) return { ok: false, reason: 'bad password' };
  return withSlot(async () => {
    const client = await clientFor(settings);
    const deadline = AbortSignal.timeout(settings.timeoutMs * 3);
    const guard = <T>(p: Promise<T>) =>
      Promise.race([
        p,
        new Promise<never>((_resolve, reject) => {
          deadline.addEventListener('abort', () => reject(new Error('LDAP timeout')), { once: true });
        }),
      ]);
    try {
      let entry: Entry;
      try {
        if (settings.startTls) await guard(client.startTLS(startTlsOptions(settings)));
        if (settings.bindDn) await guard(client.bind(settings.bindDn, settings.bindPassword ?? ''));
        const filter = fillFilter(settings.userSearchFilter, username);
        const { searchEntries } = await guard(
          client.search(settings.userSearchBase, {
            scope: 'sub',
            filter,
            sizeLimit: 2,
            attributes: [
              'dn',
              settings.emailAttribute,
              settings.groupMemberAttribute,
              settings.usernameAttribute ?? 'uid',
              'cn',
              'sAMAccountName',
              ...DISABLED_ATTRIBUTES,
            ].filter(Boolean),
          }),
        );
        if (searchEntries.length === 0) return { ok: false, reason: 'not found' };
        if (searchEntries.length > 1) return { ok: false, reason: 'ambiguous' };
        entry = searchEntries[0]!;
      } catch (err) {
        if (err instanceof Error && /size limit/i.test(err.message))
          return { ok: false, reason: 'ambiguous' };
        return unreachable(err);
      }
      // The user's own bind proves the password, on a connection of its own.
      const userClient = await clientFor(settings);
      try {
        if (settings.startTls) await guard(userClient.startTLS(startTlsOptions(settings)));
        await guard(userClient.bind(entry.dn, password));
      } catch (err) {
        if (err instanceof (await ldapts()).InvalidCredentialsError)
          return { ok: false, reason: 'bad password' };
        // Some directories answer a locked account with another bind error.
        if (err instanceof Error && 'code' in err && typeof (err as { code: unknown }).code === 'number')
          return { ok: false, reason: 'bad password', detail: err.message };
        return unreachable(err);
      } finally {
        await userClient.unbind().catch(() => {});
      }
      if (accountDisabled(entry)) return { ok: false, reason: 'disabled' };
      let groupDns = values(entry, settings.groupMemberAttribute);
      if (settings.groupSearchFilter.trim()) {
        try {
          const { searchEntries } = await guard(
            client.search(settings.groupSearchBase || settings.userSearchBase, {
              scope: 'sub',
              filter: fillFilter(settings.groupSearchFilter, entry.dn, username),
              attributes: ['dn', 'cn'],
              sizeLimit: 1000,
            }),
          );
          groupDns = [...groupDns, ...searchEntries.map((g) => g.dn)];
        } catch (err) {
          return unreachable(err);
        }
      }
      const attributes: Record<string, string[]> = {};
      for (const k of Object.keys(entry))
        if (k !== 'dn' && k.toLowerCase() !== 'userpassword') attributes[k] = values(entry, k);
      const seen = new Set<string>();
      const groups = groupDns
        .map(groupNameOf)
        .filter((g) => g && !seen.has(g.toLowerCase()) && seen.add(g.toLowerCase()));
      return {
        ok: true,
        dn: entry.dn,
        username,
        email: values(entry, settings.emailAttribute)[0] ?? null,
        groups,
        attributes,
      };
    } finally {
      await client.unbind().catch(() => {});
    }
  });
}

/**
 * The console's "Test connection" (issue 20): connect (StartTLS when set), bind as the search user and
 * read the user search base, within the provider's timeout. The message says which step failed.
 */
export async function ldapConnectionTest(settings: LdapSettings): Promise<{ ok: boolean; message: string }> {
  return withSlot(async () => {
    const client = await clientFor(settings);
    let step = 'connect';
    try {
      if (settings.startTls) {
        step = 'StartTLS';
        await client.startTLS(startTlsOptions(settings));
      }
      if (settings.bindDn) {
        step = `bind as ${settings.bindDn}`;
        await client.bind(settings.bindDn, settings.bindPassword ?? '');
      }
      step = `read ${settings.userSearchBase}`;
      await client.search(settings.userSearchBase, {
        scope: 'base',
        filter: '(objectClass=*)',
        attributes: ['dn'],
      });
      return { ok: true, message: `Connected to ${settings.url} and read ${settings.userSearchBase}.` };
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      return { ok: false, message: `LDAP ${step} failed: ${reason}` };
    } finally {
      await client.unbind().catch(() => {});
    }
  });
}
