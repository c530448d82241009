import { type LicenseType, licenseRank, VERSION_THRESHOLDS } from '@granary/contracts';

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
