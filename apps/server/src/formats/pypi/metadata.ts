import { archiveLimitOf } from '../../platform/archives/bounded-archive.ts';
import type { PackageMetadata, StoredFile } from '../sdk/format.ts';
import { DistributionError, LIMITS, readBounded, readCoreMetadata } from './archive.ts';
import {
  canonicalVersion,
  type DistFilename,
  isValidName,
  isValidVersion,
  METADATA_SUFFIX,
  normalizeName,
  parseDistFilename,
} from './names.ts';

/** Core metadata (PEP 241…643): RFC 822 style headers, multi-valued ones repeated; the body is the description. */
export interface CoreMetadata {
  fields: Map<string, string[]>;
  body: string;
}

export function parseCoreMetadata(bytes: Buffer): CoreMetadata {
  const text = bytes.toString('utf8').replace(/\r\n?/g, '\n');
  const fields = new Map<string, string[]>();
  const lines = text.split('\n');
  let i = 0;
  let last: { key: string; index: number } | undefined;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') {
      i += 1;
      break;
    }
    if (/^[ \t]/.test(line) && last) {
      // A folded continuation (old-style Description lines start with 8 spaces and `|`).
      const values = fields.get(last.key)!;
      values[last.index] += `\n${line.replace(/^ {1,8}\|?/, '').replace(/^\t/, '')}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    const values = fields.get(key) ?? [];
    values.push(value);
    fields.set(key, values);
    last = { key, index: values.length - 1 };
  }
  return { fields, body: lines.slice(i).join('\n').trim() };
}

export const first = (meta: CoreMetadata, key: string): string | undefined => meta.fields.get(key)?.[0];
export const all = (meta: CoreMetadata, key: string): string[] => meta.fields.get(key) ?? [];

/** A `Requires-Dist` value as a dependency: `name[extras] (specifier) ; marker`. */
export function parseRequirement(value: string): { name: string; range?: string; scope?: string } | null {
  const m = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$/.exec(value);
  if (!m) return null;
  const [specifier = '', marker] = m[3]!.split(';', 2).map((s) => s.trim());
  const range = [specifier.replace(/^\((.*)\)$/, '$1').trim(), marker ? `; ${marker}` : '']
    .filter(Boolean)
    .join(' ');
  const extra = marker && /extra\s*==\s*["']([^"']+)["']/.exec(marker)?.[1];
  return { name: m[1]!, ...(range ? { range } : {}), ...(extra ? { scope: `extra:${extra}` } : {}) };
}

function licensesOf(meta: CoreMetadata): string[] {
  const expression = first(meta, 'license-expression');
  if (expression) return [expression];
  const license = first(meta, 'license');
  if (license && license !== 'UNKNOWN' && !license.includes('\n') && license.length <= 100) return [license];
  return all(meta, 'classifier')
    .filter((c) => c.startsWith('License ::'))
    .map((c) => c.split('::').at(-1)!.trim())
    .filter((c) => c && c !== 'OSI Approved');
}

function keywordsOf(meta: CoreMetadata): string[] {
  const raw = all(meta, 'keywords').join(',');
  return raw
    .split(raw.includes(',') ? ',' : /\s+/)
    .map((k) => k.trim())
    .filter(Boolean);
}

/** The packages index's view of a distribution's core metadata. */
export function toPackageMetadata(meta: CoreMetadata): PackageMetadata {
  const description = first(meta, 'description');
  return {
    name: normalizeName(first(meta, 'name') ?? ''),
    version: first(meta, 'version') ?? '',
    description: first(meta, 'summary') ?? '',
    licenses: licensesOf(meta),
    keywords: keywordsOf(meta),
    dependencies: all(meta, 'requires-dist')
      .map(parseRequirement)
      .filter((d): d is NonNullable<typeof d> => d !== null),
    readme: meta.body || (description && description !== 'UNKNOWN' ? description : undefined),
    leadFile: true,
  };
}

export interface ValidDistribution {
  dist: DistFilename;
  /** the core metadata file as stored in the archive (served as the PEP 658 `.metadata` file of wheels) */
  metadataBytes: Buffer;
  metadata: CoreMetadata;
  name: string;
  version: string;
}

/**
 * Checks that `buffer` is the distribution its file name says: a readable archive holding core
 * metadata whose Name and Version match the file name. Throws DistributionError naming what is wrong.
 */
export async function validateDistribution(filename: string, buffer: Buffer): Promise<ValidDistribution> {
  const dist = parseDistFilename(filename);
  if (!dist)
    throw new DistributionError(
      `'${filename}' is not a wheel (name-version-python-abi-platform.whl) or an sdist (name-version.tar.gz or .zip)`,
    );
  const metadataBytes = await readCoreMetadata(buffer, dist);
  const metadata = parseCoreMetadata(metadataBytes);
  const name = first(metadata, 'name');
  const version = first(metadata, 'version');
  const file = dist.kind === 'wheel' ? 'METADATA' : 'PKG-INFO';
  if (!name || !isValidName(name)) throw new DistributionError(`${file} has no valid Name`);
  if (!version || !isValidVersion(version)) throw new DistributionError(`${file} has no valid Version`);
  if (
    normalizeName(name) !== normalizeName(dist.name) ||
    canonicalVersion(version) !== canonicalVersion(dist.version)
  )
    throw new DistributionError(
      `${file} says ${name} ${version} but the file name says ${dist.name} ${dist.version}`,
    );
  return { dist, metadataBytes, metadata, name, version };
}

/** extractMetadata of the format: wheels and sdists are versions; everything else (.metadata files, pages) is not. */
export async function extractPypiMetadata(file: StoredFile): Promise<PackageMetadata | null> {
  const filename = file.path.split('/').at(-1) ?? '';
  if (filename.endsWith(METADATA_SUFFIX) || !parseDistFilename(filename)) return null;
  // Too large to read into memory: stored, not indexed (e.g. a GPU wheel through a remote).
  if (file.size > LIMITS.archiveBytes) return null;
  try {
    const bytes = await readBounded(await file.open());
    return toPackageMetadata((await validateDistribution(filename, bytes)).metadata);
  } catch (err) {
    // A decompression bomb (or an archive past the limits) is refused: 400 to a client, 502 for an upstream's.
    const limit = archiveLimitOf(err);
    if (limit) throw limit;
    if (err instanceof DistributionError) return null;
    throw err;
  }
}
