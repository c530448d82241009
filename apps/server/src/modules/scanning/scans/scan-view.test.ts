import { describe, expect, it } from 'vitest';
import type { ComponentFinding, ExtractedArtifact, Finding } from '../model.ts';
import { impactPath, npmRangeOf, sameFindings, severityCounts, xrayStatus } from './scan-view.ts';

const finding = (advisoryId: string, severity: Finding['severity']): Finding => ({
  advisoryId,
  aliases: [],
  summary: advisoryId,
  severity,
  cvssScore: null,
  cvssVector: null,
  fixedVersions: [],
  references: [],
  modified: '2024-01-01T00:00:00Z',
});

describe('issue 16: scan shaping', () => {
  it('spec 001 §3: counts by lower-case severity, each advisory once, zero counts dropped', () => {
    const findings: ComponentFinding[] = [
      { purl: 'pkg:npm/a@1', finding: finding('X-1', 'High') },
      { purl: 'pkg:npm/b@1', finding: finding('X-1', 'High') },
      { purl: 'pkg:npm/b@1', finding: finding('X-2', 'Medium') },
    ];
    expect(severityCounts(findings)).toEqual({ high: 1, medium: 1 });
    expect(severityCounts([])).toEqual({});
    expect(sameFindings(findings, [...findings].reverse())).toBe(true);
    expect(sameFindings(findings, findings.slice(1))).toBe(false);
  });

  it('issue 16: the impact path follows the dependency graph from the artifact to the component', () => {
    const artifact: ExtractedArtifact = {
      root: { purl: 'pkg:npm/app@1', ecosystem: 'npm', name: 'app', version: '1', licenses: [] },
      components: [
        { purl: 'pkg:npm/mid@2', ecosystem: 'npm', name: 'mid', version: '2', licenses: [] },
        { purl: 'pkg:npm/leaf@3', ecosystem: 'npm', name: 'leaf', version: '3', licenses: [] },
        { purl: 'pkg:npm/loose@4', ecosystem: 'npm', name: 'loose', version: '4', licenses: [] },
      ],
      dependencies: { 'pkg:npm/app@1': ['pkg:npm/mid@2'], 'pkg:npm/mid@2': ['pkg:npm/leaf@3'] },
    };
    expect(impactPath(artifact, 'pkg:npm/leaf@3', 'r/app.tgz')).toEqual([
      'r/app.tgz',
      'pkg:npm/app@1',
      'pkg:npm/mid@2',
      'pkg:npm/leaf@3',
    ]);
    expect(impactPath(artifact, 'pkg:npm/loose@4', 'r/app.tgz')).toEqual([
      'r/app.tgz',
      'pkg:npm/app@1',
      'pkg:npm/loose@4',
    ]);
  });

  it('issue 16: npm audit ranges from OSV events (introduced/fixed, last_affected, open, explicit versions)', () => {
    const record = {
      id: 'X',
      modified: '2024-01-01T00:00:00Z',
      affected: [
        {
          package: { ecosystem: 'npm', name: 'p' },
          ranges: [
            {
              type: 'SEMVER',
              events: [
                { introduced: '0' },
                { fixed: '1.2.3' },
                { introduced: '2.0.0' },
                { last_affected: '2.1.0' },
              ],
            },
            { type: 'GIT', events: [{ introduced: 'abc' }] },
            { type: 'ECOSYSTEM', events: [{ introduced: '3.0.0' }] },
          ],
          versions: ['0.0.1-beta'],
        },
        {
          package: { ecosystem: 'npm', name: 'other' },
          ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }] }],
        },
      ],
    };
    expect(npmRangeOf(record, 'p')).toBe('<1.2.3 || >=2.0.0 <=2.1.0 || >=3.0.0 || 0.0.1-beta');
    expect(npmRangeOf(record, 'none')).toBeNull();
  });

  it("spec 001 §3: scan status strings map to Xray's words", () => {
    expect(
      ['scanned', 'in progress', 'scan failed', 'not supported', 'not scanned'].map((s) =>
        xrayStatus(s as never),
      ),
    ).toEqual(['DONE', 'PENDING', 'FAILED', 'NOT_SUPPORTED', 'NOT_SCANNED']);
  });
});
