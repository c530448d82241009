import type { LoginConfig, LoginConfigUpdate } from '@granary/contracts';
import type { Db } from '../../platform/db/index.ts';
import { readSystemSetting, writeSystemSetting } from './system.queries.ts';

/**
 * Sign-in routing for the console's login-page guard (spec 000 §3, §4).
 * Kept in `system_settings` row `login`; the schemas are shared with the console (contracts).
 */
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
