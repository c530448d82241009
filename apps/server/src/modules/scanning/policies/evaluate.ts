import { createRequire } from 'node:module';
import type { XrayPolicy, XrayPolicyRule, XrayWatch } from '@granary/contracts';
import type { Component, ComponentFinding, ScanRecord } from '../model.ts';

/**
 * Policy evaluation (issue 16 "Policies and watches"), pure: a scan record, the watches covering its
 * repository and their policies → the violations it has. No database, no clock: the service stores
 * what this finds and applies ignore rules when it reads.
 */

const requireJson = createRequire(import.meta.url);
/** SPDX licence ids, current and deprecated (`GPL-2.0`, still common in package metadata). */
const SPDX_IDS = new Set(
  [
    ...(requireJson('spdx-license-ids/index.json') as string[]),
    ...(requireJson('spdx-license-ids/deprecated.json') as string[]),
  ].map((id) => id.toLowerCase()),
);

/** Severities, most severe first (contracts ISSUE_SEVERITIES). */
const SEVERITY_RANK: Record<string, number> = { Critical: 4, High: 3, Medium: 2, Low: 1, Unknown: 0 };

/** What a licence violation is rated (Xray's default for licence rules). */
export const LICENSE_VIOLATION_SEVERITY = 'High';

/** The licence issue of a component whose licence is not known. */
export const UNKNOWN_LICENSE = 'Unknown';

export interface ViolationCandidate {
  watch: string;
  policy: string;
  rule: string;
  type: 'security' | 'license';
  severity: string;
  issueId: string;
  cves: string[];
  summary: string;
  componentPurl: string;
  componentName: string;
  componentVersion: string;
  blocking: boolean;
  failBuild: boolean;
  /** the rule's webhook subscriptions (`actions.webhooks`): a `policy.violation` event is published */
  webhooks: string[];
}

/** A watch covers the repository: active, and naming it (or all repositories). */
export function watchCovers(watch: XrayWatch, repoKey: string): boolean {
  if (!watch.general_data.active) return false;
  return watch.project_resources.resources.some(
    (r) =>
      r.type === 'all-repos' || (r.type === 'repository' && r.name?.toLowerCase() === repoKey.toLowerCase()),
  );
}

/** Rules in priority order (1 first). */
const byPriority = (rules: XrayPolicyRule[]) => [...rules].sort((a, b) => a.priority - b.priority);

