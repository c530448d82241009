import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract } from 'tar-stream';
import type { PackageMetadata, StoredFile } from '../sdk/format.ts';

/** Bounds on reading a package tarball: what a hostile upload can make the server do. */
const LIMITS = {
  /** bytes of uncompressed tar read in all */
  totalBytes: 512 * 1024 * 1024,
  entries: 20_000,
  /** package.json and README are read into memory: each at most this */
  fileBytes: 2 * 1024 * 1024,
};

export class TarballError extends Error {}

export interface TarballContents {
  manifest: Record<string, unknown>;
  readme?: string;
  readmeFilename?: string;
}

const README = /^readme(\.(md|markdown|txt|rst))?$/i;

/**
 * Reads `package/package.json` (the first folder's, as npm does) and the README from a package
 * tarball, streaming: nothing is written to disk, sizes and entry counts are bounded, and the
 * rest of the archive is only skipped through.
 */
export async function readTarball(source: Readable | Buffer): Promise<TarballContents> {
  const tar = extract();
  let manifest: Record<string, unknown> | undefined;
  let readme: { name: string; text: string } | undefined;
  let entries = 0;
  let total = 0;
  let root: string | undefined;
  tar.on('entry', (header, stream, next) => {
    entries += 1;
    total += header.size ?? 0;
    if (entries > LIMITS.entries) return next(new TarballError(`more than ${LIMITS.entries} entries`));
    if (total > LIMITS.totalBytes) return next(new TarballError('the archive unpacks to too many bytes'));
    const parts = header.name.replace(/^\.\//, '').split('/');
    root ??= parts.length > 1 ? parts[0] : undefined;
    const inRoot = parts.length === 2 && parts[0] === root && header.type === 'file';
    const wanted = inRoot && (parts[1] === 'package.json' ? !manifest : README.test(parts[1]!) && !readme);
    if (!wanted) {
      stream.on('end', () => next());
      stream.resume();
      return;
    }
    if ((header.size ?? 0) > LIMITS.fileBytes) {
      stream.resume();
      return next(new TarballError(`${parts[1]} is larger than ${LIMITS.fileBytes} bytes`));
    }
    const chunks: Buffer[] = [];
    stream.on('data', (c: unknown) => chunks.push(c as Buffer));
    stream.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (parts[1] === 'package.json') {
        try {
          const parsed = JSON.parse(text) as unknown;
          if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
            return next(new TarballError('package.json is not a JSON object'));
          manifest = parsed as Record<string, unknown>;
        } catch {
          return next(new TarballError('package.json is not valid JSON'));
        }
      } else readme = { name: parts[1]!, text };
      next();
    });
  });
  const input = Buffer.isBuffer(source) ? Readable.from([source]) : source;
  try {
    await pipeline(input, createGunzip(), tar);
  } catch (err) {
    if (err instanceof TarballError) throw err;
    throw new TarballError(`not a gzipped tar archive (${(err as Error).message})`);
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
  const contents = await readTarball(await file.open());
  if (typeof contents.manifest.name !== 'string' || typeof contents.manifest.version !== 'string')
    return null;
  return packageMetadata(contents);
}
