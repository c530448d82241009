import {
  DEFAULT_PASSWORD_POLICY,
  DEFAULT_TOKEN_EXPIRY_SECS,
  mailSettingsSchema,
  passwordPolicySchema,
  type SecurityConfig,
  type SecurityConfigPatch,
  securityConfigSchema,
} from '@granary/contracts';
import type { Db } from '../../platform/db/index.ts';
import { openFor, registerSealedColumn, sealFor } from '../../platform/secrets/index.ts';
import { readSetting, writeSetting } from './settings.queries.ts';

const KEY = 'security';

// The mail server's password is sealed at rest inside the settings' JSON (issue 18).
registerSealedColumn({
  table: 'security_settings',
  key: 'key',
  column: 'value',
  each: (value, f) => {
    const v = value as { mail?: { password?: unknown } } | null;
    if (typeof v?.mail?.password !== 'string' || !v.mail.password) return value;
    return { ...v, mail: { ...v.mail, password: f(v.mail.password) } };
  },
});

/** Defaults: anonymous access off, MFA optional, self-registration off, no mail server. */
export const DEFAULT_SECURITY_CONFIG: SecurityConfig = {
  anonymousAccess: false,
  mfaRequired: false,
  selfRegistration: false,
  passwordPolicy: DEFAULT_PASSWORD_POLICY,
  mail: mailSettingsSchema.parse({}),
  accountPortalUrl: '',
  tokenDefaultExpirySecs: DEFAULT_TOKEN_EXPIRY_SECS,
  tokenMaxExpirySecs: 0,
};

/**
 * The security settings, stored in the settings table. Read often (every anonymous request asks
 * whether anonymous access is on), so kept for a few seconds; a change on this node is seen at once,
 * on other nodes within the cache lifetime.
 */
export class SecuritySettings {
  private cached: { value: SecurityConfig; at: number } | undefined;
  constructor(
    private readonly db: Db,
    private readonly ttlMs = 5_000,
  ) {}

  async get(): Promise<SecurityConfig> {
    if (this.cached && Date.now() - this.cached.at < this.ttlMs) return this.cached.value;
    const stored = (await readSetting(this.db, KEY)) as Partial<SecurityConfig> | undefined;
    const value = securityConfigSchema.parse({
      ...DEFAULT_SECURITY_CONFIG,
      ...stored,
      passwordPolicy: passwordPolicySchema.parse({ ...DEFAULT_PASSWORD_POLICY, ...stored?.passwordPolicy }),
      mail: mailSettingsSchema.parse({
        ...DEFAULT_SECURITY_CONFIG.mail,
        ...stored?.mail,
        ...(stored?.mail?.password ? { password: openFor(this.db, stored.mail.password) } : {}),
      }),
    });
    this.cached = { value, at: Date.now() };
    return value;
  }

  /** Drops the cached copy (another node changed the settings). */
  forget(): void {
    this.cached = undefined;
  }

  async update(patch: SecurityConfigPatch): Promise<SecurityConfig> {
    const current = await this.get();
    const mail = { ...current.mail, ...patch.mail };
    // The mail password is write only: absent keeps it, null clears it.
    if (patch.mail && !('password' in patch.mail)) mail.password = current.mail.password;
    const next = securityConfigSchema.parse({
      ...current,
      ...patch,
      passwordPolicy: { ...current.passwordPolicy, ...patch.passwordPolicy },
      mail,
    });
    await writeSetting(this.db, KEY, {
      ...next,
      mail: {
        ...next.mail,
        ...(next.mail.password ? { password: sealFor(this.db, next.mail.password) } : {}),
      },
    });
    this.cached = { value: next, at: Date.now() };
    return next;
  }
}

/** The configuration as answered to an admin: the mail password never leaves the server. */
export function publicSecurityConfig(config: SecurityConfig): SecurityConfig {
  return { ...config, mail: { ...config.mail, password: config.mail.password ? null : undefined } };
}
