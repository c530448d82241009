import type { Flavour, LicenseType } from '@granary/contracts';
import { isItemVisible, type MenuItemRule, type ShellContext } from '../shared/session/shellContext.ts';

/**
 * The shell's rules as pure functions of the session's ShellContext (spec 000 §2 navigation menus, §4 route guard
 * and logo choice, §6 visibility), so the menu visibility table can be tested without rendering.
 */

export interface UserMenuItem extends MenuItemRule {
  key: string;
  label: string;
  /** In-app path, or an external URL when `external`. */
  to?: string;
  external?: boolean;
  badge?: string;
  /** An action the shell performs (quick setup, set me up) instead of a link. */
  action?: 'gettingStarted' | 'quickRepositoryCreation' | 'setMeUp' | 'switchClassic' | 'switchNew';
}

export const PROFILE_PATH = '/admin/artifactory/user_profile';

/** spec 000 §2 user menu, in the spec's order; §6 visibility rules. */
export const USER_MENU: readonly UserMenuItem[] = [
  { key: 'getting-started', label: 'Getting Started', adminOnly: true, action: 'gettingStarted' },
  {
    key: 'subscription',
    label: 'Cloud Subscription and Usage',
    cloudOnly: true,
    external: true,
  },
  {
    key: 'quick-repository-creation',
    label: 'Quick Repository Creation',
    adminOnly: true,
    licenseNeeded: true,
    hiddenOnLightweight: true,
    action: 'quickRepositoryCreation',
  },
  {
    key: 'set-me-up',
    label: 'Set Me Up',
    nonAdminOnly: true,
    hiddenOnLightweight: true,
    feature: 'artifactsBrowser',
    action: 'setMeUp',
  },
  { key: 'new-local', label: 'New Local Repository', adminOnly: true, to: '/admin/repositories/local/new' },
  {
    key: 'new-remote',
    label: 'New Remote Repository',
    adminOnly: true,
    hiddenOnLightweight: true,
    to: '/admin/repositories/remote/new',
  },
  {
    key: 'new-virtual',
    label: 'New Virtual Repository',
    adminOnly: true,
    hiddenOnLightweight: true,
    to: '/admin/repositories/virtual/new',
  },
  { key: 'new-user', label: 'New User', adminOnly: true, to: '/admin/management/users/new' },
  { key: 'new-group', label: 'New Group', adminOnly: true, to: '/admin/management/groups/new' },
  {
    key: 'new-permission',
    label: 'New Permission',
    adminOnly: true,
    to: '/admin/management/permissions/create',
  },
  {
    key: 'switch-classic',
    label: 'Switch to Classic UI',
    feature: 'navigationSwitching',
    action: 'switchClassic',
  },
  {
    key: 'switch-new',
    label: 'Switch to New UI',
    badge: 'Beta',
    feature: 'navigationSwitching',
    action: 'switchNew',
  },
  { key: 'edit-profile', label: 'Edit Profile', to: PROFILE_PATH },
  { key: 'logout', label: 'Logout', to: '/logout' },
];

/** The user menu a signed-in user sees (spec 000 §2, §6); the subscription item takes the session's URL. */
export function userMenuItems(ctx: ShellContext): UserMenuItem[] {
  if (!ctx.signedIn) return [];
  const items = USER_MENU.filter((item) => isItemVisible(item, ctx)).map((item) =>
    item.key === 'subscription' ? { ...item, to: ctx.manageSubscriptionUrl ?? undefined } : item,
  );
  // spec 000 §6: the extra profile item goes before the last item.
  if (ctx.profileAttention) {
    const extra: UserMenuItem = {
      key: 'profile-attention',
      label: ctx.profileAttention === 'unlock' ? 'Unlock Profile' : 'Set Profile Password',
      to: PROFILE_PATH,
    };
    items.splice(items.length - 1, 0, extra);
  }
  return items;
}

export interface SidebarItem extends MenuItemRule {
  key: string;
  label: string;
  to: string;
  /** Paths below this one belong to the item too (for the selected state and the hidden-path guard). */
  prefix?: string;
  /** Only the path itself selects the item (not the paths below it). */
  exact?: boolean;
}

/** spec 000 §2 application sidebar. */
export const APPLICATION_MENU: readonly SidebarItem[] = [
  { key: 'packages', label: 'Packages', to: '/packages', hiddenOnLightweight: true },
  // The tree and Security & Compliance are behind sign-in (mainRoutes.tsx RequireSignIn): not offered to an
  // anonymous visitor, who could only be sent to sign in (issue 22).
  {
    key: 'artifacts',
    label: 'Artifacts',
    to: '/repos/tree/General',
    prefix: '/repos',
    signedInOnly: true,
  },
  {
    key: 'security',
    label: 'Security & Compliance',
    to: '/security_policies',
    hiddenOnLightweight: true,
    signedInOnly: true,
  },
  { key: 'pipelines', label: 'Pipelines', to: '/pipelines-teaser', hiddenOnLightweight: true },
  {
    key: 'release-bundles',
    label: 'Release Bundles',
    to: '/release-bundles-teaser',
    hiddenOnLightweight: true,
  },
  { key: 'pdn', label: 'Peer Distribution', to: '/pdn-teaser', hiddenOnLightweight: true },
  { key: 'overview', label: 'Overview', to: '/overview' },
];

