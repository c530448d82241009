import { LICENSE_KINDS, type LicenseType, NO_LICENSE } from '@granary/contracts';
import { describe, expect, it } from 'vitest';
import { pageTitle, profileAttentionOf, shellContext } from '../shared/session/shellContext.ts';
import {
  chooseLogo,
  defaultPath,
  homePath,
  jenkinsRedirectPath,
  sidebarItems,
  sidebarNames,
  userMenuItems,
} from './shellRules.ts';

const flavour = (cloud: boolean, lightweight: boolean) => ({
  cloud,
  lightweight,
  trial: false,
  freeTier: false,
  registryOnly: false,
});

describe('spec 000 §2, §6 user menu visibility table', () => {
  const roles = [
    { name: 'admin', signedIn: true, admin: true },
    { name: 'regular', signedIn: true, admin: false },
    { name: 'anonymous', signedIn: false, admin: false },
  ];
  const licences: LicenseType[] = [NO_LICENSE, ...LICENSE_KINDS];
  for (const role of roles)
    for (const cloud of [false, true])
      for (const lightweight of [false, true])
        for (const licenseType of licences)
          it(`${role.name} · ${cloud ? 'cloud' : 'self-hosted'} · ${lightweight ? 'lightweight' : 'full'} · ${licenseType}`, () => {
            const ctx = shellContext({ ...role, flavour: flavour(cloud, lightweight), licenseType });
            const labels = userMenuItems(ctx).map((i) => i.label);
            if (!role.signedIn) return expect(labels).toEqual([]);
            const expected = [
              role.admin && 'Getting Started',
              cloud && 'Cloud Subscription and Usage',
              role.admin && licenseType !== NO_LICENSE && !lightweight && 'Quick Repository Creation',
              !role.admin && !lightweight && 'Set Me Up',
              role.admin && 'New Local Repository',
              role.admin && !lightweight && 'New Remote Repository',
              role.admin && !lightweight && 'New Virtual Repository',
              role.admin && 'New User',
              role.admin && 'New Group',
              role.admin && 'New Permission',
              'Edit Profile',
              'Logout',
            ].filter(Boolean);
            expect(labels).toEqual(expected);
          });

  it('spec 000 §2: Switch to Classic UI and Switch to New UI (beta) only when navigation switching is supported', () => {
    const ctx = shellContext({
      signedIn: true,
      features: { ...shellContext().features, navigationSwitching: true },
    });
    const items = userMenuItems(ctx);
    expect(items.map((i) => i.label).slice(-4)).toEqual([
      'Switch to Classic UI',
      'Switch to New UI',
      'Edit Profile',
      'Logout',
    ]);
    expect(items.find((i) => i.label === 'Switch to New UI')?.badge).toBe('Beta');
  });
});

describe('spec 000 §2 sidebars, §4 redirects, logo and title', () => {
  const sidebarTable: { who: string; projectAdmin: boolean; selected: string | null; names: string[] }[] = [
    {
      who: 'project admin, project selected',
      projectAdmin: true,
      selected: 'web',
      names: ['application', 'projectSettings'],
    },
    {
      who: 'project admin, all projects',
      projectAdmin: true,
      selected: null,
      names: ['application', 'administration'],
    },
    {
      who: 'regular user, project selected',
      projectAdmin: false,
      selected: 'web',
      names: ['application', 'administration'],
    },
    {
      who: 'regular user, all projects',
      projectAdmin: false,
      selected: null,
      names: ['application', 'administration'],
    },
  ];
  for (const c of sidebarTable)
    it(`two-sidebar rule: ${c.who} → ${c.names.join(' + ')}`, () => {
      const ctx = shellContext({
        signedIn: true,
        projectAdmin: c.projectAdmin,
        projectSelected: c.selected !== null,
        selectedProject: c.selected,
      });
      expect(sidebarNames(ctx)).toEqual(c.names);
    });

  it("project settings sidebar: the selected project's general and members screens; all projects for admins", () => {
    const base = { signedIn: true, projectAdmin: true, projectSelected: true, selectedProject: 'web app' };
    expect(sidebarItems('projectSettings', shellContext(base)).map((i) => [i.label, i.to])).toEqual([
      ['General', '/project-settings/web%20app'],
      ['Members', '/project-settings/web%20app/members'],
    ]);
    expect(
      sidebarItems('projectSettings', shellContext({ ...base, admin: true })).map((i) => i.label),
    ).toEqual(['General', 'Members', 'All projects']);
  });

  it('home: packages, or repos/tree/General on a lightweight instance; default: admins topology, users packages', () => {
    expect(homePath({ flavour: flavour(false, false) })).toBe('/packages');
    expect(homePath({ flavour: flavour(false, true) })).toBe('/repos/tree/General');
    expect(defaultPath({ flavour: flavour(false, false), admin: true })).toBe('/topology-teaser');
    expect(defaultPath({ flavour: flavour(false, false), admin: false })).toBe('/packages');
    expect(defaultPath({ flavour: flavour(false, true), admin: true })).toBe('/repos/tree/General');
  });

  it('logo choice: user logo, then footer logoUrl, then a default per licence type', () => {
    expect(chooseLogo({ userLogo: '/u.png', footerLogoUrl: '/f.png', licenseType: 'JCR' })).toMatchObject({
      src: '/u.png',
    });
    expect(chooseLogo({ userLogo: null, footerLogoUrl: '/f.png', licenseType: 'JCR' })).toMatchObject({
      src: '/f.png',
    });
    const variant = (t: LicenseType) => chooseLogo({ userLogo: null, footerLogoUrl: null, licenseType: t });
    expect(variant('JCR')).toEqual({ kind: 'default', variant: 'JCR' });
    expect(variant('CONAN')).toEqual({ kind: 'default', variant: 'CONAN' });
    expect(variant('EDGE')).toEqual({ kind: 'default', variant: 'EDGE' });
    expect(variant('EDGE_TRIAL')).toEqual({ kind: 'default', variant: 'EDGE' });
    expect(variant('OSS')).toEqual({ kind: 'default', variant: 'OSS' });
    expect(variant('ENTERPRISE')).toEqual({ kind: 'default', variant: 'DEFAULT' });
  });

  it('page title is "{route title} - {server name}"', () => {
    expect(pageTitle('Packages', 'Acme Artifacts')).toBe('Packages - Acme Artifacts');
  });
});