/** A security rule's criteria match one finding (all criteria given must hold). */
export function securityRuleMatches(rule: XrayPolicyRule, f: ComponentFinding['finding']): boolean {
  const c = rule.criteria;
  const given =
    c.min_severity !== undefined || c.cvss_range !== undefined || (c.vulnerability_ids?.length ?? 0) > 0;
  if (!given) return false;
  if (c.min_severity && c.min_severity !== 'All Severities')
    if ((SEVERITY_RANK[f.severity] ?? 0) < (SEVERITY_RANK[c.min_severity] ?? 0)) return false;
  if (c.cvss_range) {
    if (f.cvssScore === null) return false;
    if (f.cvssScore < c.cvss_range.from || f.cvssScore > c.cvss_range.to) return false;
  }
  if (c.vulnerability_ids && c.vulnerability_ids.length > 0) {
    const ids = new Set(c.vulnerability_ids.map((id) => id.toUpperCase()));
    if (![f.advisoryId, ...f.aliases].some((id) => ids.has(id.toUpperCase()))) return false;
  }
  if (c.fix_version_dependant && f.fixedVersions.length === 0) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Licence expressions: `MIT`, `MIT OR Apache-2.0`, `(GPL-2.0-only WITH Classpath-exception-2.0 AND BSD-3-Clause)`

type Expr = { op: 'or' | 'and'; items: Expr[] } | { id: string };

/** Parses an SPDX licence expression; null when it is not one (kept verbatim: an unknown licence). */
export function parseLicenseExpression(text: string): Expr | null {
  const tokens = text.match(/\(|\)|[^\s()]+/g) ?? [];
  let i = 0;
  const peek = () => tokens[i]?.toUpperCase();
  function primary(): Expr | null {
    const t = tokens[i];
    if (t === undefined) return null;
    if (t === '(') {
      i++;
      const inner = or();
      if (!inner || tokens[i] !== ')') return null;
      i++;
      return inner;
    }
    if (t === ')' || ['AND', 'OR', 'WITH'].includes(t.toUpperCase())) return null;
    i++;
    let id = t;
    if (peek() === 'WITH') {
      i++;
      const exception = tokens[i++];
      if (!exception) return null;
      id = `${t} WITH ${exception}`;
    }
    return { id };
  }
  function and(): Expr | null {
    const items: Expr[] = [];
    for (;;) {
      const p = primary();
      if (!p) return null;
      items.push(p);
      if (peek() !== 'AND') break;
      i++;
    }
    return items.length === 1 ? items[0]! : { op: 'and', items };
  }
  function or(): Expr | null {
    const items: Expr[] = [];
    for (;;) {
      const p = and();
      if (!p) return null;
      items.push(p);
      if (peek() !== 'OR') break;
      i++;
    }
    return items.length === 1 ? items[0]! : { op: 'or', items };
  }
  const expr = or();
  return expr && i === tokens.length ? expr : null;
}

const baseId = (id: string) => id.split(' WITH ')[0]!.replace(/\+$/, '');
const leaves = (e: Expr): string[] => ('id' in e ? [e.id] : e.items.flatMap(leaves));

/** Whether the expression can be satisfied by licences `ok` accepts (OR: any branch; AND: every part). */
function satisfiable(e: Expr, ok: (id: string) => boolean): boolean {
  if ('id' in e) return ok(e.id);
  return e.op === 'or' ? e.items.some((x) => satisfiable(x, ok)) : e.items.every((x) => satisfiable(x, ok));
}

const sameLicense = (list: string[]) => {
  const set = new Set(list.map((l) => l.toLowerCase()));
  return (id: string) => set.has(id.toLowerCase()) || set.has(baseId(id).toLowerCase());
};

/**
 * The licence issues one licence rule finds on one component: `[licence]` when it breaks the rule
 * (not allowed, banned, or unknown when unknown ones are not allowed), else none.
 */
export function licenseRuleIssues(
  rule: XrayPolicyRule,
  component: Pick<Component, 'licenses'>,
  knownLicenses: (id: string) => boolean = isKnownLicense,
): string[] {
  const c = rule.criteria;
  const allowUnknown = c.allow_unknown ?? true;
  const issues: string[] = [];
  const licenses = component.licenses.filter((l) => l.trim() !== '');
  if (licenses.length === 0) return allowUnknown ? [] : [UNKNOWN_LICENSE];
  for (const text of licenses) {
    const expr = parseLicenseExpression(text);
    const known = expr !== null && leaves(expr).every((id) => knownLicenses(baseId(id)));
    if (!known) {
      if (!allowUnknown) issues.push(text);
      continue;
    }
    if (
      c.allowed_licenses &&
      c.allowed_licenses.length > 0 &&
      !satisfiable(expr, sameLicense(c.allowed_licenses))
    )
      issues.push(text);
    else if (c.banned_licenses && c.banned_licenses.length > 0) {
      const banned = sameLicense(c.banned_licenses);
      if (!satisfiable(expr, (id) => !banned(id))) issues.push(text);
    }
  }
  return [...new Set(issues)];
}

/** An SPDX licence id (the SPDX list; `LicenseRef-…` counts as a declared one). */
export function isKnownLicense(id: string): boolean {
  return SPDX_IDS.has(id.toLowerCase()) || /^LicenseRef-/i.test(id);
}

const cvesOf = (aliases: string[], id: string) =>
  [...new Set([id, ...aliases].filter((a) => /^CVE-\d{4}-\d+$/i.test(a)))].sort();

/**
 * Every violation of a scan under the watches given (those covering its repository are used),
 * each watch's assigned policies in order, each policy's rules by priority: an issue of a component
 * is reported once per policy, by the first rule that matches it.
 */
export function evaluateScan(
  scan: ScanRecord,
  watches: XrayWatch[],
  policies: Map<string, XrayPolicy>,
  knownLicenses?: (id: string) => boolean,
): ViolationCandidate[] {
  if (scan.status !== 'scanned' || !scan.artifact) return [];
  const out: ViolationCandidate[] = [];
  const byPurl = new Map<string, Component>();
  for (const c of [scan.artifact.root, ...scan.artifact.components]) byPurl.set(c.purl, c);
  for (const watch of watches) {
    if (!watchCovers(watch, scan.repoKey)) continue;
    for (const assigned of watch.assigned_policies) {
      const policy = policies.get(assigned.name.toLowerCase());
      if (!policy) continue;
      const seen = new Set<string>();
      for (const rule of byPriority(policy.rules)) {
        const actions = rule.actions ?? {};
        const base = {
          watch: watch.general_data.name,
          policy: policy.name,
          rule: rule.name,
          blocking: actions.block_download?.active ?? false,
          failBuild: actions.fail_build ?? false,
          webhooks: actions.webhooks ?? [],
        };
        if (policy.type === 'security') {
          for (const { purl, finding } of scan.findings) {
            const key = `${finding.advisoryId}|${purl}`;
            if (seen.has(key) || !securityRuleMatches(rule, finding)) continue;
            seen.add(key);
            const component = byPurl.get(purl);
            out.push({
              ...base,
              type: 'security',
              severity: finding.severity,
              issueId: finding.advisoryId,
              cves: cvesOf(finding.aliases, finding.advisoryId),
              summary: finding.summary,
              componentPurl: purl,
              componentName: component?.name ?? purl,
              componentVersion: component?.version ?? '',
            });
          }
        } else {
          for (const component of byPurl.values())
            for (const license of licenseRuleIssues(rule, component, knownLicenses)) {
              const key = `${license}|${component.purl}`;
              if (seen.has(key)) continue;
              seen.add(key);
              out.push({
                ...base,
                type: 'license',
                severity: LICENSE_VIOLATION_SEVERITY,
                issueId: license,
                cves: [],
                summary:
                  license === UNKNOWN_LICENSE
                    ? `${component.name} ${component.version} declares no known licence`
                    : `${component.name} ${component.version} is licensed ${license}, which policy '${policy.name}' does not allow`,
                componentPurl: component.purl,
                componentName: component.name,
                componentVersion: component.version,
              });
            }
        }
      }
    }
  }
  return out;
}
