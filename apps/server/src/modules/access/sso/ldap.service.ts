import type { Db } from '../../../platform/db/index.ts';
import { findUserByName, type UserRow } from '../access.queries.ts';
import type { AccessContext, RequestMeta } from '../context.ts';
import { type LdapOutcome, type LdapSettings, ldapAuthenticate } from './ldap.ts';
import { enabledProviders, type ResolvedProviderOf } from './providers.service.ts';
import { findOrCreateUser, syncGroups } from './provision.ts';

export type LdapProvider = ResolvedProviderOf<'ldap'>;

export type LdapSignIn =
  | { ok: true; user: UserRow }
  | {
      ok: false;
      reason: 'not found' | 'bad credentials' | 'user disabled' | 'directory unreachable';
      detail?: string;
    };

export function ldapSettingsOf(provider: LdapProvider): LdapSettings {
  return {
    url: provider.url,
    startTls: provider.startTls,
    bindDn: provider.bindDn,
    bindPassword: provider.secrets.bindPassword,
    userSearchBase: provider.userSearchBase,
    userSearchFilter: provider.userSearchFilter,
    groupSearchBase: provider.groupSearchBase,
    groupSearchFilter: provider.groupSearchFilter,
    groupMemberAttribute: provider.groupMemberAttribute,
    emailAttribute: provider.emailAttribute,
    timeoutMs: provider.timeoutMs,
    tlsCaPem: provider.tlsCaPem,
  };
}

export async function enabledLdapProviders(db: Db): Promise<LdapProvider[]> {
  return (await enabledProviders(db)).filter((p): p is LdapProvider => p.type === 'ldap');
}

/**
 * The password check against the enabled LDAP providers (issue 20), for a name that is not a local
 * user or is one of realm `ldap`: each provider in key order until one knows the name. The first
 * successful bind creates the user on first sign-in (realm `ldap`, no local password, when the
 * provider's autoCreateUsers allows) and syncs its groups; the caller (the local login's
 * checkPassword) then goes on as for a local user — session, MFA rules, throttling and audit alike.
 */
export async function ldapSignIn(
  ctx: AccessContext,
  meta: Pick<RequestMeta, 'ip' | 'requestId'>,
  name: string,
  password: string,
  providers: LdapProvider[],
): Promise<LdapSignIn> {
  let unreachable: string | undefined;
  for (const provider of providers) {
    const outcome: LdapOutcome = await ldapAuthenticate(ldapSettingsOf(provider), name, password);
    if (!outcome.ok) {
      if (outcome.reason === 'not found') continue;
      if (outcome.reason === 'unreachable') {
        unreachable = outcome.detail ?? 'unreachable';
        ctx.security.warn(
          {
            event: 'sso.ldap.unreachable',
            provider: provider.key,
            reqId: meta.requestId,
            err: outcome.detail,
          },
          'LDAP directory not reachable',
        );
        continue;
      }
      return {
        ok: false,
        reason: outcome.reason === 'disabled' ? 'user disabled' : 'bad credentials',
        detail: `ldap ${provider.key}: ${outcome.reason}`,
      };
    }
    const full: RequestMeta = {
      principal: null,
      ip: meta.ip,
      requestId: meta.requestId,
      baseUrl: ctx.baseUrl ?? '',
      mailBaseUrl: null,
      https: false,
    };
    const identity = {
      realm: 'ldap' as const,
      providerKey: provider.key,
      username: name,
      email: outcome.email,
      groups: outcome.groups,
    };
    const user = await findOrCreateUser(ctx, full, provider, identity);
    if (user.realm !== 'ldap') return { ok: false, reason: 'bad credentials', detail: 'not an LDAP user' };
    if (!user.disabled) await syncGroups(ctx, full, provider, identity, user);
    return { ok: true, user: (await findUserByName(ctx.db, user.name)) ?? user };
  }
  if (unreachable) return { ok: false, reason: 'directory unreachable', detail: unreachable };
  return { ok: false, reason: 'not found' };
}
