import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { ArchiveError, ArchiveLimitError, readAtMost } from '../../../platform/archives/bounded-archive.ts';
import type { ExtractedArtifact, ExtractResult } from '../model.ts';
import { looksLikeGzip, looksLikeZip } from './archive-readers.ts';
import { extractImage, type SiblingFile } from './image-extractor.ts';
import { extractPom, extractTarball, extractZip } from './package-extractors.ts';
import { ScanFailedError, type ScanLimits, scanLimits } from './scan-limits.ts';

/** One stored file to scan, as the pipeline hands it over (through a RepositoryHandle). */
export interface ExtractInput {
  /** its path in the repository (`pkg/-/pkg-1.0.0.tgz`, `app/1.0/manifest.json`, `org/x/1/x-1.jar`) */
  path: string;
  size: number;
  /** the repository's package type (`npm`, `pypi`, `maven`, `docker`, `generic`, …) */
  packageType: string;
  /** its bytes (each call a new stream) */
  open(): Promise<Readable>;
  /** a file in the same folder by name (an image tag's layers `sha256__{hex}`, a jar's `.pom`) */
  sibling?(name: string): Promise<SiblingFile | null>;
  /** the image manifest's digest when known (`sha256:…`; else computed from the bytes) */
  digest?: string;
}

type Kind = 'image' | 'pom' | 'zip' | 'tarball' | null;

const IMAGE_MANIFEST = /(^|\/)manifest\.json$/;

function kindByName(input: ExtractInput): Kind | 'sniff' {
  const name = input.path.slice(input.path.lastIndexOf('/') + 1).toLowerCase();
  if (input.packageType === 'docker' || input.packageType === 'oci')
    return IMAGE_MANIFEST.test(input.path) && name === 'manifest.json' && input.sibling ? 'image' : null;
  if (name.endsWith('.pom')) return 'pom';
  if (/\.(whl|jar|war|ear|aar|zip)$/.test(name)) return 'zip';
  if (/\.(tgz|tar\.gz)$/.test(name)) return 'tarball';
  // Metadata and checksums are no archives; other names are told by their first bytes (generic files).
  if (/\.(json|xml|md5|sha1|sha256|sha512|asc|txt|html)$/.test(name)) return null;
  return 'sniff';
}

async function head(input: ExtractInput): Promise<Buffer> {
  const stream = await input.open();
  try {
    for await (const chunk of stream) return chunk as Buffer;
    return Buffer.alloc(0);
  } finally {
    stream.destroy();
  }
}

/** The image name and tag of a tag's manifest path: `team/app/1.0/manifest.json` → `team/app`, `1.0`. */
function imageOf(path: string): { image: string; tag?: string } {
  const parts = path.split('/');
  if (parts.length >= 3) return { image: parts.slice(0, -2).join('/'), tag: parts.at(-2) };
  return { image: parts[0] ?? 'image' };
}

async function extract(input: ExtractInput, limits: ScanLimits): Promise<ExtractedArtifact | null> {
  let kind = kindByName(input);
  if (kind === 'sniff') {
    const bytes = await head(input);
    kind = looksLikeZip(bytes) ? 'zip' : looksLikeGzip(bytes) ? 'tarball' : null;
  }
  switch (kind) {
    case 'image': {
      const bytes = await readAtMost(await input.open(), limits.manifestBytes, 'the manifest');
      const digest = input.digest ?? `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
      const { image, tag } = imageOf(input.path);
      return extractImage(bytes, digest, image, tag, (name) => input.sibling!(name), limits);
    }
    case 'pom': {
      const bytes = await readAtMost(await input.open(), limits.package.entryBytes, 'the POM');
      return extractPom(bytes, input.path, limits);
    }
    case 'zip': {
      if (input.size > limits.zipBytes)
        throw new ScanFailedError(`the archive is larger than ${limits.zipBytes} bytes`, { limit: true });
      const bytes = await readAtMost(await input.open(), limits.zipBytes, 'the archive');
      const name = input.path.slice(input.path.lastIndexOf('/') + 1);
      const pomName = name.replace(/\.(jar|war|ear|aar)$/i, '.pom');
      const siblingPom =
        input.sibling && pomName !== name
          ? async () => {
              const f = await input.sibling!(pomName);
              if (!f || f.size > limits.package.entryBytes) return null;
              return readAtMost(await f.open(), limits.package.entryBytes, 'the POM');
            }
          : undefined;
      return extractZip(bytes, input.path, limits, siblingPom);
    }
    case 'tarball':
      return extractTarball(await input.open(), limits, input.size);
    default:
      return null;
  }
}

/**
 * What a stored file contains (issue 16 "Scanning"): npm tarballs, Python wheels and sdists, Maven
 * jars and POMs, OCI images (a tag's `manifest.json`), and generic files that are one of those
 * archives. 'not supported' for what no extractor reads. Reads are bounded (`limits`); an archive
 * over a limit or unreadable throws a ScanFailedError (the pipeline records 'scan failed'). Nothing
 * is written to disk.
 */
export async function extractArtifact(
  input: ExtractInput,
  opts: { limits?: Partial<ScanLimits> } = {},
): Promise<ExtractResult> {
  const limits = scanLimits(opts.limits);
  try {
    const artifact = await extract(input, limits);
    return artifact ? { status: 'scanned', artifact } : { status: 'not supported' };
  } catch (err) {
    if (err instanceof ScanFailedError) throw err;
    if (err instanceof ArchiveError)
      throw new ScanFailedError(err.message, { cause: err, limit: err instanceof ArchiveLimitError });
    throw err;
  }
}
