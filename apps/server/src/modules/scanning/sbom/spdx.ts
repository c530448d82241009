import { randomUUID } from 'node:crypto';
import { isSpdxExpression } from '../components/licenses.ts';
import type { Component, ExtractedArtifact, Finding } from '../model.ts';
import type { SbomMeta } from './sbom-meta.ts';

/**
 * SPDX 2.3 JSON of an artifact (issue 16 "SBOM"): one package per component with its purl as a
 * `PACKAGE-MANAGER` external reference, licences declared (NOASSERTION when unknown; a licence that
 * is no SPDX expression becomes a `LicenseRef-` with its text), and the relationships DESCRIBES
 * (document → root), DEPENDS_ON (the dependency graph) and CONTAINS (what was found inside the root).
 */

const NOASSERTION = 'NOASSERTION';

const spdxIdPart = (s: string) => s.replace(/[^A-Za-z0-9.-]+/g, '-').replace(/^-+|-+$/g, '') || 'x';

/** `created`: UTC, seconds precision, as the SPDX spec writes it. */
const created = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;

export function toSpdx(
  artifact: ExtractedArtifact,
  _findings: { purl: string; finding: Finding }[] = [],
  meta: SbomMeta = {},
) {
  const uuid = meta.uuid ?? randomUUID();
  const name = meta.name ?? `${artifact.root.name}@${artifact.root.version}`;
  const extracted = new Map<string, string>();
  const licenseRef = (text: string) => {
    for (const [id, t] of extracted) if (t === text) return id;
    const id = `LicenseRef-${spdxIdPart(text).slice(0, 64)}-${extracted.size + 1}`;
    extracted.set(id, text);
    return id;
  };
  const declared = (licenses: string[]) => {
    if (licenses.length === 0) return NOASSERTION;
    const parts = licenses.map((l) => (isSpdxExpression(l) ? l : licenseRef(l)));
    return parts.length === 1 ? parts[0]! : parts.map((p) => (/\s/.test(p) ? `(${p})` : p)).join(' AND ');
  };
  const ids = new Map<string, string>();
  const pkg = (c: Component, i: number, sha256?: string) => {
    const id = `SPDXRef-Package-${i}-${spdxIdPart(c.name).slice(0, 80)}`;
    ids.set(c.purl, id);
    return {
      SPDXID: id,
      name: c.name,
      versionInfo: c.version,
      downloadLocation: NOASSERTION,
      filesAnalyzed: false,
      licenseConcluded: NOASSERTION,
      licenseDeclared: declared(c.licenses),
      copyrightText: NOASSERTION,
      ...(sha256 ? { checksums: [{ algorithm: 'SHA256', checksumValue: sha256 }] } : {}),
      ...(c.location ? { sourceInfo: `found at ${c.location}` } : {}),
      externalRefs: [
        { referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: c.purl },
      ],
      ...(c.purl.startsWith('pkg:oci/') ? { primaryPackagePurpose: 'CONTAINER' } : {}),
    };
  };
  const packages = [pkg(artifact.root, 0, meta.sha256), ...artifact.components.map((c, i) => pkg(c, i + 1))];
  const rootId = ids.get(artifact.root.purl)!;
  const relationships: { spdxElementId: string; relationshipType: string; relatedSpdxElement: string }[] = [
    { spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: rootId },
  ];
  for (const [from, tos] of Object.entries(artifact.dependencies)) {
    const a = ids.get(from);
    for (const to of tos) {
      const b = ids.get(to);
      if (a && b)
        relationships.push({ spdxElementId: a, relationshipType: 'DEPENDS_ON', relatedSpdxElement: b });
    }
  }
  for (const c of artifact.components)
    if (c.location && !c.location.endsWith('(declared)') && !c.location.endsWith('(Requires-Dist)'))
      relationships.push({
        spdxElementId: rootId,
        relationshipType: 'CONTAINS',
        relatedSpdxElement: ids.get(c.purl)!,
      });
  const base = (meta.baseUrl ?? 'https://granary.invalid').replace(/\/+$/, '');
  return {
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name,
    documentNamespace: `${base}/spdx/${encodeURIComponent(spdxIdPart(name))}-${uuid}`,
    creationInfo: {
      created: created(meta.timestamp ?? new Date()),
      creators: [`Tool: Granary${meta.toolVersion ? `-${meta.toolVersion}` : ''}`],
    },
    packages,
    relationships,
    ...(extracted.size > 0
      ? {
          hasExtractedLicensingInfos: [...extracted].map(([licenseId, text]) => ({
            licenseId,
            extractedText: text,
            name: text,
          })),
        }
      : {}),
  };
}
