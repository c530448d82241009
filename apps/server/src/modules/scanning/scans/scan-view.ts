import {
  type ArtifactScan,
  ISSUE_SEVERITIES,
  type IssueSeverity,
  type ScannedComponent,
  type ScanStatus,
  type SecurityIssue,
} from '@granary/contracts';
import type { OsvRecord } from '../advisories/osv.ts';
import type { Component, ComponentFinding, ExtractedArtifact, Finding } from '../model.ts';

/**
 * Pure shaping of stored scans (issue 16): the package index's counts, the console's artifact scan,
 * Xray's summary and npm's bulk advisory answer, all from one artifact's components and findings.
 */

export type SeverityKey = 'critical' | 'high' | 'medium' | 'low' | 'unknown';
export type SeverityCounts = Partial<Record<SeverityKey, number>>;

const SEVERITY_KEY: Record<IssueSeverity, SeverityKey> = {
  Critical: 'critical',
  High: 'high',
  Medium: 'medium',
  Low: 'low',
  Unknown: 'unknown',
};

/** Severity rank, most severe first (spec 001 §9 orders security queries by it). */
export const severityRank = (s: IssueSeverity) => ISSUE_SEVERITIES.indexOf(s);

/** Vulnerabilities by lower-case severity, each advisory counted once per artifact, zero counts dropped (spec 001 §3). */
export function severityCounts(findings: ComponentFinding[]): SeverityCounts {
  const seen = new Map<string, IssueSeverity>();
  for (const f of findings) {
    const known = seen.get(f.finding.advisoryId);
    if (!known || severityRank(f.finding.severity) < severityRank(known))
      seen.set(f.finding.advisoryId, f.finding.severity);
  }
  const out: SeverityCounts = {};
  for (const s of seen.values()) {
    const k = SEVERITY_KEY[s];
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

/** CVE ids of a finding: its id when it is one, and its aliases that are. */
export function cvesOf(finding: Finding): string[] {
  return [...new Set([finding.advisoryId, ...finding.aliases].filter((id) => /^CVE-\d+-\d+$/i.test(id)))];
}

/** Every CVE of an artifact's findings, sorted. */
export const cveList = (findings: ComponentFinding[]) =>
  [...new Set(findings.flatMap((f) => cvesOf(f.finding)))].sort();

/** The artifact's own licences (its root component's); what package versions show. */
export const rootLicenses = (artifact: ExtractedArtifact | null) => artifact?.root.licenses ?? [];

/** Every component, the root first. */
export const allComponents = (artifact: ExtractedArtifact): Component[] => [
  artifact.root,
  ...artifact.components,
];

/** Every licence of an artifact's components, sorted. */
export const allLicenses = (artifact: ExtractedArtifact | null) =>
  artifact ? [...new Set(allComponents(artifact).flatMap((c) => c.licenses))].sort() : [];

/**
 * The chain from the artifact to a component (spec 001 §7 impact path): the artifact's
 * `repoKey/path`, then purls from the root down the dependency graph (breadth first: the shortest
 * chain). A component no declared chain reaches hangs under the root.
 */
export function impactPath(artifact: ExtractedArtifact, purl: string, artifactPath: string): string[] {
  const root = artifact.root.purl;
  if (purl === root) return [artifactPath, root];
  const parent = new Map<string, string>([[root, '']]);
  const queue = [root];
  while (queue.length > 0) {
    const at = queue.shift()!;
    for (const next of artifact.dependencies[at] ?? []) {
      if (parent.has(next)) continue;
      parent.set(next, at);
      if (next === purl) {
        const chain = [next];
        for (let p = at; p !== ''; p = parent.get(p) ?? '') chain.unshift(p);
        return [artifactPath, ...chain];
      }
      queue.push(next);
    }
  }
  return [artifactPath, root, purl];
}

/** Components with `direct`: the root and what the root declares. */
export function scannedComponents(artifact: ExtractedArtifact): ScannedComponent[] {
  const direct = new Set([artifact.root.purl, ...(artifact.dependencies[artifact.root.purl] ?? [])]);
  return allComponents(artifact).map((c) => ({
    purl: c.purl,
    ecosystem: c.ecosystem,
    name: c.name,
    version: c.version,
    licenses: c.licenses,
    direct: direct.has(c.purl),
    ...(c.location ? { location: c.location } : {}),
  }));
}

/** The findings as the console lists them, most severe first. */
export function securityIssues(
  artifact: ExtractedArtifact,
  findings: ComponentFinding[],
  artifactPath: string,
): SecurityIssue[] {
  const byPurl = new Map(allComponents(artifact).map((c) => [c.purl, c]));
  return findings
    .map(({ purl, finding }) => {
      const c = byPurl.get(purl);
      return {
        issueId: finding.advisoryId,
        cves: cvesOf(finding),
        summary: finding.summary,
        severity: finding.severity,
        cvssScore: finding.cvssScore,
        cvssVector: finding.cvssVector,
        componentPurl: purl,
        componentName: c?.name ?? purl,
        componentVersion: c?.version ?? '',
        fixedVersions: finding.fixedVersions,
        impactPath: impactPath(artifact, purl, artifactPath),
        references: finding.references,
      };
    })
    .sort(
      (a, b) =>
        severityRank(a.severity) - severityRank(b.severity) ||
        a.issueId.localeCompare(b.issueId) ||
        a.componentPurl.localeCompare(b.componentPurl),
    );
}

/** A stored scan as `GET /xray/ui/scan/{repoKey}/{path}` answers it (contracts `artifactScanSchema`). */
export function artifactScanView(input: {
  repoKey: string;
  path: string;
  status: ScanStatus;
  error: string | null;
  scannedAt: Date | null;
  artifact: ExtractedArtifact | null;
  findings: ComponentFinding[];
  blocked?: string | null;
}): ArtifactScan {
  const where = `${input.repoKey}/${input.path}`;
  return {
    repoKey: input.repoKey,
    path: input.path,
    status: input.status,
    error: input.error,
    scannedAt: input.scannedAt?.toISOString() ?? null,
    components: input.artifact ? scannedComponents(input.artifact) : [],
    issues: input.artifact ? securityIssues(input.artifact, input.findings, where) : [],
    licenses: allLicenses(input.artifact),
    vulnerabilities: severityCounts(input.findings),
    ...(input.blocked !== undefined ? { blocked: input.blocked } : {}),
  };
}

/** Two findings lists say the same (order aside): a re-match that changed nothing tells no one. */
export function sameFindings(a: ComponentFinding[], b: ComponentFinding[]): boolean {
  if (a.length !== b.length) return false;
  const key = (f: ComponentFinding) =>
    `${f.purl}\u0000${f.finding.advisoryId}\u0000${f.finding.modified}\u0000${f.finding.severity}\u0000${f.finding.fixedVersions.join(',')}`;
  const left = a.map(key).sort();
  const right = b.map(key).sort();
  return left.every((k, i) => k === right[i]);
}

// ---------------------------------------------------------------------------------------------
// Xray's `POST /xray/api/v1/summary/artifact`

export interface XraySummaryArtifact {
  general: { name: string; path: string; pkg_type: string; sha256: string; component_id: string };
  issues: {
    issue_id: string;
    summary: string;
    description: string;
    issue_type: 'security';
    severity: IssueSeverity;
    provider: string;
    cves: { cve: string; cvss_v3_score?: string; cvss_v3_vector?: string }[];
    created: string;
    impact_path: string[];
    components: { component_id: string; fixed_versions: string[] }[];
  }[];
  licenses: { name: string; full_name: string; more_info_url: string[]; components: string[] }[];
}

/** Xray's component id of a purl: `npm://name:version`, `gav://g:a:v`, `pypi://name:version`, … */
export function xrayComponentId(c: Pick<Component, 'purl' | 'name' | 'version'>): string {
  const type = /^pkg:([^/]+)\//.exec(c.purl)?.[1] ?? 'generic';
  const scheme: Record<string, string> = {
    npm: 'npm',
    maven: 'gav',
    pypi: 'pypi',
    deb: 'deb',
    apk: 'alpine',
    golang: 'go',
    cargo: 'cargo',
    gem: 'gem',
    nuget: 'nuget',
    oci: 'docker',
  };
  return `${scheme[type] ?? type}://${c.name}:${c.version}`;
}

export function xraySummary(input: {
  repoKey: string;
  path: string;
  packageType: string;
  sha256: string;
  artifact: ExtractedArtifact;
  findings: ComponentFinding[];
  licenseNames?: (name: string) => string;
}): XraySummaryArtifact {
  const { artifact } = input;
  const where = `default/${input.repoKey}/${input.path}`;
  const byPurl = new Map(allComponents(artifact).map((c) => [c.purl, c]));
  const issues = new Map<string, XraySummaryArtifact['issues'][number]>();
  for (const { purl, finding } of input.findings) {
    const c = byPurl.get(purl);
    const componentId = c ? xrayComponentId(c) : purl;
    let issue = issues.get(finding.advisoryId);
    if (!issue) {
      const cves = cvesOf(finding);
      issue = {
        issue_id: finding.advisoryId,
        summary: finding.summary,
        description: finding.summary,
        issue_type: 'security',
        severity: finding.severity,
        provider: 'OSV',
        cves: (cves.length > 0 ? cves : ['']).map((cve) => ({
          cve,
          ...(finding.cvssScore !== null ? { cvss_v3_score: String(finding.cvssScore) } : {}),
          ...(finding.cvssVector ? { cvss_v3_vector: finding.cvssVector } : {}),
        })),
        created: finding.modified,
        impact_path: [],
        components: [],
      };
      issues.set(finding.advisoryId, issue);
    }
    issue.components.push({ component_id: componentId, fixed_versions: finding.fixedVersions });
    issue.impact_path.push(impactPath(artifact, purl, where).join('/'));
  }
  const licenses = new Map<string, string[]>();
  for (const c of allComponents(artifact))
    for (const l of c.licenses.length > 0 ? c.licenses : ['Unknown'])
      licenses.set(l, [...(licenses.get(l) ?? []), xrayComponentId(c)]);
  return {
    general: {
      name: input.path.slice(input.path.lastIndexOf('/') + 1),
      path: where,
      pkg_type: input.packageType,
      sha256: input.sha256,
      component_id: xrayComponentId(artifact.root),
    },
    issues: [...issues.values()].sort(
      (a, b) => severityRank(a.severity) - severityRank(b.severity) || a.issue_id.localeCompare(b.issue_id),
    ),
    licenses: [...licenses].map(([name, components]) => ({
      name,
      full_name: input.licenseNames?.(name) ?? name,
      more_info_url: [],
      components,
    })),
  };
}

/** Xray's artifact status words for spec 001 §3's strings. */
export function xrayStatus(
  status: ScanStatus,
): 'DONE' | 'PENDING' | 'FAILED' | 'NOT_SUPPORTED' | 'NOT_SCANNED' {
  switch (status) {
    case 'scanned':
      return 'DONE';
    case 'in progress':
      return 'PENDING';
    case 'scan failed':
      return 'FAILED';
    case 'not supported':
      return 'NOT_SUPPORTED';
    default:
      return 'NOT_SCANNED';
  }
}

// ---------------------------------------------------------------------------------------------
// npm's bulk advisory endpoint (`npm audit`)

export interface NpmBulkAdvisory {
  id: string;
  url: string;
  title: string;
  severity: 'critical' | 'high' | 'moderate' | 'low' | 'info';
  vulnerable_versions: string;
  cwe: string[];
  cvss: { score: number; vectorString: string | null };
}

const NPM_SEVERITY: Record<IssueSeverity, NpmBulkAdvisory['severity']> = {
  Critical: 'critical',
  High: 'high',
  Medium: 'moderate',
  Low: 'low',
  Unknown: 'info',
};

/**
 * An OSV record's affected ranges for one npm package as one semver range (`>=1.0.0 <1.2.3 || 2.0.0`):
 * each SEMVER/ECOSYSTEM range's introduced…fixed (or …last_affected, or open) span, and the explicit
 * versions. Null when the record names no range or version of the package.
 */
export function npmRangeOf(record: OsvRecord, name: string): string | null {
  const parts: string[] = [];
  for (const a of record.affected ?? []) {
    if (a.package?.ecosystem !== 'npm' || a.package.name !== name) continue;
    for (const r of a.ranges ?? []) {
      if (r.type !== 'SEMVER' && r.type !== 'ECOSYSTEM') continue;
      let from: string | null = null;
      for (const e of r.events) {
        if (e.introduced !== undefined) {
          if (from !== null) parts.push(from === '0' ? '*' : `>=${from}`);
          from = e.introduced;
        } else if (e.fixed !== undefined || e.last_affected !== undefined) {
          const upper = e.fixed !== undefined ? `<${e.fixed}` : `<=${e.last_affected}`;
          parts.push(from === null || from === '0' ? upper : `>=${from} ${upper}`);
          from = null;
        }
      }
      if (from !== null) parts.push(from === '0' ? '*' : `>=${from}`);
    }
    parts.push(...(a.versions ?? []));
  }
  return parts.length > 0 ? [...new Set(parts)].join(' || ') : null;
}

/** Without the record: every version below the lowest fix (or any version when none is known). */
export const npmRangeFromFixes = (fixed: string[]) =>
  fixed.length === 1 ? `<${fixed[0]}` : fixed.length === 0 ? '*' : fixed.map((f) => `<${f}`).join(' || ');

/** One finding as npm's bulk answer lists it. */
export function npmAdvisory(finding: Finding, vulnerableVersions: string): NpmBulkAdvisory {
  const url =
    finding.references.find((r) => r.includes(finding.advisoryId)) ??
    finding.references[0] ??
    `https://osv.dev/vulnerability/${finding.advisoryId}`;
  return {
    id: finding.advisoryId,
    url,
    title: finding.summary || finding.advisoryId,
    severity: NPM_SEVERITY[finding.severity],
    vulnerable_versions: vulnerableVersions,
    cwe: [],
    cvss: { score: finding.cvssScore ?? 0, vectorString: finding.cvssVector },
  };
}
