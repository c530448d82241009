import { PassThrough, type Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { InvalidError } from '../../platform/errors.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { type ArtifactRow, listArtifactsBelow } from './artifacts.queries.ts';
import { findStored } from './artifacts.service.ts';
import { can, type RepositoriesContext } from './context.ts';
import { isInternalPath } from './internal-paths.ts';
import type { RepoPath } from './repo-path.ts';
import { findRepository, type RepoConfig } from './repositories.service.ts';

/** A folder download holds at most this many files and bytes; beyond, a clear 400. */
export const ARCHIVE_LIMITS = { files: 10_000, bytes: 10 * 1024 ** 3 };

export interface FolderArchive {
  /** The zip's file name: the folder's (or repository's) name. */
  name: string;
  files: number;
  /** The zip, produced as it is read: every file is streamed from the blob store in turn. */
  stream: Readable;
}

/**
 * A folder or a whole repository as a zip (`GET /api/archive/download/{key}/{path}?archiveType=zip`).
 * Read permission is asked of the folder and then of every file: files the caller may not read are
 * left out. Through a virtual repository the members are merged, the first member holding a path winning.
 */
export async function folderArchive(
  ctx: RepositoriesContext,
  principal: Principal | null,
  path: RepoPath,
  limits = ARCHIVE_LIMITS,
): Promise<FolderArchive> {
  const found = await findStored(ctx, principal, path);
  if (!found.folder) throw new InvalidError(`'${path.path}' is a file: download it directly`);
  const repo = found.target.repo;
  const sources: RepoConfig[] = [];
  if (repo.rclass === 'virtual') {
    for (const name of repo.virtual?.repositories ?? []) {
      const member = await findRepository(ctx.db, name);
      if (member && member.rclass !== 'virtual') sources.push(member);
    }
  } else sources.push(repo);

  const entries = new Map<string, ArtifactRow>();
  let bytes = 0;
  const tooMany = () =>
    new InvalidError(
      `The folder holds more than ${limits.files} files: download a sub-folder, or fetch files one by one`,
      'ARCHIVE_TOO_LARGE',
    );
  for (const source of sources) {
    // Bounded: a huge folder is refused without reading all of it.
    const rows = await listArtifactsBelow(ctx.db, source.id, path.path, limits.files + 1);
    if (rows.length > limits.files) throw tooMany();
    for (const row of rows) {
      const relative = path.isRoot ? row.path : row.path.slice(path.path.length + 1);
      if (entries.has(relative)) continue;
      if (isInternalPath(ctx, source.packageType, row.path)) continue;
      if (!(await can(ctx, principal, 'read', source, row.path))) continue;
      entries.set(relative, row);
      bytes += row.size;
      if (entries.size > limits.files) throw tooMany();
      if (bytes > limits.bytes)
        throw new InvalidError(
          `The folder holds more than ${limits.bytes} bytes: download a sub-folder, or fetch files one by one`,
          'ARCHIVE_TOO_LARGE',
        );
    }
  }

  const zip = new ZipFile();
  for (const [name, row] of entries)
    zip.addReadStreamLazy(name, { size: row.size, mtime: row.modifiedAt, compress: false }, (cb) => {
      ctx.blobs.get(row.sha256).then(
        (stream) => cb(null, stream),
        (err) => cb(err, undefined as unknown as NodeJS.ReadableStream),
      );
    });
  zip.end();
  const out = new PassThrough({ highWaterMark: 1024 * 1024 });
  zip.outputStream.on('error', (err) => out.destroy(err));
  zip.on('error', (err: Error) => out.destroy(err));
  zip.outputStream.pipe(out);
  const name = (path.isRoot ? found.target.key : path.name) || found.target.key;
  return { name, files: entries.size, stream: out };
}
