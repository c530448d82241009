import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FormatFile, RepositoryHandle } from '../sdk/format.ts';
import { parseParagraphs } from './control.ts';
import {
  distIndexFiles,
  foldersOf,
  type IndexEntry,
  packagesFiles,
  releaseText,
  sameRelease,
} from './indexes.ts';
import { DISTS, distPath, FLAT, PROP } from './layout.ts';

/**
 * A local repository's indexes, derived from its stored .deb files and the control paragraph each
 * remembers (`deb.control`), so a rebuild reads no .deb. Written under the repository's lock
 * `debian-indexes` after every change: `dists/{dist}/…` for the distributions the .debs name, and the
 * flat layout's `flat/Packages` and `flat/Release` listing them all. A Release is rewritten only
 * when an index it lists changed (its Date stays otherwise). Signatures are made on read (serve.ts),
 * with the repository's key as it is then.
 */

export const INDEX_LOCK = 'debian-indexes';

/** A stored .deb's index entry and coordinates, or null when it carries no control paragraph. */
export function entryOf(file: FormatFile): {
  entry: IndexEntry;
  distributions: string[];
  components: string[];
  architectures: string[];
} | null {
  const text = file.properties[PROP.control]?.[0];
  if (!file.path.endsWith('.deb') || !text) return null;
  let control: IndexEntry['control'];
  try {
    const paragraphs = parseParagraphs(text);
    if (paragraphs.length !== 1) return null;
    control = paragraphs[0]!;
  } catch {
    return null;
  }
  const list = (key: string) => (file.properties[key] ?? []).filter(Boolean);
  return {
    entry: {
      control,
      filename: file.path,
      size: file.size,
      md5: file.md5,
      sha1: file.sha1,
      sha256: file.sha256,
    },
    distributions: list(PROP.distribution),
    components: list(PROP.component).length ? list(PROP.component) : ['main'],
    architectures: list(PROP.architecture),
  };
}

const byPackage = (a: IndexEntry, b: IndexEntry) =>
  a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0;

/** Every index file the repository's .debs call for, by path (Release files included, unsigned). */
async function wantedFiles(
  repo: RepositoryHandle,
  existingRelease: (path: string) => Promise<string | null>,
) {
  const entries = (await repo.listFiles(''))
    .map(entryOf)
    .filter((e) => e !== null)
    .sort((a, b) => byPackage(a.entry, b.entry));
  const wanted = new Map<string, Buffer>();
  const now = new Date();
  const label = repo.repository.key;
  const writeRelease = async (
    dist: string | null,
    release: Omit<Parameters<typeof releaseText>[0], 'date'>,
  ) => {
    const path = distPath(dist, 'Release');
    const text = releaseText({ ...release, date: now });
    const old = await existingRelease(path);
    wanted.set(path, Buffer.from(old !== null && sameRelease(old, text) ? old : text));
  };

  const dists = new Set(entries.flatMap((e) => e.distributions));
  for (const dist of [...dists].sort()) {
    const { folders, components, architectures } = foldersOf(
      entries.filter((e) => e.distributions.includes(dist)),
    );
    const files = distIndexFiles(folders);
    for (const [rel, bytes] of files) wanted.set(distPath(dist, rel), bytes);
    await writeRelease(dist, {
      origin: 'Granary',
      label,
      dist,
      architectures,
      components,
      description: `${label} ${dist}`,
      files,
    });
  }
  if (entries.length) {
    const flat = packagesFiles(entries.map((e) => e.entry));
    const files = new Map<string, Buffer>([
      ['Packages', flat.Packages],
      ['Packages.gz', flat['Packages.gz']],
    ]);
    for (const [rel, bytes] of files) wanted.set(distPath(null, rel), bytes);
    await writeRelease(null, {
      origin: 'Granary',
      label,
      dist: null,
      architectures: [],
      components: [],
      files,
    });
  }
  return wanted;
}

/** The index files stored now: everything under `dists/` and `flat/`. */
async function storedIndexFiles(repo: RepositoryHandle): Promise<Map<string, FormatFile>> {
  const out = new Map<string, FormatFile>();
  for (const folder of [DISTS, FLAT]) for (const f of await repo.listFiles(folder)) out.set(f.path, f);
  return out;
}

async function readText(file: FormatFile): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of await file.open()) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Rewrites a local repository's indexes from its .debs (the caller holds no lock: this takes it). */
export async function rebuildLocal(repo: RepositoryHandle): Promise<void> {
  await repo.withLock(INDEX_LOCK, async () => {
    const stored = await storedIndexFiles(repo);
    const wanted = await wantedFiles(repo, async (path) => {
      const f = stored.get(path);
      return f ? readText(f) : null;
    });
    // Packages first, Release last: a reader never sees a Release naming indexes not yet written.
    const order = [...wanted.keys()].sort(
      (a, b) => Number(a.endsWith('Release')) - Number(b.endsWith('Release')),
    );
    for (const path of order) {
      const bytes = wanted.get(path)!;
      const old = stored.get(path);
      if (old && old.sha256 === createHash('sha256').update(bytes).digest('hex')) continue;
      await repo.deploy(path, Readable.from([bytes]), {
        regenerated: true,
        derived: true,
        metadata: null,
      });
    }
    for (const path of stored.keys())
      if (!wanted.has(path)) await repo.delete(path, { permanent: true, derived: true }).catch(() => 0);
  });
}
