import { ADMIN_AUTH, describeFormatProtocolConformance } from '../../testing/format-protocol-conformance.ts';
import { TEST_ADMIN_PASSWORD, type TestApp } from '../../testing/index.ts';
import { gradleFormat, mavenFormat } from './index.ts';
import { parseMetadata } from './index-builder.ts';

/**
 * A jar as small as a zip gets (an empty archive whose comment names the version): a remote checks
 * that its upstream's jars are zips (issue 12 §5).
 */
function emptyJar(version: string): Buffer {
  const comment = Buffer.from(`jar of ${version}`);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(comment.length, 20);
  return Buffer.concat([end, comment]);
}

/** Maven through its own protocol: PUT the POM and jar as mvn deploy does, read maven-metadata.xml. */
const driver = {
  name: 'org.granary.conformance:conf-lib',
  /** the upstream (this server) refuses anonymous reads */
  remoteSettings: { username: 'admin', password: TEST_ADMIN_PASSWORD },
  async publish(t: TestApp, repoKey: string, name: string, version: string) {
    const [groupId, artifactId] = name.split(':') as [string, string];
    const dir = `/repository/${repoKey}/${groupId.replaceAll('.', '/')}/${artifactId}/${version}`;
    const pom = `<project><modelVersion>4.0.0</modelVersion><groupId>${groupId}</groupId><artifactId>${artifactId}</artifactId><version>${version}</version></project>`;
    for (const [file, body] of [
      [`${artifactId}-${version}.jar`, emptyJar(version)],
      [`${artifactId}-${version}.pom`, pom],
    ] as const) {
      const res = await t.app.inject({
        method: 'PUT',
        url: `${dir}/${file}`,
        headers: { authorization: ADMIN_AUTH, 'content-type': 'application/octet-stream' },
        payload: body,
      });
      if (res.statusCode !== 201) throw new Error(`deploy ${file}: ${res.statusCode} ${res.body}`);
    }
  },
  async read(t: TestApp, repoKey: string, name: string) {
    const [groupId, artifactId] = name.split(':') as [string, string];
    const ga = `${groupId.replaceAll('.', '/')}/${artifactId}`;
    const res = await t.app.inject({
      url: `/repository/${repoKey}/${ga}/maven-metadata.xml`,
      headers: { authorization: ADMIN_AUTH },
    });
    if (res.statusCode === 404) return null;
    if (res.statusCode !== 200) throw new Error(`metadata: ${res.statusCode} ${res.body}`);
    const { versions } = parseMetadata(res.rawPayload);
    // Maven derives file URLs from the layout: {repository}/{group}/{artifact}/{version}/{artifact}-{version}.{ext}
    const fileUrls = versions.flatMap((v) =>
      ['jar', 'pom'].map(
        (ext) => `http://localhost/repository/${repoKey}/${ga}/${v}/${artifactId}-${v}.${ext}`,
      ),
    );
    return { versions, fileUrls };
  },
};

describeFormatProtocolConformance(mavenFormat, driver);
describeFormatProtocolConformance(gradleFormat, driver);
