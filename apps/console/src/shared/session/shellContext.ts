import {
  FEATURE_FLAG_DEFAULTS,
  type FeaturesConfig,
  type Flavour,
  type LicenseType,
  NO_LICENSE,
} from '@granary/contracts';

/**
 * What the shell's rules depend on, derived from the session (SessionProvider): spec 000 §6 roles and
 * permissions, flavour, licence and feature flags. The menus themselves are the app's (app/shellRules.ts); a
 * screen that lists links (the admin catalogue) uses the same visibility rule, `isItemVisible`.
 */
export interface ShellContext {
  signedIn: boolean;
  admin: boolean;
  /** Can administer projects (spec 000 §6 project administrator). */
  projectAdmin: boolean;
  /** A specific project is selected in the project context. */
  projectSelected: boolean;
  /** Its key, when one is selected. */
  selectedProject: string | null;
  flavour: Flavour;
  licenseType: LicenseType;
  features: FeaturesConfig;
  /** The session's manage-subscription URL (spec 000 §6). */
  manageSubscriptionUrl: string | null;
  /**
   * spec 000 §6: the user data says the profile exists, is updatable and requires a password or an unlock
   * (existsInDB, profileUpdatable, requireProfilePassword, requireProfileUnlock combined).
   */
  profileAttention: 'password' | 'unlock' | null;
}

/** spec 000 §6 profile flags → the extra profile item's kind, or null when there is none. */
export function profileAttentionOf(user: {
  existsInDB: boolean;
  profileUpdatable: boolean;
  requireProfilePassword: boolean;
  requireProfileUnlock: boolean;
}): ShellContext['profileAttention'] {
  if (!user.existsInDB || !user.profileUpdatable) return null;
  if (user.requireProfileUnlock) return 'unlock';
  if (user.requireProfilePassword) return 'password';
  return null;
}

export const DEFAULT_FLAVOUR: Flavour = {
  cloud: false,
  trial: false,
  freeTier: false,
  lightweight: false,
  registryOnly: false,
};

export function shellContext(partial: Partial<ShellContext> = {}): ShellContext {
  return {
    signedIn: false,
    admin: false,
    projectAdmin: false,
    projectSelected: false,
    selectedProject: null,
    flavour: DEFAULT_FLAVOUR,
    licenseType: NO_LICENSE,
    features: { ...FEATURE_FLAG_DEFAULTS },
    manageSubscriptionUrl: null,
    profileAttention: null,
    ...partial,
  };
}

export interface MenuItemRule {
  /** Needs a signed-in user: hidden from an anonymous visitor (issue 22: entries a visitor cannot open are not shown). */
  signedInOnly?: boolean;
  adminOnly?: boolean;
  nonAdminOnly?: boolean;
  cloudOnly?: boolean;
  licenseNeeded?: boolean;
  hiddenOnLightweight?: boolean;
  feature?: keyof FeaturesConfig;
}

/** spec 000 §6: hidden items are dropped. */
export function isItemVisible(rule: MenuItemRule, ctx: ShellContext): boolean {
  if (rule.signedInOnly && !ctx.signedIn) return false;
  if (rule.adminOnly && !ctx.admin) return false;
  if (rule.nonAdminOnly && ctx.admin) return false;
  if (rule.cloudOnly && !ctx.flavour.cloud) return false;
  if (rule.licenseNeeded && ctx.licenseType === NO_LICENSE) return false;
  if (rule.hiddenOnLightweight && ctx.flavour.lightweight) return false;
  if (rule.feature && !ctx.features[rule.feature]) return false;
  return true;
}

/** spec 000 §2: the page title is "{route title} - {server name}". */
export function pageTitle(routeTitle: string, serverName: string | undefined): string {
  return `${routeTitle} - ${serverName || 'Granary'}`;
}
