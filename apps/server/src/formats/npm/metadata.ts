import type { Readable } from 'node:stream';
import {
  ArchiveError,
  type ArchiveLimits,
  archiveLimitOf,
  tarGzEntries,
} from '../../platform/archives/bounded-archive.ts';
import type { PackageMetadata, StoredFile } from '../sdk/format.ts';

/** Bounds on reading a package tarball: what a hostile upload (or upstream) can make the server do. */
export const TARBALL_LIMITS: ArchiveLimits = {
  /** tar headers are 512 bytes each and skipped entries cost nothing to keep: icon packages have tens of thousands */
  entries: 100_000,
  /** package.json and the README are read into memory: each at most this (a larger README is left out) */
  entryBytes: 2 * 1024 * 1024,
  /** bytes of uncompressed tar read in all */
  totalBytes: 512 * 1024 * 1024,
  /** JavaScript packs 3 to 10 times; a tarball expanding 100 times past 64 MiB is a bomb */
  ratio: 100,
  ratioFloor: 64 * 1024 * 1024,
};

/** Not a package tarball npm would make; `cause` is the ArchiveError when the archive itself failed. */
export class TarballError extends Error {}

export interface TarballContents {
  manifest: Record<string, unknown>;
  readme?: string;
  readmeFilename?: string;
}

const README = /^readme(\.(md|markdown|txt|rst))?$/i;

/**
 * Reads `package/package.json` (the first folder's, as npm does) and the README from a package
 * tarball, streaming within TARBALL_LIMITS: nothing is written to disk, only those two files are
 * held in memory, and the rest of the archive is only skipped through.
 */
export async function readTarball(source: Readable | Buffer): Promise<TarballContents> {
  let manifest: Record<string, unknown> | undefined;
  let readme: { name: string; text: string } | undefined;
  let root: string | undefined;
  try {
    for await (const entry of tarGzEntries(source, TARBALL_LIMITS)) {
      const parts = entry.name.split('/');
      root ??= parts.length > 1 ? parts[0] : undefined;
      if (parts.length !== 2 || parts[0] !== root || entry.type !== 'file') continue;
      if (parts[1] === 'package.json' && !manifest) {
        const text = (await entry.read()).toString('utf8');
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          throw new TarballError('package.json is not valid JSON');
        }
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
          throw new TarballError('package.json is not a JSON object');
        manifest = parsed as Record<string, unknown>;
      } else if (README.test(parts[1]!) && !readme && entry.size <= TARBALL_LIMITS.entryBytes) {
        readme = { name: parts[1]!, text: (await entry.read()).toString('utf8') };
      }
    }
  } catch (err) {
    if (err instanceof ArchiveError) throw new TarballError(err.message, { cause: err });
    throw err;
  }
  if (!manifest) throw new TarballError('no package/package.json in the archive');
  return { manifest, readme: readme?.text, readmeFilename: readme?.name };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Licences as package.json states them: `license` (SPDX string or `{type}`) or the old `licenses[]`. */
export function licensesOf(manifest: Record<string, unknown>): string[] | undefined {
  const one = manifest.license;
  if (typeof one === 'string') return [one];
  if (one && typeof one === 'object' && typeof (one as { type?: unknown }).type === 'string')
    return [(one as { type: string }).type];
  if (Array.isArray(manifest.licenses))
    return manifest.licenses
      .map((l) => (typeof l === 'string' ? l : str((l as { type?: unknown })?.type)))
      .filter((l): l is string => !!l);
  return undefined;
}

const DEPENDENCY_SCOPES = [
  ['dependencies', 'runtime'],
  ['devDependencies', 'dev'],
  ['peerDependencies', 'peer'],
  ['optionalDependencies', 'optional'],
] as const;

/** The packages-index record of a version, from its package.json (and README). */
export function packageMetadata(contents: TarballContents, leadFile = true): PackageMetadata {
  const m = contents.manifest;
  const dependencies: NonNullable<PackageMetadata['dependencies']> = [];
  for (const [field, scope] of DEPENDENCY_SCOPES) {
    const deps = m[field];
    if (deps && typeof deps === 'object' && !Array.isArray(deps))
      for (const [name, range] of Object.entries(deps as Record<string, unknown>))
        dependencies.push({ name, range: typeof range === 'string' ? range : undefined, scope });
  }
  const keywords = Array.isArray(m.keywords)
    ? m.keywords.filter((k): k is string => typeof k === 'string')
    : undefined;
  return {
    name: String(m.name),
    version: String(m.version),
    description: str(m.description),
    licenses: licensesOf(m),
    keywords,
    dependencies,
    readme: contents.readme ?? str(m.readme),
    leadFile,
  };
}

/** extractMetadata: package tarballs (`{name}/-/{file}.tgz`) only; other files are not packages. */
export async function extractNpmMetadata(file: StoredFile): Promise<PackageMetadata | null> {
  if (!/(^|\/)-\/[^/]+\.tgz$/.test(file.path)) return null;
  let contents: TarballContents;
  try {
    contents = await readTarball(await file.open());
  } catch (err) {
    // Over the limits: the file is refused (400 to a client, 502 for an upstream's), not stored unindexed.
    throw archiveLimitOf(err) ?? err;
  }
  if (typeof contents.manifest.name !== 'string' || typeof contents.manifest.version !== 'string')
    return null;
  return packageMetadata(contents);
}
