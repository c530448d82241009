import { BUILD_PROPERTIES, type BuildRunFile } from '@granary/contracts';
import type { Db } from '../../platform/db/index.ts';
import {
  findArtifact,
  holdsListedFiles,
  listRepositoryHeads,
  type RepositoryHead,
  searchStoredFiles,
} from '../repositories/repositories.api.ts';
import { findRuns, itemsOfRun } from './builds.queries.ts';

export interface Checksums {
  sha256?: string | null;
  sha1?: string | null;
  md5?: string | null;
}

/** A stored file a build's artifact or dependency links to. */
export interface LinkedFile {
  repositoryId: string;
  repoKey: string;
  path: string;
  sha256: string;
  size: number;
}

/** The checksum a build item links by: sha256, else sha1, else md5 (lower case), or none. */
export function linkChecksum(
  item: Checksums,
): { algorithm: 'sha256' | 'sha1' | 'md5'; value: string } | undefined {
  for (const algorithm of ['sha256', 'sha1', 'md5'] as const) {
    const value = item[algorithm];
    if (value && /^[0-9a-fA-F]+$/.test(value)) return { algorithm, value: value.toLowerCase() };
  }
  return undefined;
}

/**
 * Links build items to stored files by checksum, in listed (non-hidden, non-virtual) repositories.
 * When several stored files have the checksum, the one carrying this build's `build.name` and
 * `build.number` wins (a promoted copy in the target repository is found that way), else the first
 * by path. An item with no checksum, or whose checksum no stored file has, links to nothing (null).
 */
export class Linker {
  private heads: RepositoryHead[] | undefined;

  constructor(private readonly db: Db) {}

  private async listed(): Promise<RepositoryHead[]> {
    this.heads ??= (await listRepositoryHeads(this.db)).filter(holdsListedFiles);
    return this.heads;
  }

  /** Every stored file with the item's link checksum (at most 50), the build's own first. */
  async candidates(item: Checksums, build?: { name: string; number: string }): Promise<LinkedFile[]> {
    const sum = linkChecksum(item);
    if (!sum) return [];
    const heads = await this.listed();
    const byId = new Map(heads.map((h) => [h.id, h]));
    const hits = await searchStoredFiles(
      this.db,
      heads.map((h) => h.id),
      { by: 'checksum', algorithm: sum.algorithm, value: sum.value },
      50,
    );
    const files = hits.map((h) => ({
      repositoryId: h.repository_id,
      repoKey: byId.get(h.repository_id)?.key ?? '',
      path: h.path,
      sha256: h.sha256,
      size: Number(h.size),
    }));
    if (!build || files.length < 2) return files;
    const tagged: LinkedFile[] = [];
    const others: LinkedFile[] = [];
    for (const f of files) {
      const row = await findArtifact(this.db, f.repositoryId, f.path);
      const props = (row?.properties ?? {}) as Record<string, string[]>;
      const mine =
        props[BUILD_PROPERTIES.name]?.includes(build.name) &&
        props[BUILD_PROPERTIES.number]?.includes(build.number);
      (mine ? tagged : others).push(f);
    }
    return [...tagged, ...others];
  }

  async link(item: Checksums, build?: { name: string; number: string }): Promise<LinkedFile | null> {
    return (await this.candidates(item, build))[0] ?? null;
  }
}

/**
 * The stored files a build run produced (its modules' artifacts), for release bundles (issue 19):
 * each artifact linked by checksum (sha256, else sha1, else md5) to a stored file, the one carrying
 * this build's `build.name`/`build.number` first. Artifacts that link to no stored file (never
 * deployed, or deleted since) are left out: the answer lists only files that exist. The newest run
 * of that name and number counts; no such run: an empty list. Each file appears once.
 */
export async function getBuildRunFiles(db: Db, name: string, number: string): Promise<BuildRunFile[]> {
  const [run] = await findRuns(db, name, number);
  if (!run) return [];
  const linker = new Linker(db);
  const out: BuildRunFile[] = [];
  const seen = new Set<string>();
  for (const item of await itemsOfRun(db, run.id, 'produced')) {
    const file = await linker.link(item, { name, number });
    if (!file) continue;
    const key = `${file.repoKey}/${file.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ repoKey: file.repoKey, path: file.path, sha256: file.sha256, size: file.size });
  }
  return out;
}
