import type { XrayPolicy, XrayPolicyRule, XrayWatch } from '@granary/contracts';
import { describe, expect, it } from 'vitest';
import type { Component, Finding, ScanRecord } from '../model.ts';
import { evaluateScan, licenseRuleIssues, parseLicenseExpression, watchCovers } from './evaluate.ts';

const component = (name: string, version: string, licenses: string[] = ['MIT']): Component => ({
  purl: `pkg:npm/${name}@${version}`,
  ecosystem: 'npm',
  name,
  version,
  licenses,
});

const finding = (id: string, over: Partial<Finding> = {}): Finding => ({
  advisoryId: id,
  aliases: [],
  summary: `${id} summary`,
  severity: 'High',
  cvssScore: 7.5,
  cvssVector: null,
  fixedVersions: ['4.17.21'],
  references: [],
  modified: '2024-01-01T00:00:00Z',
  ...over,
});

function scan(findings: { purl: string; finding: Finding }[], components: Component[] = []): ScanRecord {
  return {
    repositoryId: '00000000-0000-0000-0000-000000000001',
    repoKey: 'npm-local',
    packageType: 'npm',
    path: 'app/-/app-1.0.0.tgz',
    sha256: 'a'.repeat(64),
    status: 'scanned',
    error: null,
    scannedAt: new Date(),
    artifact: { root: component('app', '1.0.0'), components, dependencies: {} },
    findings,
  };
}

const watch = (
  name: string,
  policies: XrayPolicy[],
  resources: XrayWatch['project_resources']['resources'] = [{ type: 'repository', name: 'npm-local' }],
): XrayWatch => ({
  general_data: { name, active: true },
  project_resources: { resources },
  assigned_policies: policies.map((p) => ({ name: p.name, type: p.type })),
});

const rule = (criteria: XrayPolicyRule['criteria'], name = 'r1', priority = 1): XrayPolicyRule => ({
  name,
  priority,
  criteria,
  actions: { block_download: { active: true, unscanned: false } },
});

const policy = (name: string, type: 'security' | 'license', rules: XrayPolicyRule[]): XrayPolicy => ({
  name,
  type,
  rules,
});

function run(p: XrayPolicy, record: ScanRecord, w = watch('w', [p])) {
  return evaluateScan(record, [w], new Map([[p.name.toLowerCase(), p]]));
}

const lodash = component('lodash', '4.17.20');
const lodashPurl = lodash.purl;

describe('issue 16 policies: security rules', () => {
  const record = scan(
    [
      {
        purl: lodashPurl,
        finding: finding('GHSA-high', { severity: 'High', cvssScore: 7.5, aliases: ['CVE-2021-23337'] }),
      },
      {
        purl: lodashPurl,
        finding: finding('GHSA-low', { severity: 'Low', cvssScore: 3.1, fixedVersions: [] }),
      },
      { purl: lodashPurl, finding: finding('GHSA-crit', { severity: 'Critical', cvssScore: 9.8 }) },
    ],
    [lodash],
  );

  it('issue 16: min_severity High reports High and Critical findings, not Low', () => {
    const found = run(policy('sec', 'security', [rule({ min_severity: 'High' })]), record);
    expect(found.map((v) => v.issueId).sort()).toEqual(['GHSA-crit', 'GHSA-high']);
    expect(found[0]).toMatchObject({
      watch: 'w',
      policy: 'sec',
      rule: 'r1',
      type: 'security',
      blocking: true,
      componentName: 'lodash',
      componentVersion: '4.17.20',
    });
  });

  it("issue 16: min_severity 'All Severities' reports every finding", () => {
    expect(run(policy('sec', 'security', [rule({ min_severity: 'All Severities' })]), record)).toHaveLength(
      3,
    );
  });

  it('issue 16: cvss_range keeps findings whose score is inside the range (inclusive)', () => {
    const found = run(policy('sec', 'security', [rule({ cvss_range: { from: 3.1, to: 7.5 } })]), record);
    expect(found.map((v) => v.issueId).sort()).toEqual(['GHSA-high', 'GHSA-low']);
  });

  it('issue 16: vulnerability_ids match the advisory id or one of its aliases (a CVE)', () => {
    const found = run(policy('sec', 'security', [rule({ vulnerability_ids: ['cve-2021-23337'] })]), record);
    expect(found.map((v) => v.issueId)).toEqual(['GHSA-high']);
    expect(found[0]!.cves).toEqual(['CVE-2021-23337']);
  });

  it('issue 16: fix_version_dependant reports only findings that have a fixed version', () => {
    const found = run(
      policy('sec', 'security', [rule({ min_severity: 'Low', fix_version_dependant: true })]),
      record,
    );
    expect(found.map((v) => v.issueId).sort()).toEqual(['GHSA-crit', 'GHSA-high']);
  });

  it('issue 16: rules apply in priority order; an issue is reported once per policy, by the first rule matching it', () => {
    const p = policy('sec', 'security', [
      {
        ...rule({ min_severity: 'Low' }, 'all', 2),
        actions: { block_download: { active: false, unscanned: false } },
      },
      rule({ min_severity: 'Critical' }, 'critical', 1),
    ]);
    const found = run(p, record);
    expect(found).toHaveLength(3);
    expect(found.find((v) => v.issueId === 'GHSA-crit')).toMatchObject({ rule: 'critical', blocking: true });
    expect(found.find((v) => v.issueId === 'GHSA-low')).toMatchObject({ rule: 'all', blocking: false });
  });

  it('issue 16: a watch covers only the repositories it names (or all-repos), and only while active', () => {
    const p = policy('sec', 'security', [rule({ min_severity: 'Low' })]);
    expect(run(p, record, watch('other', [p], [{ type: 'repository', name: 'pypi-local' }]))).toEqual([]);
    expect(run(p, record, watch('all', [p], [{ type: 'all-repos' }]))).toHaveLength(3);
    const inactive = watch('off', [p]);
    inactive.general_data.active = false;
    expect(watchCovers(inactive, 'npm-local')).toBe(false);
    expect(run(p, record, inactive)).toEqual([]);
  });

  it("issue 16: an artifact that is not 'scanned' has no violations", () => {
    const p = policy('sec', 'security', [rule({ min_severity: 'Low' })]);
    expect(run(p, { ...record, status: 'in progress' })).toEqual([]);
  });
});

