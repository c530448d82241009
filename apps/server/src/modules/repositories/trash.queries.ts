import { and, eq, inArray, lte, or, type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../platform/db/index.ts';
import { likePattern } from '../../platform/db/like-pattern.ts';
import type { Executor } from '../../platform/events/index.ts';
import { repositories } from './repositories.schema.ts';
import { trashItems } from './trash.schema.ts';

export type TrashRow = typeof trashItems.$inferSelect;

/** The entry at `path`, or every entry below it when it is a folder ('' = the whole repository). */
function atOrBelow(path: string): SQL {
  if (path === '') return sql`true`;
  const escaped = path.replace(/[\\%_]/g, (c) => `\\${c}`);
  return or(eq(trashItems.path, path), sql`${trashItems.path} like ${`${escaped}/%`}`)!;
}

/** A repository's entries at or below `path`, by path. */
export async function findTrashItems(db: Executor, repositoryId: string, path: string): Promise<TrashRow[]> {
  return db
    .select()
    .from(trashItems)
    .where(and(eq(trashItems.repositoryId, repositoryId), atOrBelow(path)))
    .orderBy(trashItems.path);
}

export async function deleteTrashItems(db: Executor, ids: number[]): Promise<number> {
  let count = 0;
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = await db
      .delete(trashItems)
      .where(inArray(trashItems.id, ids.slice(i, i + 1000)))
      .returning({ id: trashItems.id });
    count += rows.length;
  }
  return count;
}

/** Deletes the trash entries past their expiry, at most `limit` (the oldest first); how many went. */
export async function deleteExpiredTrash(db: Db, now: Date, limit: number): Promise<number> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`delete from ${trashItems} where id in (
          select id from ${trashItems} where ${lte(trashItems.expiresAt, now)}
          order by expires_at limit ${limit} for update skip locked)
        returning id`,
  );
  return rows.length;
}

/** A page of every entry (emptying the trash): ids and where they were. */
export async function listTrashPage(db: Db, afterId: number, limit: number) {
  return db
    .select({ id: trashItems.id, repositoryId: trashItems.repositoryId, path: trashItems.path })
    .from(trashItems)
    .where(sql`${trashItems.id} > ${afterId}`)
    .orderBy(trashItems.id)
    .limit(limit);
}

export interface TrashHit {
  id: number;
  repository_id: string;
  repo_key: string;
  package_type: string;
  path: string;
  size: string | number;
  sha256: string;
  deleted_by: string;
  deleted_at: string | Date;
  expires_at: string | Date;
}

/**
 * Entries whose name or path is like `q` (a `LIKE` pattern, lower case; null: all), in these
 * repositories (null: all), newest deletion first, at most `limit`.
 */
export async function searchTrash(
  db: Db,
  filter: { like: string | null; repositoryIds: string[] | null },
  limit: number,
): Promise<TrashHit[]> {
  const conditions: SQL[] = [sql`true`];
  if (filter.like !== null) conditions.push(sql`lower(t.path) like ${filter.like}`);
  if (filter.repositoryIds !== null) {
    if (filter.repositoryIds.length === 0) return [];
    conditions.push(
      sql`t.repository_id in (${sql.join(
        filter.repositoryIds.map((id) => sql`${id}::uuid`),
        sql`, `,
      )})`,
    );
  }
  return queryRows<TrashHit>(
    db,
    sql`select t.id, t.repository_id, r.key as repo_key, r.package_type, t.path, t.size, t.sha256,
               t.deleted_by, t.deleted_at, t.expires_at
          from ${trashItems} t join ${repositories} r on r.id = t.repository_id
         where ${sql.join(conditions, sql` and `)}
         order by t.deleted_at desc, t.id desc limit ${limit}`,
  );
}

/** `*`/`?` wildcards, case-insensitive, anywhere in the path: the `LIKE` pattern `searchTrash` takes. */
export function trashLike(q: string): string {
  return `%${likePattern(q.toLowerCase())}%`;
}

/** The immediate children of a folder of a repository's trash, folders first then by name. */
export async function listTrashChildren(db: Db, repositoryId: string, folder: string) {
  const skip = folder === '' ? 0 : folder.length + 1;
  const escaped = folder.replace(/[\\%_]/g, (c) => `\\${c}`);
  const rows = await queryRows<{ name: string; folder: boolean | string }>(
    db,
    sql`select split_part(substr(path, ${skip + 1}), '/', 1) as name,
               bool_or(strpos(substr(path, ${skip + 1}), '/') > 0) as folder
          from ${trashItems}
         where repository_id = ${repositoryId} and path like ${folder === '' ? '%' : `${escaped}/%`}
         group by 1`,
  );
  return rows
    .map((r) => ({ name: r.name, folder: r.folder === true || r.folder === 't' }))
    .sort((a, b) => (a.folder === b.folder ? (a.name < b.name ? -1 : 1) : a.folder ? -1 : 1));
}

/** Repositories with entries in the trash (the root of `auto-trashcan`). */
export async function repositoryIdsInTrash(db: Db): Promise<string[]> {
  const rows = await db.selectDistinct({ id: trashItems.repositoryId }).from(trashItems);
  return rows.map((r) => r.id);
}

/** Files and bytes in each repository's trash, by repository key. */
export async function trashUsageRows(db: Db): Promise<{ repoKey: string; count: number; bytes: number }[]> {
  const rows = await queryRows<{ key: string; count: string | number; bytes: string | number | null }>(
    db,
    sql`select r.key, count(*) as count, coalesce(sum(t.size), 0) as bytes
          from ${trashItems} t join ${repositories} r on r.id = t.repository_id
         group by r.key order by r.key`,
  );
  return rows.map((r) => ({ repoKey: r.key, count: Number(r.count), bytes: Number(r.bytes ?? 0) }));
}
