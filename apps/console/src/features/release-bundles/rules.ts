import {
  type LicenseType,
  licenseRank,
  type ReleaseBundleCreate,
  VERSION_THRESHOLDS,
} from '@granary/contracts';

/**
 * spec 000 §2 / spec 001 §2 release bundles and distribution, as pure functions of the session:
 * - the old bundles path (the distribution screen, /bundles) moves to the release bundles path when the
 *   repository service is at least 7.48.0 and, if a distribution service exists, it is at least 2.16.0;
 *   pre-releases count (7.48.0-rc.1 reaches 7.48.0);
 * - the distribution main route without an active tab adds one: source for a user with distribution and an
 *   enterprise-plus licence, otherwise target.
 */
export const OLD_BUNDLES_PATH = '/bundles';
export const RELEASE_BUNDLES_PATH = '/release-bundles';
export const DISTRIBUTION_TABS = ['source', 'target'] as const;
export type DistributionTab = (typeof DISTRIBUTION_TABS)[number];

/** major.minor.patch of a version string (leading `v` allowed, missing parts 0); null when it has none. */
export function parseVersion(version: string | null | undefined): [number, number, number] | null {
  const match = /^\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:[-+.].*)?\s*$/i.exec(version ?? '');
  if (!match) return null;
  return [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)];
}

/**
 * Whether `version` reaches `threshold`. Pre-release and build suffixes are ignored, so a pre-release of the
 * threshold version counts as reaching it (spec: "pre-releases count"). An unreadable version does not.
 */
export function reachesVersion(version: string | null | undefined, threshold: string): boolean {
  const v = parseVersion(version);
  const t = parseVersion(threshold);
  if (!v || !t) return false;
  for (let i = 0; i < 3; i++) {
    if (v[i]! > t[i]!) return true;
    if (v[i]! < t[i]!) return false;
  }
  return true;
}

export interface ServiceVersions {
  /** The repository service's version (`GET system/version`). */
  repositoryService: string | null | undefined;
  /** The distribution service: null when it does not exist; its version null when unknown. */
  distribution: { version: string | null } | null;
}

/** Both thresholds met: the new release bundles screens replace the old bundles path. */
export function releaseBundlesAvailable(versions: ServiceVersions): boolean {
  if (!reachesVersion(versions.repositoryService, VERSION_THRESHOLDS.repositoryService)) return false;
  if (versions.distribution === null) return true;
  return reachesVersion(versions.distribution.version, VERSION_THRESHOLDS.distribution);
}

/** The path a bundles path moves to (the rest of the path kept), or null when it stays. */
export function releaseBundlesRedirect(pathname: string, versions: ServiceVersions): string | null {
  const startsWithOld = pathname === OLD_BUNDLES_PATH || pathname.startsWith(`${OLD_BUNDLES_PATH}/`);
  if (!startsWithOld || !releaseBundlesAvailable(versions)) return null;
  return `${RELEASE_BUNDLES_PATH}${pathname.slice(OLD_BUNDLES_PATH.length)}`;
}

/** The tab the distribution main route adds when it has none. */
export function defaultDistributionTab(options: {
  hasDistribution: boolean;
  licenseType: LicenseType;
}): DistributionTab {
  const enterprisePlus = licenseRank(options.licenseType) >= 5;
  return options.hasDistribution && enterprisePlus ? 'source' : 'target';
}

export function isDistributionTab(tab: string | undefined): tab is DistributionTab {
  return (DISTRIBUTION_TABS as readonly string[]).includes(tab ?? '');
}

// --- issue 19: the create wizard, the dialogs and the lists -------------------------------------------

/** The wizard's source types (issue 19: artifacts, builds, other bundles, package versions). */
export const WIZARD_SOURCE_TYPES = ['artifacts', 'builds', 'release_bundles', 'packages'] as const;
export type WizardSourceType = (typeof WIZARD_SOURCE_TYPES)[number];
export const SOURCE_TYPE_LABELS: Record<WizardSourceType, string> = {
  artifacts: 'Artifacts',
  builds: 'Builds',
  release_bundles: 'Release Bundles',
  packages: 'Packages',
};

export interface WizardForm {
  name: string;
  version: string;
  signingKey: string;
  sourceType: WizardSourceType;
  /** artifacts: `repoKey/path` per line */
  artifacts: string;
  builds: { name: string; number: string; includeDependencies: boolean }[];
  bundles: { name: string; version: string }[];
  packages: { type: string; name: string; version: string; repoKey: string }[];
}

/** What the wizard sends (`POST /lifecycle/api/v2/release_bundle`): only the chosen source type's items. */
export function createBundleBody(form: WizardForm): ReleaseBundleCreate {
  const base = {
    release_bundle_name: form.name.trim(),
    release_bundle_version: form.version.trim(),
    source_type: form.sourceType,
  };
  switch (form.sourceType) {
    case 'artifacts':
      return {
        ...base,
        source: {
          artifacts: form.artifacts
            .split('\n')
            .map((line) => line.trim().replace(/^\/+/, ''))
            .filter((line) => line !== '')
            .map((path) => ({ path })),
        },
      };
    case 'builds':
      return {
        ...base,
        source: {
          builds: form.builds.map((b) => ({
            build_name: b.name,
            build_number: b.number,
            include_dependencies: b.includeDependencies,
          })),
        },
      };
    case 'release_bundles':
      return {
        ...base,
        source: {
          release_bundles: form.bundles.map((b) => ({
            release_bundle_name: b.name,
            release_bundle_version: b.version,
          })),
        },
      };
    case 'packages':
      return {
        ...base,
        source: {
          packages: form.packages.map((p) => ({
            package_name: p.name,
            package_version: p.version,
            package_type: p.type || undefined,
            repository_key: p.repoKey,
          })),
        },
      };
  }
}

/** Whether the wizard's source step holds at least one item. */
export function hasSourceItems(form: WizardForm): boolean {
  const body = createBundleBody(form).source;
  return Object.values(body).some((items) => Array.isArray(items) && items.length > 0);
}

/**
 * spec 000 §8 / 001 §8 'No distribution repositories are configured...' with a link to create one: where a bundle
 * could be distributed to (Granary's distribution targets) are none. Admins get the link, others a hint.
 */
export const NO_DISTRIBUTION_REPOSITORIES = 'No distribution repositories are configured...';
export const CREATE_TARGET_PATH = '/admin/distribution/targets';
export function noDistributionNotice(
  targets: readonly unknown[] | undefined,
  admin: boolean,
): { message: string; link: string | null } | null {
  if (targets === undefined || targets.length > 0) return null;
  return { message: NO_DISTRIBUTION_REPOSITORIES, link: admin ? CREATE_TARGET_PATH : null };
}

/** Status colours for bundles, promotions and distributions. */
export function statusColour(status: string): string {
  switch (status) {
    case 'COMPLETED':
      return 'green';
    case 'FAILED':
      return 'red';
    case 'IN_PROGRESS':
    case 'PROCESSING':
      return 'blue';
    default:
      return 'default';
  }
}

/** The environments a bundle may be promoted to next: those ranked above the last it reached (all when none). */
export function nextEnvironments<T extends { name: string; rank: number }>(
  environments: readonly T[],
  reached: readonly string[],
): T[] {
  const sorted = [...environments].sort((a, b) => a.rank - b.rank);
  const ranks = sorted.filter((e) => reached.includes(e.name)).map((e) => e.rank);
  const top = ranks.length > 0 ? Math.max(...ranks) : Number.NEGATIVE_INFINITY;
  return sorted.filter((e) => e.rank > top);
}
