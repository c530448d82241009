import type { FeaturesConfig } from '@granary/contracts';
import { meetsPackageSearchMinimum } from './searchSyntax.ts';

/** spec 001 §2 toolbar search types. */
export const SEARCH_TYPES = [
  'packages',
  'artifacts',
  'builds',
  'releaseBundles',
  'xray',
  'artifactoryRetention',
  'pipelines',
] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

export const SEARCH_TYPE_LABELS: Record<SearchType, string> = {
  packages: 'Packages',
  artifacts: 'Artifacts',
  builds: 'Builds',
  releaseBundles: 'Release Bundles',
  xray: 'Security & Compliance',
  artifactoryRetention: 'Archive',
  pipelines: 'Pipelines',
};

export interface SearchContext {
  lightweight: boolean;
  microservices: Record<string, boolean>;
  entitlements: Record<string, boolean>;
  features: Pick<FeaturesConfig, 'coldStorage' | 'toolbarSearch'>;
  /** The signed-in user is an administrator (the archive is theirs: spec 001 §4 retention is admin-only). */
  admin?: boolean;
}

/** spec 001 §2 availability column: which types this instance offers. */
export function isSearchTypeAvailable(type: SearchType, ctx: SearchContext): boolean {
  switch (type) {
    case 'packages':
      return !ctx.lightweight;
    case 'artifacts':
      return ctx.microservices.artifactory === true;
    case 'builds':
      return true;
    case 'releaseBundles':
      return ctx.microservices.distribution === true && ctx.entitlements.distribution === true;
    case 'xray':
      return ctx.microservices.xray === true && ctx.entitlements.scanning === true;
    case 'artifactoryRetention':
      // Its results screen is for administrators (the retention feature flag is false for everyone else).
      return ctx.features.coldStorage && ctx.admin === true;
    case 'pipelines':
      return ctx.microservices.pipelines === true && ctx.features.toolbarSearch;
  }
}

export function availableSearchTypes(ctx: SearchContext): SearchType[] {
  return SEARCH_TYPES.filter((t) => isSearchTypeAvailable(t, ctx));
}

/**
 * spec 001 §2: when a type is disabled, search falls back to packages — and, where this instance offers no
 * packages type either (a lightweight one), to the first type it offers (issue 22: never to a screen the
 * instance does not have). Builds is always offered, so there is always one.
 */
export function effectiveSearchType(type: SearchType, ctx: SearchContext): SearchType {
  if (isSearchTypeAvailable(type, ctx)) return type;
  if (isSearchTypeAvailable('packages', ctx)) return 'packages';
  return availableSearchTypes(ctx)[0] ?? type;
}

/**
 * spec 001 §4: the types that search within a selected project (the spec does not name them; ours): Archive
 * (cold storage) and Pipelines search the whole instance, so they are disabled while a project is selected.
 */
export const PROJECT_SEARCH_TYPES: readonly SearchType[] = [
  'packages',
  'artifacts',
  'builds',
  'releaseBundles',
  'xray',
];

/**
 * spec 001 §4: search is disabled on empty text or by the type's own rule, and for types without project
 * support when a specific project is selected; packages (spec 001 §2) is disabled when the term, ignoring
 * * and ?, is under 3 characters unless a context is chosen.
 */
export function isSearchDisabled(
  type: SearchType,
  text: string,
  contextChosen = false,
  projectSelected = false,
): boolean {
  if (text.trim() === '') return true;
  if (projectSelected && !PROJECT_SEARCH_TYPES.includes(type)) return true;
  if (type === 'packages') return !contextChosen && !meetsPackageSearchMinimum(text);
  return false;
}

/** spec 001 §2 results route of each type (packages, builds and security go to their own screens). */
export function searchResultsPath(type: SearchType, text: string): string {
  const q = new URLSearchParams({ q: text }).toString();
  switch (type) {
    case 'packages':
      return `/packages?${q}`;
    case 'artifacts':
      return `/artifactSearchResults?${q}`;
    case 'builds':
      return `/builds?${q}`;
    case 'releaseBundles':
      return `/bundles/source?${q}`;
    case 'xray':
      return `/xraySearchResults?${q}`;
    case 'artifactoryRetention':
      return `/artifactoryRetention/search?${q}`;
    case 'pipelines':
      return `/pipelinesSearchResults?${q}`;
  }
}

/** spec 001 §2: after a release-bundles path is entered, the toolbar type switches to release bundles. */
export function isReleaseBundlesPath(pathname: string): boolean {
  return /^\/(bundles|release-bundles)(\/|$)/.test(pathname);
}
