import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { extractArtifact } from '../components/extract-artifact.ts';
import { DPKG_STATUS, imageOf, storedFile, tarOf } from '../components/scan-testing.ts';
import type { ExtractedArtifact, Finding } from '../model.ts';
import { toCycloneDx } from './cyclonedx.ts';
import { toSpdx } from './spdx.ts';

const require = createRequire(import.meta.url);
const cdxDir = path.join(
  path.dirname(require.resolve('@cyclonedx/cyclonedx-library/package.json')),
  'res/schema',
);
const json = async (file: string) => JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;

type Validate = ((doc: unknown) => boolean) & { errors?: unknown };
let validateCdx: Validate;
let validateSpdx: Validate;

beforeAll(async () => {
  // The official schemas: CycloneDX 1.6 as the CycloneDX library ships it (its $refs by their names
  // beside it), SPDX 2.3 as spdx/spdx-spec publishes it (__fixtures__/README.md).
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  // Formats ajv-formats lacks: checked as the WHATWG URL parser reads them (relative to a base).
  const iri = (s: string) => URL.canParse(s, 'http://base.invalid/');
  ajv.addFormat('iri-reference', iri).addFormat('iri', (s: string) => URL.canParse(s));
  ajv.addFormat('idn-email', /^[^\s@]+@[^\s@]+$/);
  ajv.addSchema({
    ...(await json(path.join(cdxDir, 'spdx.SNAPSHOT.schema.json'))),
    $id: 'http://cyclonedx.org/schema/spdx.SNAPSHOT.schema.json',
  });
  ajv.addSchema({
    ...(await json(path.join(cdxDir, 'jsf-0.82.SNAPSHOT.schema.json'))),
    $id: 'http://cyclonedx.org/schema/jsf-0.82.SNAPSHOT.schema.json',
  });
  validateCdx = ajv.compile(await json(path.join(cdxDir, 'bom-1.6.SNAPSHOT.schema.json')));
  validateSpdx = new Ajv({ strict: false, allErrors: true }).compile(
    await json(path.join(import.meta.dirname, '__fixtures__', 'spdx-schema-2.3.json')),
  );
});

const expectValid = (validate: Validate, doc: unknown) => {
  const ok = validate(JSON.parse(JSON.stringify(doc)));
  expect(validate.errors ?? null, JSON.stringify(validate.errors, null, 1)).toBeNull();
  expect(ok).toBe(true);
};

async function npmArtifact(): Promise<ExtractedArtifact> {
  const tgz = await tarOf([
    {
      name: 'package/package.json',
      content: JSON.stringify({
        name: '@acme/web',
        version: '2.1.0',
        license: 'MIT OR Apache-2.0',
        dependencies: { 'left-pad': '1.3.0', bundled: '^1.0.0' },
      }),
    },
    {
      name: 'package/node_modules/bundled/package.json',
      content: '{"name":"bundled","version":"1.2.0","license":"Acme Internal Licence"}',
    },
  ]);
  const r = await extractArtifact(storedFile('@acme/web/-/web-2.1.0.tgz', tgz, 'npm'));
  if (r.status !== 'scanned') throw new Error('not scanned');
  return r.artifact;
}

const finding = (over: Partial<Finding> = {}): Finding => ({
  advisoryId: 'GHSA-xxxx-yyyy-zzzz',
  aliases: ['CVE-2024-0001'],
  summary: 'Prototype pollution in left-pad',
  severity: 'High',
  cvssScore: 7.5,
  cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H',
  fixedVersions: ['1.3.1'],
  references: ['https://github.com/advisories/GHSA-xxxx-yyyy-zzzz', 'not a url'],
  modified: '2024-05-01T10:00:00Z',
  ...over,
});

