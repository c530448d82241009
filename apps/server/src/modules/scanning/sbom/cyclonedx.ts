import { randomUUID } from 'node:crypto';
import { isSpdxExpression } from '../components/licenses.ts';
import type { Component, ExtractedArtifact, Finding } from '../model.ts';
import { type SbomMeta, SPDX_IDS } from './sbom-meta.ts';

/**
 * CycloneDX 1.6 JSON of an artifact (issue 16 "SBOM"): the root as `metadata.component`, every
 * component with its purl (its `bom-ref`) and licences, the dependency graph, and the findings as
 * VEX (`vulnerabilities` with ratings, the components they affect and an analysis state).
 */

export type CycloneDxLicense = { license: { id: string } | { name: string } } | { expression: string };

/** Licences as CycloneDX takes them: SPDX ids as `id`, other names as `name`, or one `expression`. */
export function cycloneDxLicenses(licenses: string[]): CycloneDxLicense[] {
  if (licenses.length === 0) return [];
  const simple = licenses.every((l) => SPDX_IDS.has(l) || !isSpdxExpression(l));
  if (simple) return licenses.map((l) => ({ license: SPDX_IDS.has(l) ? { id: l } : { name: l } }));
  // An expression (`MIT OR Apache-2.0`): the schema takes one expression, not a mix.
  if (licenses.every(isSpdxExpression))
    return [
      { expression: licenses.length === 1 ? licenses[0]! : licenses.map((l) => `(${l})`).join(' AND ') },
    ];
  return licenses.map((l) => ({ license: SPDX_IDS.has(l) ? { id: l } : { name: l } }));
}

function cdxComponent(c: Component, type: string, sha256?: string) {
  const licenses = cycloneDxLicenses(c.licenses);
  const slash = c.ecosystem === 'Maven' ? c.name.indexOf(':') : -1;
  return {
    type,
    'bom-ref': c.purl,
    ...(slash > 0 ? { group: c.name.slice(0, slash), name: c.name.slice(slash + 1) } : { name: c.name }),
    version: c.version,
    purl: c.purl,
    ...(licenses.length > 0 ? { licenses } : {}),
    ...(sha256 ? { hashes: [{ alg: 'SHA-256', content: sha256 }] } : {}),
    ...(c.location ? { properties: [{ name: 'granary:location', value: c.location }] } : {}),
  };
}

function ratingMethod(vector: string | null): string {
  if (!vector) return 'other';
  if (vector.startsWith('CVSS:4.0/')) return 'CVSSv4';
  if (vector.startsWith('CVSS:3.1/')) return 'CVSSv31';
  if (vector.startsWith('CVSS:3.0/')) return 'CVSSv3';
  if (/^\(?AV:[LAN]/.test(vector)) return 'CVSSv2';
  return 'other';
}

const isUrl = (s: string) => {
  try {
    const u = new URL(s);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
};

const isDateTime = (s: string) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(s);

/** The advisory source an OSV id comes from (its prefix). */
function sourceOf(id: string): { name: string; url?: string } {
  if (id.startsWith('CVE-')) return { name: 'NVD', url: `https://nvd.nist.gov/vuln/detail/${id}` };
  if (id.startsWith('GHSA-')) return { name: 'GitHub', url: `https://github.com/advisories/${id}` };
  return { name: 'OSV', url: `https://osv.dev/vulnerability/${encodeURIComponent(id)}` };
}

function vulnerabilities(findings: { purl: string; finding: Finding }[]) {
  const byId = new Map<string, { finding: Finding; purls: string[] }>();
  for (const { purl, finding } of findings) {
    const had = byId.get(finding.advisoryId);
    if (had) {
      if (!had.purls.includes(purl)) had.purls.push(purl);
    } else byId.set(finding.advisoryId, { finding, purls: [purl] });
  }
  return [...byId.values()].map(({ finding: f, purls }) => {
    const method = ratingMethod(f.cvssVector);
    const fixed = f.fixedVersions.length > 0 ? `Upgrade to ${f.fixedVersions.join(' or ')}` : undefined;
    return {
      'bom-ref': `vuln:${f.advisoryId}`,
      id: f.advisoryId,
      source: sourceOf(f.advisoryId),
      ...(f.aliases.length > 0 ? { references: f.aliases.map((a) => ({ id: a, source: sourceOf(a) })) } : {}),
      ratings: [
        {
          ...(f.cvssScore !== null ? { score: f.cvssScore } : {}),
          severity: f.severity.toLowerCase(),
          method,
          ...(f.cvssVector && method !== 'other' ? { vector: f.cvssVector } : {}),
        },
      ],
      ...(f.summary ? { description: f.summary } : {}),
      ...(fixed ? { recommendation: fixed } : {}),
      ...(f.references.some(isUrl) ? { advisories: f.references.filter(isUrl).map((url) => ({ url })) } : {}),
      ...(isDateTime(f.modified) ? { updated: f.modified } : {}),
      // The version is in an affected range; whether the code is reachable is not known.
      analysis: { state: 'in_triage', detail: "The component version is in the advisory's affected ranges" },
      affects: purls.map((ref) => ({ ref })),
    };
  });
}

/** The CycloneDX 1.6 JSON document (an object: `JSON.stringify` it) of `artifact` and its findings. */
export function toCycloneDx(
  artifact: ExtractedArtifact,
  findings: { purl: string; finding: Finding }[],
  meta: SbomMeta = {},
) {
  const rootType = artifact.root.purl.startsWith('pkg:oci/') ? 'container' : 'library';
  const refs = new Set([artifact.root.purl, ...artifact.components.map((c) => c.purl)]);
  const dependencies = [...refs].map((ref) => ({
    ref,
    dependsOn: (artifact.dependencies[ref] ?? []).filter((d) => refs.has(d)),
  }));
  return {
    $schema: 'http://cyclonedx.org/schema/bom-1.6.schema.json',
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: `urn:uuid:${meta.uuid ?? randomUUID()}`,
    version: 1,
    metadata: {
      timestamp: (meta.timestamp ?? new Date()).toISOString(),
      tools: {
        components: [
          {
            type: 'application',
            name: 'Granary',
            ...(meta.toolVersion ? { version: meta.toolVersion } : {}),
          },
        ],
      },
      component: cdxComponent(artifact.root, rootType, meta.sha256),
    },
    components: artifact.components.map((c) => cdxComponent(c, 'library')),
    dependencies,
    vulnerabilities: vulnerabilities(findings.filter((f) => refs.has(f.purl))),
  };
}