/** spec 000 §2 administration sidebar: the admin area's screens. */
export const ADMINISTRATION_MENU: readonly SidebarItem[] = [
  { key: 'catalogue', label: 'All settings', to: '/admin/artifactory/list', adminOnly: true },
  {
    key: 'repositories',
    label: 'Repositories',
    to: '/admin/repositories',
    adminOnly: true,
    licenseNeeded: true,
  },
  { key: 'users', label: 'Users', to: '/admin/management/users', adminOnly: true },
  { key: 'groups', label: 'Groups', to: '/admin/management/groups', adminOnly: true },
  { key: 'permissions', label: 'Permissions', to: '/admin/management/permissions', adminOnly: true },
  { key: 'general', label: 'General', to: '/admin/configuration/general', adminOnly: true },
  { key: 'licenses', label: 'Licences', to: '/admin/license_management/licenses', adminOnly: true },
  {
    key: 'topology',
    label: 'Topology',
    to: '/admin/mission_control/topology',
    adminOnly: true,
    hiddenOnLightweight: true,
  },
];

/** The project settings screens of one project. */
export const projectSettingsPath = (key: string, section: 'general' | 'members' = 'general') =>
  `/project-settings/${encodeURIComponent(key)}${section === 'members' ? '/members' : ''}`;

/** spec 000 §2 project settings sidebar (for a project administrator with a project selected). */
export function projectSettingsMenu(projectKey: string): SidebarItem[] {
  return [
    { key: 'project-general', label: 'General', to: projectSettingsPath(projectKey), exact: true },
    { key: 'project-members', label: 'Members', to: projectSettingsPath(projectKey, 'members') },
    { key: 'projects', label: 'All projects', to: '/admin/projects/list', adminOnly: true },
  ];
}

export type SidebarName = 'application' | 'administration' | 'projectSettings';

/**
 * spec 000 §2: a user who can administer projects and has a specific project selected sees the application and
 * project settings sidebars; everyone else the application and administration sidebars.
 */
export function sidebarNames(ctx: ShellContext): [SidebarName, SidebarName] {
  return ctx.projectAdmin && ctx.projectSelected && ctx.selectedProject !== null
    ? ['application', 'projectSettings']
    : ['application', 'administration'];
}

export function sidebarItems(name: SidebarName, ctx: ShellContext): SidebarItem[] {
  const all =
    name === 'application'
      ? APPLICATION_MENU
      : name === 'administration'
        ? ADMINISTRATION_MENU
        : ctx.selectedProject
          ? projectSettingsMenu(ctx.selectedProject)
          : [];
  return all.filter((item) => isItemVisible(item, ctx));
}

/** spec 000 §2: / and /home go to packages, or to repos/tree/General on a lightweight instance. */
export function homePath(ctx: Pick<ShellContext, 'flavour'>): string {
  return ctx.flavour.lightweight ? '/repos/tree/General' : '/packages';
}

/** spec 000 §4: hidden or disabled menu paths redirect to a default: admins topology, users packages, lightweight repositories. */
export function defaultPath(ctx: Pick<ShellContext, 'flavour' | 'admin'>): string {
  if (ctx.flavour.lightweight) return '/repos/tree/General';
  return ctx.admin ? '/topology-teaser' : '/packages';
}

/** A path that belongs to a menu item (user menu or sidebars) this session may not see, or null. */
export function hiddenMenuItemFor(pathname: string, ctx: ShellContext): MenuItemRule | null {
  const items: (MenuItemRule & { to?: string; prefix?: string; external?: boolean })[] = [
    ...USER_MENU,
    ...APPLICATION_MENU,
    ...ADMINISTRATION_MENU,
  ];
  for (const item of items) {
    const base = item.prefix ?? item.to;
    if (!base || item.external) continue;
    if ((pathname === base || pathname.startsWith(`${base}/`)) && !isItemVisible(item, ctx)) return item;
  }
  return null;
}

export type DefaultLogo = 'JCR' | 'CONAN' | 'EDGE' | 'OSS' | 'DEFAULT';
export type LogoChoice =
  | { kind: 'image'; src: string; source: 'user' | 'footer' }
  | { kind: 'default'; variant: DefaultLogo };

/** spec 000 §4 logo choice: a user logo wins, then the footer logoUrl, then a default by licence type. */
export function chooseLogo(options: {
  userLogo: string | null | undefined;
  footerLogoUrl: string | null | undefined;
  licenseType: LicenseType | undefined;
}): LogoChoice {
  if (options.userLogo) return { kind: 'image', src: options.userLogo, source: 'user' };
  if (options.footerLogoUrl) return { kind: 'image', src: options.footerLogoUrl, source: 'footer' };
  switch (options.licenseType) {
    case 'JCR':
      return { kind: 'default', variant: 'JCR' };
    case 'CONAN':
      return { kind: 'default', variant: 'CONAN' };
    case 'EDGE':
    case 'EDGE_TRIAL':
      return { kind: 'default', variant: 'EDGE' };
    case 'OSS':
      return { kind: 'default', variant: 'OSS' };
    default:
      return { kind: 'default', variant: 'DEFAULT' };
  }
}

/** spec 000 §2 help menu: Documentation has one link for the container-registry-only flavour, another otherwise. */
export function documentationUrl(flavour: Flavour): string {
  return flavour.registryOnly ? '/api/docs/#/oci' : '/api/docs/';
}

/**
 * spec 000 §4 route guard: old hash-based build links (`…/#/builds/{name}/{number}…`, as CI servers such as
 * Jenkins print them) go to the builds path with `jenkinsRedirect=true`. Null for any other hash.
 */
export function jenkinsRedirectPath(hash: string): string | null {
  const match = /^#!?\/?builds(\/[^?]*)?(?:\?(.*))?$/.exec(hash);
  if (!match) return null;
  const rest = (match[1] ?? '').replace(/\/+$/, '');
  const query = new URLSearchParams(match[2] ?? '');
  query.set('jenkinsRedirect', 'true');
  return `/builds${rest}?${query}`;
}