describe('issue 16 "SBOM": CycloneDX 1.6 and SPDX 2.3 documents', () => {
  it('issue 16 "SBOM": an npm package\'s CycloneDX 1.6 validates against the official schema, with purls, licences, dependencies and the findings as VEX', async () => {
    const a = await npmArtifact();
    const doc = toCycloneDx(
      a,
      [
        { purl: 'pkg:npm/left-pad@1.3.0', finding: finding() },
        {
          purl: 'pkg:npm/bundled@1.2.0',
          finding: finding({
            advisoryId: 'OSV-2024-1',
            aliases: [],
            severity: 'Unknown',
            cvssScore: null,
            cvssVector: null,
            fixedVersions: [],
          }),
        },
      ],
      { toolVersion: '0.1.0', sha256: 'a'.repeat(64) },
    );
    expectValid(validateCdx, doc);
    expect(doc).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.6' });
    expect(doc.serialNumber).toMatch(/^urn:uuid:[0-9a-f-]{36}$/);
    expect(doc.metadata.component).toMatchObject({
      'bom-ref': 'pkg:npm/%40acme/web@2.1.0',
      purl: 'pkg:npm/%40acme/web@2.1.0',
      licenses: [{ expression: 'MIT OR Apache-2.0' }],
    });
    expect(doc.components.map((c) => c.purl).sort()).toEqual([
      'pkg:npm/bundled@1.2.0',
      'pkg:npm/left-pad@1.3.0',
    ]);
    expect(doc.components.find((c) => c.name === 'bundled')?.licenses).toEqual([
      { license: { name: 'Acme Internal Licence' } },
    ]);
    expect(doc.dependencies.find((d) => d.ref === 'pkg:npm/%40acme/web@2.1.0')?.dependsOn).toEqual([
      'pkg:npm/bundled@1.2.0',
      'pkg:npm/left-pad@1.3.0',
    ]);
    const vuln = doc.vulnerabilities.find((v) => v.id === 'GHSA-xxxx-yyyy-zzzz')!;
    expect(vuln).toMatchObject({
      ratings: [{ score: 7.5, severity: 'high', method: 'CVSSv31' }],
      affects: [{ ref: 'pkg:npm/left-pad@1.3.0' }],
      analysis: { state: 'in_triage' },
      recommendation: 'Upgrade to 1.3.1',
      references: [{ id: 'CVE-2024-0001' }],
    });
    expect(doc.vulnerabilities.find((v) => v.id === 'OSV-2024-1')?.ratings).toEqual([
      { severity: 'unknown', method: 'other' },
    ]);
  });

  it('issue 16 "SBOM": an npm package\'s SPDX 2.3 validates against the official schema: PURL external refs, NOASSERTION when unknown, DESCRIBES / DEPENDS_ON / CONTAINS', async () => {
    const a = await npmArtifact();
    const doc = toSpdx(a, [], { toolVersion: '0.1.0', baseUrl: 'https://repo.example.com/' });
    expectValid(validateSpdx, doc);
    expect(doc).toMatchObject({
      spdxVersion: 'SPDX-2.3',
      SPDXID: 'SPDXRef-DOCUMENT',
      dataLicense: 'CC0-1.0',
    });
    expect(doc.documentNamespace).toMatch(/^https:\/\/repo\.example\.com\/spdx\//);
    const locators = doc.packages.map((p) => p.externalRefs[0]!.referenceLocator).sort();
    expect(locators).toEqual([
      'pkg:npm/%40acme/web@2.1.0',
      'pkg:npm/bundled@1.2.0',
      'pkg:npm/left-pad@1.3.0',
    ]);
    const byName = (n: string) => doc.packages.find((p) => p.name === n)!;
    expect(byName('@acme/web').licenseDeclared).toBe('MIT OR Apache-2.0');
    expect(byName('left-pad')).toMatchObject({
      licenseDeclared: 'NOASSERTION',
      licenseConcluded: 'NOASSERTION',
    });
    expect(byName('bundled').licenseDeclared).toMatch(/^LicenseRef-Acme-Internal-Licence-1$/);
    expect(doc.hasExtractedLicensingInfos).toEqual([
      expect.objectContaining({
        licenseId: byName('bundled').licenseDeclared,
        extractedText: 'Acme Internal Licence',
      }),
    ]);
    const rel = doc.relationships.map(
      (r) => `${r.spdxElementId} ${r.relationshipType} ${r.relatedSpdxElement}`,
    );
    const root = byName('@acme/web').SPDXID;
    expect(rel).toEqual(
      expect.arrayContaining([
        `SPDXRef-DOCUMENT DESCRIBES ${root}`,
        `${root} DEPENDS_ON ${byName('left-pad').SPDXID}`,
        `${root} DEPENDS_ON ${byName('bundled').SPDXID}`,
        `${root} CONTAINS ${byName('bundled').SPDXID}`,
      ]),
    );
    // left-pad is declared, not inside the tarball
    expect(rel).not.toContain(`${root} CONTAINS ${byName('left-pad').SPDXID}`);
  });

  it('issue 16 "SBOM": an image\'s CycloneDX and SPDX validate and list its Debian packages\' purls, the image as a container', async () => {
    const layer = await tarOf([
      { name: 'etc/os-release', content: 'ID=debian\nVERSION_ID="12"\n' },
      { name: 'var/lib/dpkg/status', content: DPKG_STATUS },
    ]);
    const img = imageOf([layer]);
    const r = await extractArtifact(
      storedFile('web/1.0/manifest.json', img.manifest, 'docker', img.siblings),
    );
    if (r.status !== 'scanned') throw new Error('not scanned');
    const cdx = toCycloneDx(r.artifact, [
      {
        purl: r.artifact.components.find((c) => c.name === 'libssl3')!.purl,
        finding: finding({
          advisoryId: 'DSA-5532-1',
          aliases: ['CVE-2023-5363'],
          cvssVector: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:N/VA:N/SC:N/SI:N/SA:N',
          cvssScore: 8.7,
        }),
      },
    ]);
    expectValid(validateCdx, cdx);
    expect(cdx.metadata.component).toMatchObject({ type: 'container', version: img.digest });
    expect(cdx.components.map((c) => c.purl)).toEqual(
      expect.arrayContaining([
        'pkg:deb/debian/libssl3@3.0.11-1~deb12u2?arch=amd64&distro=debian-12&upstream=openssl',
      ]),
    );
    expect(cdx.vulnerabilities[0]?.ratings[0]?.method).toBe('CVSSv4');
    const spdx = toSpdx(r.artifact);
    expectValid(validateSpdx, spdx);
    expect(spdx.packages[0]).toMatchObject({ primaryPackagePurpose: 'CONTAINER', versionInfo: img.digest });
  });
});
