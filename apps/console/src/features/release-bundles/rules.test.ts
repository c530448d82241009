import { bundleVersionSchema, LICENSE_KINDS, type LicenseType, NO_LICENSE } from '@granary/contracts';
import { describe, expect, it } from 'vitest';
import {
  createBundleBody,
  defaultDistributionTab,
  hasSourceItems,
  nextEnvironments,
  noDistributionNotice,
  parseVersion,
  reachesVersion,
  releaseBundlesRedirect,
  type ServiceVersions,
  statusColour,
  type WizardForm,
} from './rules.ts';

describe('reachesVersion: thresholds, pre-releases count', () => {
  const table: [string | null, string, boolean][] = [
    ['7.48.0', '7.48.0', true],
    ['7.48.1', '7.48.0', true],
    ['7.49.0', '7.48.0', true],
    ['8.0.0', '7.48.0', true],
    ['7.47.99', '7.48.0', false],
    ['7.9.0', '7.48.0', false],
    ['6.99.99', '7.48.0', false],
    ['7.48.0-rc.1', '7.48.0', true],
    ['7.48.0-SNAPSHOT', '7.48.0', true],
    ['7.48.0+build.5', '7.48.0', true],
    ['7.47.0-rc.1', '7.48.0', false],
    ['v7.48.0', '7.48.0', true],
    ['7.48', '7.48.0', true],
    ['7', '7.48.0', false],
    ['2.16.0', '2.16.0', true],
    ['2.16.0-beta', '2.16.0', true],
    ['2.15.9', '2.16.0', false],
    ['2.100.0', '2.16.0', true],
    ['', '7.48.0', false],
    [null, '7.48.0', false],
    ['latest', '7.48.0', false],
  ];
  for (const [version, threshold, expected] of table)
    it(`${JSON.stringify(version)} ${expected ? 'reaches' : 'does not reach'} ${threshold}`, () => {
      expect(reachesVersion(version, threshold)).toBe(expected);
    });

  it('parses major.minor.patch', () => {
    expect(parseVersion('7.48.0-rc.1')).toEqual([7, 48, 0]);
    expect(parseVersion('x.y')).toBeNull();
  });
});

describe('spec 000 §2, 001 §2: old bundles path → release bundles path (7.48.0 repository, 2.16.0 distribution)', () => {
  const noDist = (repositoryService: string | null): ServiceVersions => ({
    repositoryService,
    distribution: null,
  });
  const dist = (repositoryService: string, version: string | null): ServiceVersions => ({
    repositoryService,
    distribution: { version },
  });
  const table: { path: string; versions: ServiceVersions; to: string | null; why: string }[] = [
    {
      path: '/bundles',
      versions: noDist('7.48.0'),
      to: '/release-bundles',
      why: 'threshold met, no distribution',
    },
    {
      path: '/bundles/source',
      versions: noDist('7.48.0'),
      to: '/release-bundles/source',
      why: 'the rest of the path is kept',
    },
    {
      path: '/bundles/target/my-bundle/1.0',
      versions: noDist('7.50.2'),
      to: '/release-bundles/target/my-bundle/1.0',
      why: 'deep path kept',
    },
    { path: '/bundles', versions: noDist('7.48.0-rc.2'), to: '/release-bundles', why: 'pre-release counts' },
    { path: '/bundles', versions: noDist('7.47.9'), to: null, why: 'repository service too old' },
    { path: '/bundles', versions: noDist(null), to: null, why: 'repository version unknown' },
    {
      path: '/bundles',
      versions: dist('7.48.0', '2.16.0'),
      to: '/release-bundles',
      why: 'both thresholds met',
    },
    {
      path: '/bundles',
      versions: dist('7.48.0', '2.16.0-rc.1'),
      to: '/release-bundles',
      why: 'distribution pre-release counts',
    },
    { path: '/bundles', versions: dist('7.48.0', '2.15.3'), to: null, why: 'distribution too old' },
    { path: '/bundles', versions: dist('7.48.0', null), to: null, why: 'distribution version unknown' },
    {
      path: '/bundles',
      versions: dist('7.40.0', '2.20.0'),
      to: null,
      why: 'repository too old, distribution new',
    },
    {
      path: '/bundlesx',
      versions: noDist('7.48.0'),
      to: null,
      why: 'not the bundles path (segment boundary)',
    },
    { path: '/release-bundles', versions: noDist('7.48.0'), to: null, why: 'already the new path' },
    { path: '/packages', versions: noDist('7.48.0'), to: null, why: 'unrelated path' },
  ];
  for (const c of table)
    it(`${c.path} with ${JSON.stringify(c.versions)} → ${c.to ?? 'stays'} (${c.why})`, () => {
      expect(releaseBundlesRedirect(c.path, c.versions)).toBe(c.to);
    });
});

