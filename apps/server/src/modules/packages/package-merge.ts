import { dropZeroCounts, packageIdOf, SEVERITIES } from '@granary/contracts';
import semver from 'semver';
import type { RepositoryHead } from '../repositories/repositories.api.ts';
import type { PackageListRow, VersionListRow } from './packages.queries.ts';
import type { SeverityCounts } from './packages.schema.ts';
import { latestOf } from './packages.service.ts';

export interface PackageNode {
  id: string;
  name: string;
  packageType: string;
  description: string;
  created: string;
  modified: string;
  versionsCount: number;
  latestVersion: string | null;
  stats: { downloads: number; followers: number };
  licenses: string[];
  tags: string[];
  repos: { name: string; type: string }[];
  vulnerabilities: SeverityCounts;
  operationalRisk: { riskLevel: string | null } | null;
}

export interface VersionNode {
  name: string;
  packageId: string;
  packageType: string;
  packageName: string;
  created: string;
  modified: string;
  description: string;
  repos: { name: string; type: string; leadFilePath: string; repositoryId: string }[];
  licenses: string[];
  size: number;
  stats: { downloadCount: number };
  vulnerabilities: SeverityCounts;
  operationalRisk: { riskLevel: string | null } | null;
  dependencies: { name: string; range?: string; scope?: string }[];
  release: boolean;
  includeFiles: boolean;
}

/** A version as merging packages needs it. */
export interface VersionSummary {
  version: string;
  lead_path: string;
  release: boolean;
  created_at: Date;
}

/** Whether the caller may read a version's lead file in a repository. */
export type LeadCheck = (repo: RepositoryHead, leadPath: string) => Promise<boolean>;

/** Version names by semantic version; names that are not semver after those, by natural order. */
export function compareVersionNames(a: string, b: string): number {
  const va = semver.valid(a, { loose: true });
  const vb = semver.valid(b, { loose: true });
  if (va && vb) return semver.compare(va, vb, { loose: true }) || a.localeCompare(b);
  if (va) return 1;
  if (vb) return -1;
  return a.localeCompare(b, 'en', { numeric: true });
}

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

function unionSorted(lists: string[][]): string[] {
  return [...new Set(lists.flat())].sort();
}

function addCounts(into: SeverityCounts, from: SeverityCounts | null | undefined) {
  for (const s of SEVERITIES) {
    const n = from?.[s];
    if (typeof n === 'number' && n > 0) into[s] = (into[s] ?? 0) + n;
  }
}

const keyOf = (r: { package_type: string; name: string }) => `${r.package_type}\u0000${r.name}`;

/**
 * Package rows merged into packages by (type, name), keyed `{type}\0{name}`, with the caller's path
 * checks. Versions are read (`versionsOf`) only when they change the answer: a package in several
 * repositories, or releases only; a package in one repository is seen when its latest version's lead
 * file is readable.
 */