describe('spec 000 §4: old hash-based build links → jenkinsRedirect=true', () => {
  const table: [string, string | null][] = [
    ['#/builds/my-job/12', '/builds/my-job/12?jenkinsRedirect=true'],
    ['#/builds/my-job/12/', '/builds/my-job/12?jenkinsRedirect=true'],
    [
      '#/builds/my%20job/12/1700000000000/published',
      '/builds/my%20job/12/1700000000000/published?jenkinsRedirect=true',
    ],
    ['#/builds/my-job', '/builds/my-job?jenkinsRedirect=true'],
    ['#/builds', '/builds?jenkinsRedirect=true'],
    ['#builds/my-job/3', '/builds/my-job/3?jenkinsRedirect=true'],
    ['#!/builds/my-job/3', '/builds/my-job/3?jenkinsRedirect=true'],
    ['#/builds/my-job/3?tab=modules', '/builds/my-job/3?tab=modules&jenkinsRedirect=true'],
    ['#/artifacts/browse/tree/General/libs', null],
    ['#/buildsx/1', null],
    ['#learning-center', null],
    ['', null],
  ];
  for (const [hash, to] of table)
    it(`${JSON.stringify(hash)} → ${to ?? 'no redirect'}`, () => {
      expect(jenkinsRedirectPath(hash)).toBe(to);
    });
});

describe('spec 000 §6: the extra profile item goes before the last item when the profile flags say so', () => {
  const flags = (over: Partial<Parameters<typeof profileAttentionOf>[0]>) => ({
    existsInDB: true,
    profileUpdatable: true,
    requireProfilePassword: false,
    requireProfileUnlock: false,
    ...over,
  });
  const table: [string, Parameters<typeof profileAttentionOf>[0], string | null][] = [
    ['nothing required', flags({}), null],
    ['password required', flags({ requireProfilePassword: true }), 'Set Profile Password'],
    ['unlock required', flags({ requireProfileUnlock: true }), 'Unlock Profile'],
    ['both required', flags({ requireProfilePassword: true, requireProfileUnlock: true }), 'Unlock Profile'],
    ['not in the database', flags({ existsInDB: false, requireProfileUnlock: true }), null],
    ['not updatable', flags({ profileUpdatable: false, requireProfilePassword: true }), null],
  ];
  for (const [why, user, label] of table)
    it(`${why} → ${label ?? 'no extra item'}`, () => {
      const labels = userMenuItems(
        shellContext({ signedIn: true, profileAttention: profileAttentionOf(user) }),
      ).map((i) => i.label);
      if (label === null) expect(labels).toEqual(['Set Me Up', 'Edit Profile', 'Logout']);
      else expect(labels).toEqual(['Set Me Up', 'Edit Profile', label, 'Logout']);
    });
});
