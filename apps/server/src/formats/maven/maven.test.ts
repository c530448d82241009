import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createFormatRegistry } from '../registry.ts';
import { describeFormatConformance } from '../sdk/conformance.ts';
import type { FormatFile, StoredFile } from '../sdk/format.ts';
import { gradleFormat, mavenFormat } from './index.ts';
import {
  buildArtifactMetadata,
  buildSnapshotMetadata,
  mergeMetadata,
  parseMetadata,
  serializeMetadata,
} from './index-builder.ts';
import { checksumOf, isSnapshotPath, parseMavenPath } from './layout.ts';
import { parsePom } from './metadata.ts';
import { distributionManagementXml, settingsXml } from './snippets.ts';
import { compareMavenVersions } from './version.ts';
import { parseXml } from './xml.ts';

const FIXTURES = path.join(import.meta.dirname, '__fixtures__');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name));

const stored = (p: string, bytes: Buffer): StoredFile => ({
  path: p,
  size: bytes.length,
  sha256: '0'.repeat(64),
  open: async () => Readable.from([bytes]),
});

describeFormatConformance(mavenFormat, [
  {
    file: stored('org/granary/samples/demo-lib/1.2.0/demo-lib-1.2.0.pom', fixture('demo-lib-1.2.0.pom')),
    expected: { name: 'org.granary.samples:demo-lib', version: '1.2.0' },
  },
  {
    file: stored('commons-lang/commons-lang/2.6/commons-lang-2.6.pom', fixture('commons-lang-2.6.pom')),
    expected: { name: 'commons-lang:commons-lang', version: '2.6' },
  },
  {
    file: stored('org/granary/samples/demo-lib/1.2.0/demo-lib-1.2.0.jar', fixture('demo-lib-1.2.0.jar')),
    expected: null,
  },
  {
    file: stored('com/example/demo/maven-metadata.xml', fixture('artifact-maven-metadata.xml')),
    expected: null,
  },
]);
describeFormatConformance(gradleFormat, [
  {
    file: stored(
      'org/granary/samples/demo-parent/1.2.0/demo-parent-1.2.0.pom',
      fixture('demo-parent-1.2.0.pom'),
    ),
    expected: { name: 'org.granary.samples:demo-parent', version: '1.2.0' },
  },
]);

describe('maven: POM parsing for the packages index', () => {
  it('issue 7: inherits groupId and version from <parent>, resolves property references, reads licences and dependencies', async () => {
    const meta = await mavenFormat.extractMetadata(
      stored('org/granary/samples/demo-lib/1.2.0/demo-lib-1.2.0.pom', fixture('demo-lib-1.2.0.pom')),
    );
    expect(meta).toEqual({
      name: 'org.granary.samples:demo-lib',
      version: '1.2.0',
      description: 'A small library deployed by the real mvn client & used as a fixture.',
      licenses: ['Apache-2.0'],
      keywords: ['jar'],
      dependencies: [
        { name: 'commons-lang:commons-lang', range: '2.6', scope: 'compile' },
        { name: 'junit:junit', range: '4.x', scope: 'test' },
      ],
      leadFile: true,
    });
  });

  it('reads packaging, name and the parent of a real POM', () => {
    const parent = parsePom(fixture('demo-parent-1.2.0.pom'));
    expect(parent).toMatchObject({ packaging: 'pom', artifactId: 'demo-parent', parent: undefined });
    const lang = parsePom(fixture('commons-lang-2.6.pom'));
    expect(lang).toMatchObject({
      groupId: 'commons-lang',
      name: 'Commons Lang',
      parent: { groupId: 'org.apache.commons', artifactId: 'commons-parent' },
    });
  });

  it('resolves project.version and project.parent.version references in dependencies', () => {
    const pom =
      parsePom(`<project><parent><groupId>g</groupId><artifactId>p</artifactId><version>3.1</version></parent>
      <artifactId>a</artifactId><dependencies>
        <dependency><groupId>\${project.groupId}</groupId><artifactId>b</artifactId><version>\${project.version}</version></dependency>
        <dependency><groupId>g</groupId><artifactId>c</artifactId><version>\${project.parent.version}</version></dependency>
      </dependencies></project>`);
    expect(pom.dependencies.map((d) => `${d.groupId}:${d.artifactId}:${d.version}`)).toEqual([
      'g:b:3.1',
      'g:c:3.1',
    ]);
  });

  it('issue 7: refuses a POM with a DOCTYPE (XXE payload): nothing is read from the file system', () => {
    const xxe = `<?xml version="1.0"?>
<!DOCTYPE project [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<project><groupId>g</groupId><artifactId>a</artifactId><version>1</version><description>&xxe;</description></project>`;
    expect(() => parsePom(xxe)).toThrow(/DOCTYPE and entity declarations are not allowed/);
  });

  it('refuses entity expansion ("billion laughs") and undeclared entities', () => {
    expect(() => parseXml('<!DOCTYPE a [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;">]><a>&b;</a>')).toThrow(
      /DOCTYPE/,
    );
    expect(() => parseXml('<a>&xxe;</a>')).toThrow(/Undeclared entity &xxe;/);
  });

  it('refuses documents that are not POMs, naming what is missing', () => {
    expect(() => parsePom('<metadata/>')).toThrow(/root element is <metadata>/);
    expect(() => parsePom('<project><artifactId>a</artifactId></project>')).toThrow(/no groupId/);
    expect(() => parsePom('<project><groupId>g</groupId>')).toThrow(/cannot be read: Unclosed <project>/);
  });

  it('decodes character references, CDATA and namespace prefixes', () => {
    const el = parseXml('<p:a xmlns:p="x"><p:b>&#72;&#x69; <![CDATA[<raw>]]></p:b></p:a>');
    expect(el.name).toBe('a');
    expect(el.children[0]).toMatchObject({ name: 'b', children: ['Hi ', '<raw>'] });
  });
});

