import { type ComponentSearchRow, ISSUE_SEVERITIES, packageIdOf } from '@granary/contracts';
import { packagePath } from '../packages/packageRules.ts';

/** The toolbar's Security & Compliance search results (spec 001 §2): `/xraySearchResults?q=…`. */
export const XRAY_SEARCH_PATH = '/xraySearchResults';

/** The artifact in the repository tree browser. */
export const artifactTreePath = (repoKey: string, path: string) =>
  `/repos/tree/General/${encodeURIComponent(repoKey)}/${path.split('/').map(encodeURIComponent).join('/')}`;

/**
 * Severity counts, most severe first, zero counts dropped (spec 001 §3): `{high: 2, low: 0}` → `[['High', 2]]`.
 * Severities the contracts do not name keep their own spelling, after the known ones.
 */
export function severityCounts(vulnerabilities: Record<string, number>): [string, number][] {
  const order = ISSUE_SEVERITIES.map((s) => s.toLowerCase());
  return Object.entries(vulnerabilities)
    .filter(([, n]) => n > 0)
    .sort(([a], [b]) => {
      const ia = order.indexOf(a.toLowerCase());
      const ib = order.indexOf(b.toLowerCase());
      return (ia < 0 ? order.length : ia) - (ib < 0 ? order.length : ib) || a.localeCompare(b);
    })
    .map(([s, n]) => {
      const known = ISSUE_SEVERITIES.find((k) => k.toLowerCase() === s.toLowerCase());
      return [known ?? s, n];
    });
}

/**
 * Where a row's component leads: the package version when the artifact is that component's own file (its name
 * holds the component's name and version, e.g. `widget/-/widget-1.0.3.tgz`), otherwise the artifact that
 * contains it (an OS package in an image layer, a bundled dependency) in the tree browser.
 */
export function componentLink(row: ComponentSearchRow): string {
  const file = (row.path.split('/').at(-1) ?? '').toLowerCase();
  const shortName = (row.name.split(/[/:]/).at(-1) ?? row.name).toLowerCase();
  const own =
    row.version !== '' &&
    file.includes(row.version.toLowerCase()) &&
    (file.includes(shortName) || file.includes(shortName.replace(/-/g, '_')));
  return own
    ? packagePath(packageIdOf(row.pkgType, row.name), row.version)
    : artifactTreePath(row.repoKey, row.path);
}
