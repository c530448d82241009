import { createHash } from 'node:crypto';
import type { UpstreamCheck, UpstreamCheckContext } from '../sdk/format.ts';
import type { DistLink } from './index-builder.ts';
import { METADATA_SUFFIX, normalizeName, parseDistFilename } from './names.ts';
import { EXTERNAL, remotePathOf, upstreamPage } from './simple.ts';

/**
 * What a remote PyPI repository accepts from its upstream before caching it (issue 12 §4, §5): a
 * distribution (or its PEP 658 `.metadata`) that the project's simple page lists must have the
 * digest the page's link gives (`#sha256=…`, or `data-core-metadata="sha256=…"`), and a wheel or
 * a zip must be a zip, an sdist a gzip. A distribution the page does not list is not asked for.
 */

const HEX_DIGEST = { sha256: 64, sha1: 40, md5: 32 } as const;
const OTHER_DIGESTS = ['sha512', 'sha384', 'sha224'] as const;

/** The digests of a link the blob store verifies, and the others (checked after storing). */
function checksOf(hashes: Record<string, string>): UpstreamCheck {
  const checksums: NonNullable<UpstreamCheck['checksums']> = {};
  for (const [name, length] of Object.entries(HEX_DIGEST) as [keyof typeof HEX_DIGEST, number][]) {
    const value = hashes[name]?.toLowerCase();
    if (value && new RegExp(`^[0-9a-f]{${length}}$`).test(value)) checksums[name] = value;
  }
  const other = OTHER_DIGESTS.find((a) => typeof hashes[a] === 'string');
  if (Object.keys(checksums).length > 0 || !other) return { checksums };
  const expected = hashes[other]!.toLowerCase();
  return {
    checksums,
    async verify(file) {
      const hash = createHash(other);
      for await (const chunk of await file.open()) hash.update(chunk as Buffer);
      const actual = hash.digest('hex');
      if (actual !== expected)
        throw new Error(`a file whose ${other} ${actual} is not the page's ${expected}`);
    },
  };
}

/** `PackageFormat.upstreamCheck` of PyPI. */
export async function pypiUpstreamCheck(
  path: string,
  ctx: UpstreamCheckContext,
): Promise<UpstreamCheck | false | null> {
  // Files outside the upstream's URL are fetched by the format itself, with their page's digest.
  if (path.startsWith(`${EXTERNAL}/`)) return false;
  if (path.startsWith('simple/')) return null;
  const isMetadata = path.endsWith(METADATA_SUFFIX);
  const distPath = isMetadata ? path.slice(0, -METADATA_SUFFIX.length) : path;
  const filename = distPath.split('/').at(-1) ?? '';
  const dist = parseDistFilename(filename);
  if (!dist) return null;
  const project = normalizeName(dist.name);
  const linkIn = async (refresh: boolean): Promise<DistLink | undefined> => {
    const found = await upstreamPage(
      refresh ? { ...ctx, get: (p) => ctx.get(p, { refresh }) } : ctx,
      project,
    );
    return found?.page.files.find(
      (f) => f.filename === filename && remotePathOf(f.url, found.base, project, f.filename) === distPath,
    );
  };
  const link = (await linkIn(false)) ?? (await linkIn(true));
  if (!link || (isMetadata && !link.metadata)) return false;
  const hashes = isMetadata ? (link.metadata === true ? {} : (link.metadata ?? {})) : link.hashes;
  return checksOf(hashes);
}

/** The folder a local repository keeps a project's files in, for a page, a file or an external path. */
export function pypiPackageFolder(path: string): string | null {
  const page = /^simple\/([^/]+)\/index\.html$/.exec(path);
  if (page) return `packages/${normalizeName(page[1]!)}`;
  const external = new RegExp(`^${EXTERNAL.replace('.', '\\.')}/([^/]+)/`).exec(path);
  if (external) return `packages/${normalizeName(external[1]!)}`;
  const filename = (path.endsWith(METADATA_SUFFIX) ? path.slice(0, -METADATA_SUFFIX.length) : path)
    .split('/')
    .at(-1);
  const dist = filename ? parseDistFilename(filename) : null;
  return dist ? `packages/${normalizeName(dist.name)}` : null;
}
