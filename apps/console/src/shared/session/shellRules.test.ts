import { LICENSE_KINDS, type LicenseType, NO_LICENSE } from '@granary/contracts';
import { describe, expect, it } from 'vitest';
import {
  chooseLogo,
  defaultPath,
  homePath,
  pageTitle,
  shellContext,
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
  it('two-sidebar rule: project admin with a selected project gets project settings', () => {
    expect(sidebarNames(shellContext({ projectAdmin: true, projectSelected: true }))).toEqual([
      'application',
      'projectSettings',
    ]);
    expect(sidebarNames(shellContext({ projectAdmin: true }))).toEqual(['application', 'administration']);
    expect(sidebarNames(shellContext({ admin: true }))).toEqual(['application', 'administration']);
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
