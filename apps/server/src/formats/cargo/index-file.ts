import type { FormatFile, RepositoryHandle } from '../sdk/format.ts';
import { readBounded } from '../sdk/helpers.ts';
import { localIndexPath } from './names.ts';

/** One line of a crate's sparse index file (the Cargo book, "Index format"). */
export interface IndexEntry {
  name: string;
  vers: string;
  deps: Record<string, unknown>[];
  cksum: string;
  features: Record<string, string[]>;
  features2?: Record<string, string[]>;
  yanked: boolean;
  links: string | null;
  v?: number;
  rust_version?: string | null;
  [other: string]: unknown;
}

/** An index file is read whole: this bounds it (crates.io's largest are a few MiB). */
export const MAX_INDEX_BYTES = 32 * 1024 * 1024;

/** The entries of an index file's text; lines that are not entries are skipped, as cargo skips them. */
export function parseIndex(text: string): IndexEntry[] {
  const out: IndexEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const e = JSON.parse(line) as IndexEntry;
      if (e && typeof e.name === 'string' && typeof e.vers === 'string') out.push(e);
    } catch {
      // not an entry
    }
  }
  return out;
}

export const renderIndex = (entries: readonly IndexEntry[]) =>
  entries.map((e) => `${JSON.stringify(e)}\n`).join('');

/** Versions equal as cargo and crates.io count them: build metadata (`+…`) does not tell two apart. */
export const sameVersion = (a: string, b: string) => a.split('+')[0] === b.split('+')[0];

export async function readIndexFile(file: FormatFile): Promise<IndexEntry[]> {
  const bytes = await readBounded(
    await file.open(),
    MAX_INDEX_BYTES,
    () => new Error('index file too large'),
  );
  return parseIndex(bytes.toString('utf8'));
}

/** A local repository's index of a crate (no permission check), or empty. */
export async function localEntries(repo: RepositoryHandle, name: string): Promise<IndexEntry[]> {
  const file = await repo.stat(localIndexPath(name));
  return file ? readIndexFile(file) : [];
}

/** Rewrites a local repository's index file of a crate (the format's own record; write permission). */
export async function writeLocalIndex(
  repo: RepositoryHandle,
  name: string,
  entries: IndexEntry[],
): Promise<void> {
  const path = localIndexPath(name);
  if (entries.length === 0) {
    if (await repo.stat(path)) await repo.delete(path, { permanent: true, derived: true });
    return;
  }
  await repo.deploy(path, Buffer.from(renderIndex(entries)), {
    regenerated: true,
    derived: true,
    metadata: null,
  });
}
