import {
  ArchiveError,
  type ArchiveLimits,
  escapesFolder,
  zipEntries,
} from '../../platform/archives/bounded-archive.ts';
import { SwiftError } from './errors.ts';
import { MANIFEST } from './names.ts';

/** The largest source archive accepted (uploads and upstream files alike). */
export const MAX_ARCHIVE_BYTES = 256 * 1024 * 1024;
const MANIFEST_BYTES = 1024 * 1024;
const README_BYTES = 1024 * 1024;

const LIMITS: ArchiveLimits = {
  entries: 100_000,
  entryBytes: Math.max(MANIFEST_BYTES, README_BYTES),
  totalBytes: 2 * 1024 * 1024 * 1024,
  ratio: 200,
  ratioFloor: 64 * 1024 * 1024,
};

export interface SourceArchive {
  /** `Package.swift` and `Package@swift-….swift`, by file name */
  manifests: Map<string, Buffer>;
  readme?: string;
}

/**
 * Checks a source archive as SwiftPM unpacks it: a zip, no path that climbs out, within the limits,
 * with `Package.swift` at its root — or at the root of its one top-level folder, as
 * `swift package archive-source` makes it (`{name}/Package.swift`). Reads the manifests and README.
 */
export async function readSourceArchive(zip: Buffer): Promise<SourceArchive> {
  if (zip.length < 4 || zip[0] !== 0x50 || zip[1] !== 0x4b)
    throw new SwiftError(422, 'The source archive is not a zip file');
  const files = new Map<string, () => Promise<Buffer>>();
  const tops = new Set<string>();
  let rootFiles = false;
  try {
    for await (const entry of zipEntries(zip, LIMITS)) {
      if (escapesFolder(entry.name))
        throw new SwiftError(422, `The source archive holds a path outside its folder: '${entry.name}'`);
      const parts = entry.name.split('/');
      if (parts.length === 1) rootFiles = true;
      else tops.add(parts[0]!);
      const leaf = parts.at(-1)!;
      if (parts.length <= 2 && (MANIFEST.test(leaf) || /^readme(\.md)?$/i.test(leaf))) {
        const bytes = await entry.read().catch(() => null);
        if (bytes) files.set(entry.name, async () => bytes);
      }
    }
  } catch (err) {
    if (err instanceof SwiftError) throw err;
    if (err instanceof ArchiveError)
      throw new SwiftError(422, `The source archive cannot be read: ${err.message}`);
    throw err;
  }
  const prefix = files.has('Package.swift') ? '' : !rootFiles && tops.size === 1 ? `${[...tops][0]}/` : null;
  if (prefix === null || !files.has(`${prefix}Package.swift`))
    throw new SwiftError(422, 'The source archive has no Package.swift at its root');
  const out: SourceArchive = { manifests: new Map() };
  for (const [name, read] of files) {
    if (!name.startsWith(prefix) || name.slice(prefix.length).includes('/')) continue;
    const leaf = name.slice(prefix.length);
    if (MANIFEST.test(leaf)) out.manifests.set(leaf, await read());
    else if (out.readme === undefined) out.readme = (await read()).toString('utf8');
  }
  return out;
}

/** The tools version a manifest declares on its first line (`// swift-tools-version:5.7`). */
export function toolsVersionOf(manifest: Buffer): string | null {
  const first = manifest.subarray(0, 200).toString('utf8').split('\n')[0] ?? '';
  return /^\/\/\s*swift-tools-version\s*:\s*(\d+(?:\.\d+){0,2})/i.exec(first)?.[1] ?? null;
}

/** The package dependencies a manifest declares (`.package(id:|url:…, from: "1.0.0")`), as the index lists them. */
export function manifestDependencies(manifest: string): { name: string; range?: string }[] {
  const deps: { name: string; range?: string }[] = [];
  for (const m of manifest.matchAll(
    /\.package\(\s*(?:name:\s*"[^"]*"\s*,\s*)?(?:id|url):\s*"([^"]+)"([^)]*)\)/g,
  )) {
    const req = /(from|exact|branch|revision)\s*:\s*"([^"]+)"/.exec(m[2] ?? '');
    const range = req
      ? `${req[1]} ${req[2]}`
      : /"([^"]+)"\s*\.\.[.<]\s*"([^"]+)"/
          .exec(m[2] ?? '')
          ?.slice(1)
          .join(' ..< ');
    deps.push({ name: m[1]!, ...(range ? { range } : {}) });
  }
  return deps;
}
