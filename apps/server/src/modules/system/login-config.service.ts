import { z } from 'zod';
import type { Db } from '../../platform/db/index.ts';
import { readSystemSetting, writeSystemSetting } from './system.queries.ts';

/**
 * Sign-in routing the console's route guard reads on the login page (spec 000 §3 login state
 * `samlLogoutUrl`, auto-redirect state `isAutoRedirectLogin`; §4 route guard):
 * - `ssoLoginUrl`: the single sign-on provider's sign-in address;
 * - `autoRedirectLogin`: send visitors of the login page straight to `ssoLoginUrl` (only when it is set);
 * - `samlLogoutUrl`: where a SAML user goes after signing out, so the provider ends its session too.
 * Kept in `system_settings` row `login`. The schemas live here (not in contracts) because only the system
 * module and the console's login page use them; the console mirrors `loginConfigSchema`.
 */
const httpUrl = z.url({ protocol: /^https?$/ }).max(2000);

export const loginConfigSchema = z.object({
  ssoLoginUrl: z.string().nullable(),
  autoRedirectLogin: z.boolean(),
  samlLogoutUrl: z.string().nullable(),
});
export type LoginConfig = z.infer<typeof loginConfigSchema>;

export const loginConfigUpdateSchema = z.strictObject({
  ssoLoginUrl: httpUrl.nullable().optional(),
  autoRedirectLogin: z.boolean().optional(),
  samlLogoutUrl: httpUrl.nullable().optional(),
});
export type LoginConfigUpdate = z.infer<typeof loginConfigUpdateSchema>;

export const DEFAULT_LOGIN_CONFIG: LoginConfig = {
  ssoLoginUrl: null,
  autoRedirectLogin: false,
  samlLogoutUrl: null,
};

export class LoginConfigSettings {
  constructor(private readonly db: Db) {}

  async get(): Promise<LoginConfig> {
    const stored = (await readSystemSetting(this.db, 'login')) as Partial<LoginConfig> | undefined;
    const config = { ...DEFAULT_LOGIN_CONFIG, ...stored };
    // Auto-redirect without a provider to go to would leave the login page blank: it is off then.
    return { ...config, autoRedirectLogin: config.autoRedirectLogin && config.ssoLoginUrl !== null };
  }

  async update(patch: LoginConfigUpdate): Promise<LoginConfig> {
    const stored = {
      ...DEFAULT_LOGIN_CONFIG,
      ...((await readSystemSetting(this.db, 'login')) as Partial<LoginConfig> | undefined),
    };
    const next: LoginConfig = {
      ssoLoginUrl: patch.ssoLoginUrl === undefined ? stored.ssoLoginUrl : patch.ssoLoginUrl,
      autoRedirectLogin: patch.autoRedirectLogin ?? stored.autoRedirectLogin,
      samlLogoutUrl: patch.samlLogoutUrl === undefined ? stored.samlLogoutUrl : patch.samlLogoutUrl,
    };
    await writeSystemSetting(this.db, 'login', next);
    return this.get();
  }
}