describe('maven: layout', () => {
  it('reads release, snapshot and timestamped snapshot paths with classifiers and compound extensions', () => {
    expect(parseMavenPath('com/example/demo/1.0/demo-1.0-sources.jar')).toMatchObject({
      groupId: 'com.example',
      artifactId: 'demo',
      version: '1.0',
      classifier: 'sources',
      extension: 'jar',
      snapshot: false,
    });
    expect(parseMavenPath('com/example/demo/1.1-SNAPSHOT/demo-1.1-20240102.030405-7.tar.gz')).toMatchObject({
      version: '1.1-SNAPSHOT',
      fileVersion: '1.1-20240102.030405-7',
      timestamp: '20240102.030405',
      buildNumber: 7,
      extension: 'tar.gz',
      snapshot: true,
    });
    expect(parseMavenPath('com/example/demo/1.0/other-1.0.jar')).toBeNull();
    expect(parseMavenPath('demo/1.0/demo-1.0.jar')).toBeNull();
    expect(isSnapshotPath('a/b/1-SNAPSHOT/notes.txt')).toBe(true);
    expect(checksumOf('a/b/1/b-1.jar.sha512')).toEqual({ target: 'a/b/1/b-1.jar', algorithm: 'sha512' });
    expect(checksumOf('a/b/1/b-1.jar')).toBeNull();
  });

  it("orders versions the way Maven's ComparableVersion does", () => {
    const sorted = [
      '1.10',
      '1.2',
      '1.0-SNAPSHOT',
      '1.0',
      '1.0-rc1',
      '1.0-alpha-2',
      '1.0-beta',
      '1.0-sp1',
      '1.0.1',
    ].sort(compareMavenVersions);
    expect(sorted).toEqual([
      '1.0-alpha-2',
      '1.0-beta',
      '1.0-rc1',
      '1.0-SNAPSHOT',
      '1.0',
      '1.0-sp1',
      '1.0.1',
      '1.2',
      '1.10',
    ]);
    expect(compareMavenVersions('1.0', '1')).toBe(0);
    expect(compareMavenVersions('1-ga', '1')).toBe(0);
  });
});

const file = (p: string, modified = '2024-05-01T10:00:00Z'): FormatFile => ({
  path: p,
  size: 1,
  sha256: '0'.repeat(64),
  sha1: '0'.repeat(40),
  md5: '0'.repeat(32),
  mimeType: 'application/octet-stream',
  properties: {},
  createdAt: new Date(modified),
  modifiedAt: new Date(modified),
  createdBy: 'admin',
  open: async () => Readable.from([]),
});