describe('spec 000 §2: distribution main route without a tab: source with distribution and enterprise-plus, else target', () => {
  const licences: LicenseType[] = [NO_LICENSE, ...LICENSE_KINDS];
  for (const hasDistribution of [true, false])
    for (const licenseType of licences) {
      const expected =
        hasDistribution && (licenseType === 'ENTERPRISE_PLUS' || licenseType === 'ENTERPRISE_PLUS_TRIAL')
          ? 'source'
          : 'target';
      it(`${hasDistribution ? 'with' : 'without'} distribution · ${licenseType} → ${expected}`, () => {
        expect(defaultDistributionTab({ hasDistribution, licenseType })).toBe(expected);
      });
    }
});

describe('issue 19: the create wizard, the dialogs and the notice', () => {
  const form: WizardForm = {
    name: ' webapp ',
    version: '1.2.0',
    signingKey: 'k',
    sourceType: 'builds',
    artifacts: 'a/b\n\n /c/d \n',
    builds: [{ name: 'ci', number: '7', includeDependencies: true }],
    bundles: [{ name: 'base', version: '1' }],
    packages: [{ type: 'npm', name: 'left-pad', version: '1.3.0', repoKey: 'npm-local' }],
  };
  it('issue 19: only the chosen source type is sent, in the lifecycle API shape', () => {
    expect(createBundleBody(form)).toEqual({
      release_bundle_name: 'webapp',
      release_bundle_version: '1.2.0',
      source_type: 'builds',
      source: { builds: [{ build_name: 'ci', build_number: '7', include_dependencies: true }] },
    });
    expect(createBundleBody({ ...form, sourceType: 'artifacts' }).source).toEqual({
      artifacts: [{ path: 'a/b' }, { path: 'c/d' }],
    });
    expect(createBundleBody({ ...form, sourceType: 'release_bundles' }).source).toEqual({
      release_bundles: [{ release_bundle_name: 'base', release_bundle_version: '1' }],
    });
    expect(createBundleBody({ ...form, sourceType: 'packages' }).source).toEqual({
      packages: [
        {
          package_name: 'left-pad',
          package_version: '1.3.0',
          package_type: 'npm',
          repository_key: 'npm-local',
        },
      ],
    });
    expect(hasSourceItems({ ...form, sourceType: 'artifacts', artifacts: ' \n' })).toBe(false);
  });

  it('issue 19: bundle names and versions are [A-Za-z0-9_.-], at most 255 characters', () => {
    for (const ok of ['1.2.0', 'rc_1-2', 'A'.repeat(255)])
      expect(bundleVersionSchema.safeParse(ok).success).toBe(true);
    for (const bad of ['', '1.2 beta', '1/2', 'é', 'A'.repeat(256)])
      expect(bundleVersionSchema.safeParse(bad).success).toBe(false);
  });

  it("spec 000 §8: 'No distribution repositories are configured...' when there is no target; the link for admins only", () => {
    expect(noDistributionNotice([], true)).toEqual({
      message: 'No distribution repositories are configured...',
      link: '/admin/distribution/targets',
    });
    expect(noDistributionNotice([], false)).toEqual({
      message: 'No distribution repositories are configured...',
      link: null,
    });
    expect(noDistributionNotice([{}], true)).toBeNull();
    expect(noDistributionNotice(undefined, true)).toBeNull();
  });

  it('issue 19: promotion proposes the environments above the last one reached', () => {
    const envs = [
      { name: 'PROD', rank: 3 },
      { name: 'DEV', rank: 1 },
      { name: 'QA', rank: 2 },
    ];
    expect(nextEnvironments(envs, []).map((e) => e.name)).toEqual(['DEV', 'QA', 'PROD']);
    expect(nextEnvironments(envs, ['DEV']).map((e) => e.name)).toEqual(['QA', 'PROD']);
    expect(nextEnvironments(envs, ['PROD']).map((e) => e.name)).toEqual([]);
    expect(statusColour('COMPLETED')).toBe('green');
    expect(statusColour('FAILED')).toBe('red');
  });
});