describe('issue 16 policies: licence rules', () => {
  const r = (criteria: XrayPolicyRule['criteria']) => rule(criteria);

  it('issue 16: allowed_licenses — anything else violates; an OR expression passes when one branch is allowed', () => {
    const allowed = r({ allowed_licenses: ['MIT', 'Apache-2.0'] });
    expect(licenseRuleIssues(allowed, { licenses: ['MIT'] })).toEqual([]);
    expect(licenseRuleIssues(allowed, { licenses: ['GPL-3.0-only'] })).toEqual(['GPL-3.0-only']);
    expect(licenseRuleIssues(allowed, { licenses: ['GPL-3.0-only OR MIT'] })).toEqual([]);
    expect(licenseRuleIssues(allowed, { licenses: ['(MIT AND GPL-3.0-only)'] })).toEqual([
      '(MIT AND GPL-3.0-only)',
    ]);
  });

  it('issue 16: banned_licenses — a banned licence violates unless an OR branch avoids it', () => {
    const banned = r({ banned_licenses: ['GPL-3.0-only', 'AGPL-3.0-only'] });
    expect(licenseRuleIssues(banned, { licenses: ['GPL-3.0-only'] })).toEqual(['GPL-3.0-only']);
    expect(licenseRuleIssues(banned, { licenses: ['MIT'] })).toEqual([]);
    expect(licenseRuleIssues(banned, { licenses: ['GPL-3.0-only OR MIT'] })).toEqual([]);
    expect(licenseRuleIssues(banned, { licenses: ['MIT AND AGPL-3.0-only'] })).toEqual([
      'MIT AND AGPL-3.0-only',
    ]);
  });

  it('issue 16: allow_unknown false — an unrecognised or missing licence violates; allowed by default', () => {
    const strict = r({ banned_licenses: ['GPL-3.0-only'], allow_unknown: false });
    expect(licenseRuleIssues(strict, { licenses: ['Some Custom Licence v2'] })).toEqual([
      'Some Custom Licence v2',
    ]);
    expect(licenseRuleIssues(strict, { licenses: [] })).toEqual(['Unknown']);
    expect(licenseRuleIssues(strict, { licenses: ['GPL-2.0'] })).toEqual([]); // deprecated SPDX id: known
    const lenient = r({ banned_licenses: ['GPL-3.0-only'] });
    expect(licenseRuleIssues(lenient, { licenses: ['Some Custom Licence v2'] })).toEqual([]);
    expect(licenseRuleIssues(lenient, { licenses: [] })).toEqual([]);
  });

  it('issue 16: a licence policy reports each component of the artifact that breaks it', () => {
    const p = policy('lic', 'license', [r({ allowed_licenses: ['MIT'] })]);
    const found = run(
      p,
      scan([], [component('left-pad', '1.0.0', ['WTFPL']), component('ok', '1.0.0', ['MIT'])]),
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      type: 'license',
      issueId: 'WTFPL',
      componentName: 'left-pad',
      severity: 'High',
    });
  });

  it('issue 16: licence expressions parse with AND, OR, WITH and parentheses; others are not expressions', () => {
    expect(parseLicenseExpression('(GPL-2.0-only WITH Classpath-exception-2.0 OR MIT)')).toEqual({
      op: 'or',
      items: [{ id: 'GPL-2.0-only WITH Classpath-exception-2.0' }, { id: 'MIT' }],
    });
    expect(parseLicenseExpression('MIT AND')).toBeNull();
    expect(parseLicenseExpression('(MIT')).toBeNull();
  });
});