describe('maven: maven-metadata.xml', () => {
  it('issue 7: artifact-level metadata lists every stored version in Maven order, latest and release recomputed', () => {
    const doc = buildArtifactMetadata('g/a', [
      file('g/a/1.10/a-1.10.pom'),
      file('g/a/1.9/a-1.9.jar', '2024-06-01T00:00:00Z'),
      file('g/a/2.0-SNAPSHOT/a-2.0-20240101.000000-1.pom'),
      file('g/a/maven-metadata.xml'),
      file('g/a/sub/x/1/x-1.pom'),
    ]);
    expect(doc).toMatchObject({
      groupId: 'g',
      artifactId: 'a',
      versions: ['1.9', '1.10', '2.0-SNAPSHOT'],
      latest: '2.0-SNAPSHOT',
      release: '1.10',
      lastUpdated: '20240601000000',
    });
  });

  it('issue 7: snapshot metadata names the newest build and lists every build, newest first', () => {
    const doc = buildSnapshotMetadata('g/a/1.0-SNAPSHOT', [
      file('g/a/1.0-SNAPSHOT/a-1.0-20240101.100000-1.jar'),
      file('g/a/1.0-SNAPSHOT/a-1.0-20240101.100000-1.pom'),
      file('g/a/1.0-SNAPSHOT/a-1.0-20240102.100000-2.jar'),
      file('g/a/1.0-SNAPSHOT/a-1.0-20240102.100000-2-sources.jar'),
      file('g/a/1.0-SNAPSHOT/a-1.0-20240102.100000-2.pom'),
    ]);
    expect(doc?.snapshot).toEqual({ timestamp: '20240102.100000', buildNumber: 2 });
    expect(
      doc?.snapshotVersions.map((s) => `${s.value}${s.classifier ? `-${s.classifier}` : ''}.${s.extension}`),
    ).toEqual([
      '1.0-20240102.100000-2.jar',
      '1.0-20240102.100000-2-sources.jar',
      '1.0-20240102.100000-2.pom',
      '1.0-20240101.100000-1.jar',
      '1.0-20240101.100000-1.pom',
    ]);
    const again = parseMetadata(serializeMetadata(doc!));
    expect(again).toEqual(doc);
  });

  it('reads the documents the real mvn client writes', () => {
    expect(parseMetadata(fixture('artifact-maven-metadata.xml'))).toMatchObject({
      release: '1.0.0',
      versions: ['1.0.0', '1.1.0-SNAPSHOT'],
    });
    expect(parseMetadata(fixture('snapshot-maven-metadata.xml'))).toMatchObject({
      version: '1.1.0-SNAPSHOT',
      snapshot: { buildNumber: 2 },
    });
  });

  it('issue 7: virtual merge unites versions, recomputes latest/release and keeps the newest snapshot build', () => {
    const a = parseMetadata(
      '<metadata><groupId>g</groupId><artifactId>a</artifactId><versioning><latest>1.2</latest><release>1.2</release><versions><version>1.0</version><version>1.2</version></versions><lastUpdated>20240101000000</lastUpdated></versioning></metadata>',
    );
    const b = parseMetadata(
      '<metadata><groupId>g</groupId><artifactId>a</artifactId><versioning><release>1.10</release><versions><version>1.1</version><version>1.10</version><version>2.0-SNAPSHOT</version></versions><lastUpdated>20230101000000</lastUpdated></versioning></metadata>',
    );
    expect(mergeMetadata([a, b])).toMatchObject({
      versions: ['1.0', '1.1', '1.2', '1.10', '2.0-SNAPSHOT'],
      latest: '2.0-SNAPSHOT',
      release: '1.10',
      lastUpdated: '20240101000000',
    });
    const s1 = buildSnapshotMetadata('g/a/1-SNAPSHOT', [file('g/a/1-SNAPSHOT/a-1-20240101.000000-3.jar')])!;
    const s2 = buildSnapshotMetadata('g/a/1-SNAPSHOT', [file('g/a/1-SNAPSHOT/a-1-20240301.000000-1.jar')])!;
    const merged = mergeMetadata([s1, s2])!;
    expect(merged.snapshot).toEqual({ timestamp: '20240301.000000', buildNumber: 1 });
    expect(merged.snapshotVersions.map((s) => s.value)).toEqual([
      '1-20240301.000000-1',
      '1-20240101.000000-3',
    ]);
  });
});

describe('maven: Set Me Up', () => {
  it('spec 000 §7: settings.xml has a server per repository, the mirror and the profile, and is well-formed', () => {
    const xml = settingsXml(
      'https://repo.example.com',
      { release: 'libs-release', snapshot: 'libs-snapshot', mirrorAny: 'maven-all' },
      'alice',
    );
    const root = parseXml(xml);
    expect(root.name).toBe('settings');
    expect(xml).toContain('<mirrorOf>*</mirrorOf>');
    expect(xml).toContain('<url>https://repo.example.com/repository/libs-snapshot</url>');
    expect(xml).toContain(`<password>$${'{'}env.GRANARY_TOKEN}</password>`);
    expect(xml.match(/<server>/g)).toHaveLength(3);
  });

  it('spec 000 §7: distributionManagement names the release and snapshot repositories', () => {
    const xml = distributionManagementXml('https://r.example', 'rel', 'snap');
    expect(
      parseXml(xml)
        .children.filter((c) => typeof c !== 'string')
        .map((c) => (c as { name: string }).name),
    ).toEqual(['repository', 'snapshotRepository']);
    expect(xml).toContain('<url>https://r.example/repository/snap</url>');
  });

  it('gradle is its own package type, with Gradle snippets first', () => {
    const registry = createFormatRegistry([mavenFormat, gradleFormat]);
    expect(registry.get('gradle')?.displayName).toBe('Gradle');
    expect(registry.get('gav')?.id).toBe('maven');
    const snippets = gradleFormat.snippets({
      baseUrl: 'https://r.example',
      repository: { key: 'g-local', rclass: 'local', packageType: 'gradle' },
    });
    expect(snippets[0]?.code).toContain('url "https://r.example/repository/g-local"');
  });
});