export async function mergePackages(
  rows: PackageListRow[],
  byId: Map<string, RepositoryHead>,
  opts: {
    releasesOnly: boolean;
    versionsOf: (packageIds: string[]) => Promise<Map<string, VersionSummary[]>>;
    canRead: LeadCheck;
  },
): Promise<Map<string, PackageNode>> {
  const out = new Map<string, PackageNode>();
  rows = rows.filter((r) => byId.has(r.repository_id));
  if (rows.length === 0) return out;
  const groups = new Map<string, typeof rows>();
  for (const r of rows) groups.set(keyOf(r), [...(groups.get(keyOf(r)) ?? []), r]);
  const needVersions = rows.filter((r) => opts.releasesOnly || groups.get(keyOf(r))!.length > 1);
  const versions = needVersions.length > 0 ? await opts.versionsOf(needVersions.map((r) => r.id)) : new Map();
  for (const [k, group] of groups) {
    const first = group[0]!;
    let names: Set<string> | null = null;
    let visibleVersions: { version: string; createdAt: Date }[] = [];
    const usedRows: typeof rows = [];
    for (const r of group) {
      const list = versions.get(r.id);
      if (!list) {
        if (!r.latest_lead || (await opts.canRead(byId.get(r.repository_id)!, r.latest_lead)))
          usedRows.push(r);
        continue;
      }
      const repo = byId.get(r.repository_id)!;
      let any = false;
      for (const v of list) {
        if (opts.releasesOnly && !v.release) continue;
        if (!(await opts.canRead(repo, v.lead_path))) continue;
        any = true;
        names ??= new Set();
        names.add(v.version);
        visibleVersions.push({ version: v.version, createdAt: v.created_at });
      }
      if (any) usedRows.push(r);
    }
    if (usedRows.length === 0) continue;
    const newest = usedRows.reduce((a, b) => (new Date(b.modified_at) > new Date(a.modified_at) ? b : a));
    const vulnerabilities: SeverityCounts = {};
    for (const r of usedRows) addCounts(vulnerabilities, r.vulnerabilities);
    let latest: string | null;
    if (names) {
      visibleVersions = visibleVersions.filter(
        (v, i, a) => a.findIndex((x) => x.version === v.version) === i,
      );
      latest = latestOf(visibleVersions);
    } else latest = first.latest_version;
    out.set(k, {
      id: packageIdOf(first.package_type, first.name),
      name: first.name,
      packageType: first.package_type,
      description: newest.description,
      created: iso(usedRows.map((r) => new Date(r.created_at)).reduce((a, b) => (a < b ? a : b))),
      modified: iso(newest.modified_at),
      versionsCount: names ? names.size : usedRows.reduce((n, r) => n + r.versions_count, 0),
      latestVersion: latest,
      stats: { downloads: usedRows.reduce((n, r) => n + Number(r.downloads), 0), followers: 0 },
      licenses: unionSorted(usedRows.map((r) => r.licenses)),
      tags: unionSorted(usedRows.map((r) => r.tags)),
      repos: usedRows.map((r) => {
        const repo = byId.get(r.repository_id)!;
        return { name: repo.key, type: repo.rclass };
      }),
      vulnerabilities: dropZeroCounts(vulnerabilities),
      operationalRisk: newest.risk_level ? { riskLevel: newest.risk_level } : null,
    });
  }
  return out;
}

/**
 * Version rows of one package merged by version name across repositories (the caller's path checks
 * first): repositories listed by key, dates widened, downloads summed, licences and counts unioned.
 */
export async function mergeVersions(
  rows: VersionListRow[],
  byId: Map<string, RepositoryHead>,
  pkg: { packageType: string; name: string },
  opts: { includeFiles: boolean; canRead: LeadCheck },
): Promise<VersionNode[]> {
  const merged = new Map<string, VersionNode>();
  for (const r of rows) {
    const repo = byId.get(r.repository_id)!;
    if (!(await opts.canRead(repo, r.lead_path))) continue;
    const existing = merged.get(r.version);
    const entry = { name: repo.key, type: repo.rclass, leadFilePath: r.lead_path, repositoryId: repo.id };
    if (existing) {
      existing.repos.push(entry);
      existing.created = iso(
        new Date(Math.min(Date.parse(existing.created), new Date(r.created_at).getTime())),
      );
      existing.modified = iso(
        new Date(Math.max(Date.parse(existing.modified), new Date(r.modified_at).getTime())),
      );
      existing.stats.downloadCount += Number(r.downloads);
      existing.licenses = unionSorted([existing.licenses, r.licenses]);
      addCounts(existing.vulnerabilities, r.vulnerabilities);
      continue;
    }
    const vulnerabilities: SeverityCounts = {};
    addCounts(vulnerabilities, r.vulnerabilities);
    merged.set(r.version, {
      name: r.version,
      packageId: packageIdOf(pkg.packageType, pkg.name),
      packageType: pkg.packageType,
      packageName: pkg.name,
      created: iso(r.created_at),
      modified: iso(r.modified_at),
      description: r.description,
      repos: [entry],
      licenses: [...r.licenses].sort(),
      size: Number(r.size),
      stats: { downloadCount: Number(r.downloads) },
      vulnerabilities,
      operationalRisk: r.risk_level ? { riskLevel: r.risk_level } : null,
      dependencies: r.dependencies,
      release: r.release,
      includeFiles: opts.includeFiles,
    });
  }
  for (const v of merged.values()) {
    v.vulnerabilities = dropZeroCounts(v.vulnerabilities);
    v.repos.sort((a, b) => a.name.localeCompare(b.name));
  }
  return [...merged.values()];
}
