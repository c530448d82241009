import type { UpstreamCheck, UpstreamCheckContext } from '../sdk/format.ts';
import { checksumOf, folderOf, isMetadataFile, isSnapshotVersion, parseMavenPath } from './layout.ts';

/**
 * What a remote Maven repository accepts from its upstream before caching it (issue 12 §4, §5): a
 * file whose upstream publishes a `.sha1` must have that SHA-1 (asked once the file arrived, so a
 * miss costs one request); a POM and maven-metadata.xml must be XML, a jar a zip. Checksum files
 * are never fetched: they are computed from the cached file.
 */

const MAX_CHECKSUM_BYTES = 4096;

/** `PackageFormat.upstreamCheck` of Maven and Gradle. */
export async function mavenUpstreamCheck(
  path: string,
  ctx: UpstreamCheckContext,
): Promise<UpstreamCheck | false | null> {
  if (checksumOf(path)) return false;
  return {
    kind: isMetadataFile(path) ? 'xml' : undefined,
    async verify(file) {
      const res = await ctx.upstream(`${path}.sha1`, { maxBytes: MAX_CHECKSUM_BYTES });
      // No checksum published: nothing to compare with.
      if (res.status !== 200) return;
      // "digest" or "digest  file-name" (sha1sum output)
      const published = res.body.toString('utf8').trim().split(/\s+/)[0]?.toLowerCase() ?? '';
      if (!/^[0-9a-f]{40}$/.test(published)) {
        ctx.log.warn(
          { path: `${path}.sha1` },
          "the upstream's .sha1 holds no SHA-1: the file is not checked",
        );
        return;
      }
      if (published !== file.sha1)
        throw new Error(`a file whose sha1 ${file.sha1} is not the one its .sha1 publishes (${published})`);
    },
  };
}

/** `{group}/{artifact}` of a file of the layout, a checksum of one, or a maven-metadata.xml. */
export function mavenPackageFolder(path: string): string | null {
  const target = checksumOf(path)?.target ?? path;
  const parsed = parseMavenPath(target);
  if (parsed) return parsed.gaPath;
  if (!isMetadataFile(target)) return null;
  const folder = folderOf(target);
  const name = folder.split('/').at(-1) ?? '';
  // A snapshot version's document sits in the version folder, an artifact's in the artifact folder.
  const ga = isSnapshotVersion(name) ? folderOf(folder) : folder;
  return ga.includes('/') ? ga : null;
}
