import { and, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { PackageMetadata } from '../../formats/sdk/format.ts';
import type { BlobHold } from '../../platform/blobs/index.ts';
import { ConflictError, InvalidError, NotFoundError } from '../../platform/errors.ts';
import type { Executor } from '../../platform/events/index.ts';
import {
  type ArtifactRow,
  artifactsChanged,
  changeArtifacts,
  findArtifact,
  pathConflicts,
  upsertArtifact,
} from './artifacts.queries.ts';
import { admitsPath, type RepositoriesContext } from './context.ts';
import { extractFor, notifyRemoved, notifyStored } from './indexing.ts';
import { isInternalPath, reservedPath } from './internal-paths.ts';
import { enforceQuota, logQuotaWarnings } from './quota.service.ts';
import { artifacts } from './repositories.schema.ts';
import type { RepoConfig } from './repositories.service.ts';

/**
 * Issue 21: one mechanism for files that leave a repository for a while and may come back — the trash
 * can (`trash_items`, this module) and the archive (`archived_artifacts`, the retention module). A
 * parking table has the artifact's own columns (below), a unique (repository_id, path) and columns of its
 * own (who deleted or archived it, until when).
 *
 * - Take out: the rows leave `artifacts` and enter the parking table in one transaction (the caller's),
 *   so a client never sees both or neither. Whether the parked row keeps the bytes alive is the table's
 *   blob trigger's business (platform/blobs/references.ts): the trash holds its blobs, the archive does
 *   not (its bytes went to the archive store first).
 * - Put back: the rows come back at their path (or another), refused with 409 when something else is
 *   there now; with their checksums, properties and creation record; the formats' after-change hooks then
 *   regenerate what they derive (npm packument, PyPI simple page, Maven metadata), as after a deploy.
 */

/** The artifact columns every parking table keeps. */
export interface ParkedFile {
  path: string;
  size: number;
  sha256: string;
  sha1: string;
  md5: string;
  mimeType: string | null;
  properties: unknown;
  createdAt: Date;
  createdBy: string;
}

/** A parking table: the artifact columns of `ParkedFile` with `repositoryId` and `path` unique together. */
type ParkingTable = PgTable & { repositoryId: PgColumn; path: PgColumn };

const KEY_COLUMNS = new Set(['id', 'repositoryId', 'path']);

/**
 * In the caller's transaction: the artifact rows `rows` (already out of `artifacts`, or about to be)
 * enter the parking table with `extra` (the table's own columns); a path parked again replaces its entry.
 */
export async function parkArtifacts(
  tx: Executor,
  table: ParkingTable,
  rows: ArtifactRow[],
  extra: (row: ArtifactRow) => Record<string, unknown>,
): Promise<void> {
  if (rows.length === 0) return;
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const values = rows.map((r) => ({
    repositoryId: r.repositoryId,
    path: r.path,
    size: r.size,
    sha256: r.sha256,
    sha1: r.sha1,
    md5: r.md5,
    mimeType: r.mimeType,
    properties: r.properties,
    createdAt: r.createdAt,
    createdBy: r.createdBy,
    ...extra(r),
  }));
  // Every column but the key takes the new row's value.
  const set = Object.fromEntries(
    Object.entries(columns)
      .filter(([name]) => !KEY_COLUMNS.has(name))
      .map(([name, column]) => [name, sql.raw(`excluded."${column.name}"`)]),
  );
  // In slices: one statement's parameters stay well under PostgreSQL's 65,535.
  for (let i = 0; i < values.length; i += 1000)
    await tx
      .insert(table)
      .values(values.slice(i, i + 1000) as never)
      .onConflictDoUpdate({ target: [table.repositoryId, table.path], set });
}

/**
 * Takes files of a repository out into a parking table in one transaction of its own: `park` (the
 * caller's rows and events) runs in it. They vanish from every client view as on a delete (the read cache
 * is dropped, the packages index hears `removed`, the format regenerates its documents afterwards).
 */
export async function takeOutArtifacts(
  ctx: RepositoriesContext,
  repo: RepoConfig,
  paths: string[],
  park: (tx: Executor, rows: ArtifactRow[]) => Promise<void>,
): Promise<ArtifactRow[]> {
  if (paths.length === 0) return [];
  const rows = await changeArtifacts(ctx.db, async (tx) => {
    artifactsChanged();
    const taken = await tx
      .delete(artifacts)
      .where(and(eq(artifacts.repositoryId, repo.id), inArray(artifacts.path, paths)))
      .returning();
    if (taken.length > 0) {
      await notifyRemoved(
        ctx,
        tx,
        repo.id,
        taken.map((r) => r.path),
      );
      await park(tx, taken);
    }
    return taken;
  });
  if (rows.length > 0) await ctx.afterFormatChange(repo, { deleted: rows.map((r) => r.path) });
  return rows;
}

/** A parked file to put back: its entry, where it goes, and how messages name where it was. */
export interface PutBackFile {
  file: ParkedFile;
  /** the target path in the target repository */
  path: string;
  /** `repoKey/path` where it was, for messages */
  label: string;
}

export interface PutBackOptions {
  /** who puts it back (the rows' `modified_by`) */
  by: string;
  /**
   * The bytes, when the parking table does not hold them in the blob store (the archive): stored again,
   * with a hold released once the rows are committed. Without it, bytes that are gone refuse the restore.
   */
  fetchBytes?: (file: ParkedFile) => Promise<BlobHold | undefined>;
  /**
   * In the transaction that puts the rows back: the parked entries go (all of `files`; `restored` are
   * those written, the others had the same content at their target already) with the caller's events.
   */
  release: (tx: Executor, files: { restored: PutBackFile[]; unchanged: PutBackFile[] }) => Promise<void>;
}

/**
 * Puts parked files back into `target`, all or nothing: a target path holding other content, a folder,
 * or below a file now refuses everything with 409 and a message naming both paths; the same content
 * already there is left as it is. The rows come back in one transaction with their checksums,
 * properties and creation record, counted against the repository's and project's quota as a deploy is,
 * then the format regenerates what it derives. Permission is the caller's to check.
 */
export async function putBack(
  ctx: RepositoriesContext,
  target: RepoConfig,
  files: PutBackFile[],
  opts: PutBackOptions,
): Promise<{ restored: PutBackFile[]; unchanged: PutBackFile[] }> {
  const restored: PutBackFile[] = [];
  const unchanged: PutBackFile[] = [];
  const conflict = (f: PutBackFile, why: string) =>
    new ConflictError(
      `Cannot restore '${f.label}': ${why}. Delete or move it first, or restore to another path.`,
      'ALREADY_EXISTS',
    );
  for (const f of files) {
    if (!f.path) throw new InvalidError('The target must name a path');
    if (isInternalPath(ctx, target.packageType, f.path)) throw reservedPath(target.packageType, f.path);
    if (!admitsPath(target, f.path, ctx.formats))
      throw new InvalidError(
        `'${f.path}' is not accepted by repository '${target.key}' (include/exclude patterns)`,
      );
    const now = await findArtifact(ctx.db, target.id, f.path);
    if (now && now.sha256 !== f.file.sha256)
      throw conflict(f, `another file is at '${target.key}/${f.path}' now`);
    (now ? unchanged : restored).push(f);
  }
  const conflicts =
    restored.length > 0
      ? await pathConflicts(
          ctx.db,
          target.id,
          restored.map((f) => f.path),
        )
      : new Map<string, { fileAbove?: string; folder: boolean }>();
  for (const f of restored) {
    const c = conflicts.get(f.path);
    if (c?.folder) throw conflict(f, `'${target.key}/${f.path}' is a folder now`);
    if (c?.fileAbove) throw conflict(f, `'${target.key}/${c.fileAbove}' is a file now`);
  }
  const holds: BlobHold[] = [];
  try {
    for (const f of restored) {
      const hold = await opts.fetchBytes?.(f.file);
      if (hold) holds.push(hold);
      else if (!opts.fetchBytes && !(await ctx.blobs.stat(f.file.sha256)))
        throw new NotFoundError(`The stored bytes of '${f.label}' are gone: it cannot be restored`);
    }
    const metas = new Map<string, PackageMetadata | null>();
    for (const f of restored) metas.set(f.path, await extractFor(ctx, target, f.path, f.file));
    const warnings = await changeArtifacts(ctx.db, async (tx) => {
      const warned = await enforceQuota(
        tx,
        target,
        restored.reduce((n, f) => n + f.file.size, 0),
      );
      for (const f of restored) {
        // Stored meanwhile (another restore, a deploy): nothing of this restore happens.
        if (await findArtifact(tx, target.id, f.path))
          throw conflict(f, `another file is at '${target.key}/${f.path}' now`);
        await notifyStored(ctx, tx, target, f.path, f.file, metas.get(f.path) ?? null);
        await upsertArtifact(tx, {
          repositoryId: target.id,
          path: f.path,
          size: f.file.size,
          sha256: f.file.sha256,
          sha1: f.file.sha1,
          md5: f.file.md5,
          mimeType: f.file.mimeType,
          properties: f.file.properties,
          createdAt: f.file.createdAt,
          createdBy: f.file.createdBy,
          modifiedBy: opts.by,
        });
      }
      await opts.release(tx, { restored, unchanged });
      return warned;
    });
    logQuotaWarnings(ctx, warnings);
  } finally {
    for (const hold of holds) await hold.release().catch(() => {});
  }
  if (restored.length > 0)
    await ctx.afterFormatChange(target, { added: restored.map((f) => f.path), deleted: [] });
  return { restored, unchanged };
}
