import { createHash } from 'node:crypto';

/**
 * Test support (issue 23, Gradle): the requests a current Gradle's `maven-publish` sends to a Maven
 * repository, in its order (Gradle 8's AbstractMavenPublisher): for a snapshot, the version folder's
 * maven-metadata.xml read first (to number the build); each file PUT, then its `.sha1`, `.md5`,
 * `.sha256` and `.sha512` (main artifact, POM, then the other artifacts with the `.module` among them);
 * a snapshot's version metadata; then the artifact's maven-metadata.xml read, merged and PUT with its
 * checksums. Debian's Gradle 4.4 has no transport to deploy with, so the tests send this sequence.
 */

export type Send = (
  method: 'GET' | 'PUT',
  path: string,
  body?: Buffer,
) => Promise<{ status: number; body: Buffer }>;

export interface GradlePublication {
  group: string;
  module: string;
  version: string;
  /** the main jar's bytes */
  jar: Buffer;
  /** other modules this one depends on (group:module:version), in the POM and the .module */
  dependencies?: string[];
  /** an extra artifact, published with a classifier */
  sources?: Buffer;
}

const hex = (algorithm: string, bytes: Buffer) => createHash(algorithm).update(bytes).digest('hex');

export function gradlePom(p: GradlePublication): string {
  const deps = (p.dependencies ?? [])
    .map((d) => {
      const [g, a, v] = d.split(':');
      return `    <dependency>\n      <groupId>${g}</groupId>\n      <artifactId>${a}</artifactId>\n      <version>${v}</version>\n      <scope>runtime</scope>\n    </dependency>`;
    })
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<project xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd" xmlns="http://maven.apache.org/POM/4.0.0"
    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <!-- This module was also published with a richer model, Gradle metadata,  -->
  <!-- which should be used instead. Do not delete the following line which  -->
  <!-- is to indicate to Gradle or any Gradle module metadata file consumer  -->
  <!-- that they should prefer consuming it instead. -->
  <!-- do_not_remove: published-with-gradle-metadata -->
  <modelVersion>4.0.0</modelVersion>
  <groupId>${p.group}</groupId>
  <artifactId>${p.module}</artifactId>
  <version>${p.version}</version>
  <description>Published by Gradle's maven-publish (issue 23)</description>
  <licenses><license><name>MIT</name></license></licenses>
${deps ? `  <dependencies>\n${deps}\n  </dependencies>\n` : ''}</project>
`;
}

export function gradleModuleFile(p: GradlePublication, files: { name: string; bytes: Buffer }[]): string {
  const fileEntry = (f: { name: string; bytes: Buffer }) => ({
    name: f.name,
    url: f.name,
    size: f.bytes.length,
    sha512: hex('sha512', f.bytes),
    sha256: hex('sha256', f.bytes),
    sha1: hex('sha1', f.bytes),
    md5: hex('md5', f.bytes),
  });
  const dependencies = (p.dependencies ?? []).map((d) => {
    const [group, module, version] = d.split(':');
    return { group, module, version: { requires: version } };
  });
  const variant = (name: string, usage: string) => ({
    name,
    attributes: {
      'org.gradle.category': 'library',
      'org.gradle.dependency.bundling': 'external',
      'org.gradle.jvm.version': 17,
      'org.gradle.libraryelements': 'jar',
      'org.gradle.usage': usage,
    },
    ...(dependencies.length > 0 ? { dependencies } : {}),
    files: [fileEntry(files[0]!)],
  });
  return `${JSON.stringify(
    {
      formatVersion: '1.1',
      component: {
        group: p.group,
        module: p.module,
        version: p.version,
        attributes: { 'org.gradle.status': 'release' },
      },
      createdBy: { gradle: { version: '8.10.2' } },
      variants: [variant('apiElements', 'java-api'), variant('runtimeElements', 'java-runtime')],
    },
    null,
    2,
  )}\n`;
}

/** UTC `yyyyMMdd.HHmmss`, as Gradle stamps a snapshot build. */
const stamp = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace('T', '.').slice(0, 15);

/** Sends the publication as Gradle's `publish` task does; the requests made, with their answers. */
export async function publishLikeGradle(
  send: Send,
  p: GradlePublication,
  now = new Date(),
): Promise<{ method: string; path: string; status: number }[]> {
  const log: { method: string; path: string; status: number }[] = [];
  const call = async (method: 'GET' | 'PUT', path: string, body?: Buffer) => {
    const res = await send(method, path, body);
    log.push({ method, path, status: res.status });
    return res;
  };
  const ga = `${p.group.replaceAll('.', '/')}/${p.module}`;
  const gav = `${ga}/${p.version}`;
  const snapshot = p.version.endsWith('-SNAPSHOT');
  let fileVersion = p.version;
  let timestamp = '';
  let buildNumber = 1;
  if (snapshot) {
    const existing = await call('GET', `${gav}/maven-metadata.xml`);
    const previous = /<buildNumber>(\d+)<\/buildNumber>/.exec(
      existing.status === 200 ? existing.body.toString() : '',
    );
    buildNumber = previous ? Number(previous[1]) + 1 : 1;
    timestamp = stamp(now);
    fileVersion = `${p.version.slice(0, -'-SNAPSHOT'.length)}-${timestamp}-${buildNumber}`;
  }
  const base = `${p.module}-${fileVersion}`;
  const jarName = `${base}.jar`;
  const artifacts: { name: string; bytes: Buffer; classifier?: string; extension: string }[] = [
    { name: jarName, bytes: p.jar, extension: 'jar' },
  ];
  const pom = Buffer.from(gradlePom(p));
  const module = Buffer.from(gradleModuleFile(p, [{ name: jarName, bytes: p.jar }]));
  const others = [
    { name: `${base}.module`, bytes: module, extension: 'module' },
    ...(p.sources
      ? [{ name: `${base}-sources.jar`, bytes: p.sources, classifier: 'sources', extension: 'jar' }]
      : []),
  ];
  const putWithChecksums = async (path: string, bytes: Buffer) => {
    await call('PUT', path, bytes);
    for (const algorithm of ['sha1', 'md5', 'sha256', 'sha512'])
      await call('PUT', `${path}.${algorithm}`, Buffer.from(hex(algorithm, bytes)));
  };
  for (const file of [artifacts[0]!, { name: `${base}.pom`, bytes: pom, extension: 'pom' }, ...others])
    await putWithChecksums(`${gav}/${file.name}`, file.bytes);
  if (snapshot) {
    const updated = `${timestamp.replace('.', '')}`;
    const entries = [
      { extension: 'jar', classifier: undefined },
      { extension: 'pom', classifier: undefined },
      { extension: 'module', classifier: undefined },
      ...(p.sources ? [{ extension: 'jar', classifier: 'sources' }] : []),
    ]
      .map(
        (e) =>
          `      <snapshotVersion>\n${e.classifier ? `        <classifier>${e.classifier}</classifier>\n` : ''}        <extension>${e.extension}</extension>\n        <value>${fileVersion}</value>\n        <updated>${updated}</updated>\n      </snapshotVersion>`,
      )
      .join('\n');
    const doc = `<?xml version="1.0" encoding="UTF-8"?>
<metadata modelVersion="1.1.0">
  <groupId>${p.group}</groupId>
  <artifactId>${p.module}</artifactId>
  <version>${p.version}</version>
  <versioning>
    <snapshot>
      <timestamp>${timestamp}</timestamp>
      <buildNumber>${buildNumber}</buildNumber>
    </snapshot>
    <lastUpdated>${updated}</lastUpdated>
    <snapshotVersions>
${entries}
    </snapshotVersions>
  </versioning>
</metadata>
`;
    await putWithChecksums(`${gav}/maven-metadata.xml`, Buffer.from(doc));
  }
  const existing = await call('GET', `${ga}/maven-metadata.xml`);
  const versions = new Set(
    existing.status === 200
      ? [...existing.body.toString().matchAll(/<version>([^<]+)<\/version>/g)].map((m) => m[1]!)
      : [],
  );
  versions.delete(p.version);
  const all = [...versions, p.version];
  const lastUpdated = stamp(now).replace('.', '');
  const doc = `<?xml version="1.0" encoding="UTF-8"?>
<metadata>
  <groupId>${p.group}</groupId>
  <artifactId>${p.module}</artifactId>
  <versioning>
    <latest>${p.version}</latest>
${snapshot ? '' : `    <release>${p.version}</release>\n`}    <versions>
${all.map((v) => `      <version>${v}</version>`).join('\n')}
    </versions>
    <lastUpdated>${lastUpdated}</lastUpdated>
  </versioning>
</metadata>
`;
  await putWithChecksums(`${ga}/maven-metadata.xml`, Buffer.from(doc));
  return log;
}
