import { canonicalPackageType, sortDirection, type Vulnerabilities } from '@granary/contracts';
import { parseSearchText } from '../search/searchSyntax.ts';
import type { PackageListFilter } from './queries.ts';

/** spec 001 §8 package states, word for word. */
export const PACKAGE_MESSAGES = {
  xrayUnavailable: 'Xray is unavailable',
  xrayLicence: 'Requires an Xray license',
  notScanned: 'Not Scanned',
  noPackages: 'No packages found, please refine your search criteria',
  notYetAvailable: 'Package will be available in a few minutes, please try again later',
  // Not in spec 001 §8 (ours): the empty builds and layers tabs.
  noBuilds: 'No builds produced this version',
  noLayers: 'No layers: this tag has no image manifest',
  // Not in spec 001 §8 (ours): the versions list with "Release versions only" on and no release.
  noReleases: 'No release versions: every version of this package is a pre-release',
} as const;

/** spec 001 §7 `POST docker layers` is for images: docker (and OCI) packages only. */
export function isDockerPackageType(packageType: string): boolean {
  const t = packageType.toLowerCase();
  return t === 'docker' || t === 'oci';
}

/** `sha256:0123…` → `sha256:012345678901` (the full digest goes in a title). */
export function shortDigest(digest: string): string {
  const [algo, hex] = digest.includes(':') ? digest.split(':', 2) : ['', digest];
  return `${algo ? `${algo}:` : ''}${(hex ?? '').slice(0, 12)}`;
}

/** spec 001 §2: lead file extensions whose version details open on the readme tab. */
export const README_EXTENSIONS = [
  'tgz',
  'gz',
  'zip',
  'jar',
  'war',
  'nupkg',
  'crate',
  'apk',
  'whl',
  'egg',
  'mod',
];

/** spec 001 §2: version details open on readme for those lead file extensions, otherwise on properties. */
export function openingTab(leadFilePath: string | null | undefined): 'readme' | 'properties' {
  const file = (leadFilePath ?? '').split('/').pop() ?? '';
  const dot = file.lastIndexOf('.');
  const ext = dot >= 0 ? file.slice(dot + 1).toLowerCase() : '';
  return README_EXTENSIONS.includes(ext) ? 'readme' : 'properties';
}

/** The scan column/state of spec 001 §8: what to say when there are no counts to show. */
export function scanState(
  vulnerabilities: Vulnerabilities | null | undefined,
  scanning: { service: boolean; licensed: boolean },
): string | null {
  if (!scanning.service) return PACKAGE_MESSAGES.xrayUnavailable;
  if (!scanning.licensed) return PACKAGE_MESSAGES.xrayLicence;
  if (!vulnerabilities) return PACKAGE_MESSAGES.notScanned;
  return null;
}

export const SORT_FIELDS = [
  { value: 'name', label: 'Name' },
  { value: 'modified', label: 'Last modified' },
  { value: 'created', label: 'Created' },
  { value: 'downloads', label: 'Downloads' },
  { value: 'versionsCount', label: 'Versions' },
] as const;

/**
 * The list filter from the screen's address: `q` (toolbar search text, spec 001 §5 syntax), then the screen's
 * own `type`, `name`, `sort` and `order` (spec 001 §5 sort direction spellings; default by name, ascending).
 */
export function listFilterFromParams(params: URLSearchParams): PackageListFilter {
  const { filter } = parseSearchText(params.get('q') ?? '');
  const out: PackageListFilter = {};
  const name = params.get('name')?.trim() || filter.name;
  if (name) out.name = name;
  const repos = params.getAll('repo').filter(Boolean);
  const types = params.getAll('type').filter(Boolean);
  const packageTypes = types.length > 0 ? types : (filter.packageTypes ?? []);
  if (packageTypes.length > 0) out.package_type = packageTypes.map(canonicalPackageType);
  if (filter.description) out.description = filter.description;
  if (filter.tags) out.tags = filter.tags;
  if (repos.length > 0) out.repos = repos;
  else if (filter.repositories) out.repos = filter.repositories;
  if (filter.licenses) out.licenses = filter.licenses;
  if (filter.version) out.version = filter.version;
  if (filter.checksum) out.checksum = filter.checksum;
  if (filter.scope) out.scope = filter.scope;
  if (filter.before) out.before = filter.before;
  if (filter.after) out.after = filter.after;
  out.sort_by = params.get('sort') || 'name';
  out.sort_type = sortDirection(params.get('order')).toLowerCase();
  return out;
}

/** `/packages/{id}` and `/packages/{id}/{version}`: the id (`npm://@scope/name`) is one encoded segment. */
export const packagePath = (packageId: string, version?: string) =>
  `/packages/${encodeURIComponent(packageId)}${version ? `/${encodeURIComponent(version)}` : ''}`;

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export const formatDate = (iso: string) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '';

/**
 * The repositories filter follows the package type filter: its choices are the repositories of the chosen
 * types (all when none is chosen), and switching types drops the chosen repositories of other types.
 */
export function repositoriesForTypes<R extends { key: string; packageType: string }>(
  repositories: readonly R[],
  types: readonly string[],
): R[] {
  if (types.length === 0) return [...repositories];
  const wanted = new Set(types.map((t) => canonicalPackageType(t)));
  return repositories.filter((r) => wanted.has(canonicalPackageType(r.packageType)));
}

export function reposAfterTypeChange(
  chosen: readonly string[],
  repositories: readonly { key: string; packageType: string }[],
  types: readonly string[],
): string[] {
  const allowed = new Set(repositoriesForTypes(repositories, types).map((r) => r.key));
  return chosen.filter((key) => allowed.has(key));
}
