import { and, eq, inArray, or, type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../platform/db/index.ts';
import { likePattern } from '../../platform/db/like-pattern.ts';
import type { Executor } from '../../platform/events/index.ts';
import { artifacts, repositories } from './repositories.schema.ts';

export type ArtifactRow = typeof artifacts.$inferSelect;
export type ArtifactInsert = typeof artifacts.$inferInsert;

/** `LIKE` pattern for everything below folder `path` ('' = the repository root). */
function below(path: string): string {
  const escaped = path.replace(/[\\%_]/g, (c) => `\\${c}`);
  return path === '' ? '%' : `${escaped}/%`;
}

export async function findArtifact(
  db: Executor,
  repositoryId: string,
  path: string,
): Promise<ArtifactRow | undefined> {
  const rows = await db
    .select()
    .from(artifacts)
    .where(and(eq(artifacts.repositoryId, repositoryId), eq(artifacts.path, path)))
    .limit(1);
  return rows[0];
}

/**
 * Artifact rows the read path looked up, per database, for a second (other nodes' changes show
 * within that). Any change to artifacts on this node — at the statement and again once its
 * transaction has committed (`artifactsChanged`) — drops them all, so this node never serves a
 * row it has itself replaced or deleted.
 */
const READ_CACHE_TTL_MS = 1_000;
const READ_CACHE_MAX = 50_000;
let generation = 0;
const readCache = new WeakMap<
  object,
  Map<string, { gen: number; at: number; row: ArtifactRow | undefined }>
>();

export function artifactsChanged(): void {
  generation += 1;
}

/** The change counter of this node's artifacts (formats key in-memory documents on it). */
export const artifactsGeneration = (): number => generation;

/** A transaction that changes artifacts: the read cache is dropped again once it has committed. */
export async function changeArtifacts<T>(db: Db, fn: (tx: Executor) => Promise<T>): Promise<T> {
  try {
    return await db.transaction((tx) => fn(tx));
  } finally {
    artifactsChanged();
  }
}

/** `findArtifact` for the hot read path (GET/HEAD of files), through the read cache. */
export async function findArtifactForRead(
  db: Db,
  repositoryId: string,
  path: string,
): Promise<ArtifactRow | undefined> {
  let byKey = readCache.get(db);
  if (!byKey) {
    byKey = new Map();
    readCache.set(db, byKey);
  }
  const key = `${repositoryId}\u0000${path}`;
  const now = Date.now();
  const hit = byKey.get(key);
  if (hit && hit.gen === generation && now - hit.at < READ_CACHE_TTL_MS) return hit.row;
  const gen = generation;
  const row = await findArtifact(db, repositoryId, path);
  if (gen === generation) {
    if (byKey.size >= READ_CACHE_MAX) byKey.clear();
    byKey.set(key, { gen, at: now, row });
  }
  return row;
}

/** Every file below a folder, by path (at most `limit`). */
export async function listArtifactsBelow(
  db: Executor,
  repositoryId: string,
  folder: string,
  limit?: number,
): Promise<ArtifactRow[]> {
  const query = db
    .select()
    .from(artifacts)
    .where(and(eq(artifacts.repositoryId, repositoryId), sql`${artifacts.path} like ${below(folder)}`))
    .orderBy(artifacts.path);
  return limit === undefined ? query : query.limit(limit);
}

export interface FolderChild {
  name: string;
  folder: boolean;
}

/** The immediate children of a folder (files and implied sub-folders), folders first then by name. */
export async function listChildren(db: Db, repositoryId: string, folder: string): Promise<FolderChild[]> {
  const skip = folder === '' ? 0 : folder.length + 1;
  const rows = await queryRows<{ name: string; folder: boolean }>(
    db,
    sql`select split_part(substr(path, ${skip + 1}), '/', 1) as name,
               bool_or(strpos(substr(path, ${skip + 1}), '/') > 0) as folder
          from artifacts
         where repository_id = ${repositoryId} and path like ${below(folder)}
         group by 1`,
  );
  return rows
    .map((r) => ({ name: r.name, folder: r.folder === true || (r.folder as unknown) === 't' }))
    .sort((a, b) => (a.folder === b.folder ? (a.name < b.name ? -1 : 1) : a.folder ? -1 : 1));
}

/** The first of `paths` stored as a file in the repository, in one query (a deploy's parent folders). */
export async function findFileAmong(
  db: Executor,
  repositoryId: string,
  paths: string[],
): Promise<string | undefined> {
  if (paths.length === 0) return undefined;
  const rows = await db
    .select({ path: artifacts.path })
    .from(artifacts)
    .where(and(eq(artifacts.repositoryId, repositoryId), inArray(artifacts.path, paths)));
  const found = new Set(rows.map((r) => r.path));
  return paths.find((p) => found.has(p));
}

export async function folderExists(db: Executor, repositoryId: string, folder: string): Promise<boolean> {
  const rows = await db
    .select({ id: artifacts.id })
    .from(artifacts)
    .where(and(eq(artifacts.repositoryId, repositoryId), sql`${artifacts.path} like ${below(folder)}`))
    .limit(1);
  return rows.length > 0;
}

/**
 * What stands in the way of new files at `paths`, in one round trip (a deploy's hot path): for each,
 * a file at one of its parent folders (the nearest named), or files below it (it is a folder).
 */
export async function pathConflicts(
  db: Db,
  repositoryId: string,
  paths: string[],
): Promise<Map<string, { fileAbove?: string; folder: boolean }>> {
  const parentsOf = (path: string) => {
    const out: string[] = [];
    for (let i = path.lastIndexOf('/'); i > 0; i = path.lastIndexOf('/', i - 1)) out.push(path.slice(0, i));
    return out;
  };
  const parents = [...new Set(paths.flatMap(parentsOf))];
  const parts = paths.map(
    (p) =>
      sql`(select path, ${p}::text as under from artifacts where repository_id = ${repositoryId} and path like ${below(p)} limit 1)`,
  );
  if (parents.length > 0)
    parts.push(
      sql`(select path, null::text as under from artifacts where repository_id = ${repositoryId} and path in (${sql.join(
        parents.map((p) => sql`${p}`),
        sql`, `,
      )}))`,
    );
  const rows = await queryRows<{ path: string; under: string | null }>(db, sql.join(parts, sql` union all `));
  const files = new Set(rows.filter((r) => r.under === null).map((r) => r.path));
  const folders = new Set(rows.filter((r) => r.under !== null).map((r) => r.under));
  return new Map(
    paths.map((p) => [p, { fileAbove: parentsOf(p).find((d) => files.has(d)), folder: folders.has(p) }]),
  );
}

/** The stored files of a repository at `paths` (those that exist). */
export async function findArtifacts(
  db: Executor,
  repositoryId: string,
  paths: string[],
): Promise<ArtifactRow[]> {
  if (paths.length === 0) return [];
  return db
    .select()
    .from(artifacts)
    .where(and(eq(artifacts.repositoryId, repositoryId), inArray(artifacts.path, paths)));
}

/** Inserts or replaces the artifact at its path in one statement: concurrent writers leave one whole row. */
export async function upsertArtifact(db: Executor, row: ArtifactInsert): Promise<ArtifactRow> {
  const [stored] = await upsertArtifacts(db, [row]);
  return stored!;
}

/**
 * Inserts or replaces the artifacts at their paths in one statement (issue 24: a statement per file
 * was most of a multi-file commit's cost on the embedded database); a path given twice keeps its
 * last row (one statement cannot update a row twice). Answers the stored row of each row given, in order.
 */
export async function upsertArtifacts(db: Executor, rows: ArtifactInsert[]): Promise<ArtifactRow[]> {
  if (rows.length === 0) return [];
  artifactsChanged();
  const now = new Date();
  const excluded = (column: string) => sql.raw(`excluded.${column}`);
  const last = new Map(rows.map((row) => [row.path, row]));
  const stored = await db
    .insert(artifacts)
    .values(
      [...last.values()].map((row) => ({
        ...row,
        mimeType: row.mimeType ?? null,
        properties: row.properties ?? {},
        fetchedAt: row.fetchedAt ?? null,
        createdAt: row.createdAt ?? now,
        modifiedAt: now,
      })),
    )
    .onConflictDoUpdate({
      target: [artifacts.repositoryId, artifacts.path],
      set: {
        size: excluded('size'),
        sha256: excluded('sha256'),
        sha1: excluded('sha1'),
        md5: excluded('md5'),
        mimeType: excluded('mime_type'),
        properties: excluded('properties'),
        modifiedAt: excluded('modified_at'),
        modifiedBy: excluded('modified_by'),
        fetchedAt: excluded('fetched_at'),
      },
    })
    .returning();
  const byPath = new Map(stored.map((r) => [r.path, r]));
  return rows.map((r) => byPath.get(r.path)!);
}

/** Deletes the file at `path`, or every file below it when it is a folder; returns what was deleted. */
export async function deleteArtifactsAt(
  db: Executor,
  repositoryId: string,
  path: string,
): Promise<ArtifactRow[]> {
  artifactsChanged();
  return db
    .delete(artifacts)
    .where(
      and(
        eq(artifacts.repositoryId, repositoryId),
        path === '' ? sql`true` : or(eq(artifacts.path, path), sql`${artifacts.path} like ${below(path)}`),
      ),
    )
    .returning();
}

export async function setArtifactProperties(
  db: Executor,
  id: number,
  properties: Record<string, string[]>,
  by: string,
): Promise<void> {
  artifactsChanged();
  await db
    .update(artifacts)
    .set({ properties, modifiedAt: new Date(), modifiedBy: by })
    .where(eq(artifacts.id, id));
}

export async function findByChecksum(
  db: Executor,
  checksum: { sha256?: string; sha1?: string; md5?: string },
): Promise<ArtifactRow | undefined> {
  const where = checksum.sha256
    ? eq(artifacts.sha256, checksum.sha256.toLowerCase())
    : checksum.sha1
      ? eq(artifacts.sha1, checksum.sha1.toLowerCase())
      : checksum.md5
        ? eq(artifacts.md5, checksum.md5.toLowerCase())
        : undefined;
  if (!where) return undefined;
  const rows = await db.select().from(artifacts).where(where).limit(1);
  return rows[0];
}

export interface RepositoryUsage {
  key: string;
  rclass: string;
  packageType: string;
  filesCount: number;
  usedSpace: number;
}

export async function usageByRepository(db: Db): Promise<RepositoryUsage[]> {
  const rows = await queryRows<{
    key: string;
    rclass: string;
    package_type: string;
    files: string | number;
    bytes: string | number | null;
  }>(
    db,
    sql`select r.key, r.rclass, r.package_type, count(a.id) as files, coalesce(sum(a.size), 0) as bytes
          from ${repositories} r left join ${artifacts} a on a.repository_id = r.id
         group by r.id, r.key, r.rclass, r.package_type
         order by r.key`,
  );
  return rows.map((r) => ({
    key: r.key,
    rclass: r.rclass,
    packageType: r.package_type,
    filesCount: Number(r.files),
    usedSpace: Number(r.bytes ?? 0),
  }));
}

/** Distinct stored contents: what the blob store holds for the artifacts. */
export async function binariesUsage(db: Db): Promise<{ count: number; size: number }> {
  const rows = await queryRows<{ count: string | number; size: string | number | null }>(
    db,
    sql`select count(*) as count, coalesce(sum(size), 0) as size
          from (select sha256, max(size) as size from ${artifacts} group by sha256) b`,
  );
  return { count: Number(rows[0]?.count ?? 0), size: Number(rows[0]?.size ?? 0) };
}

/** Marks a remote's cached files at or below `path` stale (fetched_at cleared); how many were. */
export async function expireCached(db: Executor, repositoryId: string, path: string): Promise<number> {
  artifactsChanged();
  const rows = await db
    .update(artifacts)
    .set({ fetchedAt: null })
    .where(
      and(
        eq(artifacts.repositoryId, repositoryId),
        sql`${artifacts.fetchedAt} is not null`,
        path === '' ? sql`true` : or(eq(artifacts.path, path), sql`${artifacts.path} like ${below(path)}`),
      ),
    )
    .returning({ id: artifacts.id });
  artifactsChanged();
  return rows.length;
}

/** A cached file confirmed fresh by its upstream (304): fetched now. */
export async function markFetched(db: Executor, id: number): Promise<ArtifactRow> {
  artifactsChanged();
  const [row] = await db
    .update(artifacts)
    .set({ fetchedAt: new Date() })
    .where(eq(artifacts.id, id))
    .returning();
  artifactsChanged();
  return row!;
}

/**
 * How a package version's files sit around its lead file: `folder`, every file directly in the lead's
 * folder (types whose version is a folder: Maven, Docker…); `sidecars`, the lead and the files named
 * after it (`{lead}.asc`, `{lead}.sha1`…).
 */
export type VersionLayout = 'folder' | 'sidecars';

/** The files of a package version in a repository (see `VersionLayout`), by path, at most `limit`. */
export async function filesOfVersion(
  db: Executor,
  repositoryId: string,
  leadPath: string,
  layout: VersionLayout,
  limit = 1000,
) {
  let files: SQL;
  if (layout === 'folder') {
    const folder = leadPath.includes('/') ? leadPath.slice(0, leadPath.lastIndexOf('/') + 1) : '';
    const below = `${likePattern(folder)}%`;
    files = sql`${artifacts.path} like ${below} and ${artifacts.path} not like ${`${below}/%`}`;
  } else
    files = sql`(${artifacts.path} = ${leadPath} or ${artifacts.path} like ${`${likePattern(leadPath)}.%`})`;
  return db
    .select({
      path: artifacts.path,
      size: artifacts.size,
      md5: artifacts.md5,
      sha1: artifacts.sha1,
      sha256: artifacts.sha256,
      mimeType: artifacts.mimeType,
    })
    .from(artifacts)
    .where(sql`${artifacts.repositoryId} = ${repositoryId} and ${files}`)
    .orderBy(artifacts.path)
    .limit(limit);
}

/**
 * For another module's statement over its own (repository id, path) pairs (the packages index's lead
 * files, archive entries) that must read the stored file in the same query, for speed: the `join`
 * for its FROM clause (rows without a stored file drop out) and what it may read of the file, under
 * the alias `sf` (one per statement). The table stays this module's: nobody else names it.
 */
export function storedFileJoin(repositoryId: SQL, path: SQL) {
  return {
    join: sql`join ${artifacts} sf on sf.repository_id = ${repositoryId} and sf.path = ${path}`,
    repositoryId: sql`sf.repository_id`,
    path: sql`sf.path`,
    size: sql`sf.size`,
    modifiedAt: sql`sf.modified_at`,
    sha256: sql`sf.sha256`,
    /** its SHA-256, SHA-1 or MD5 is `checksum` (lower-case hex) */
    checksumIs: (checksum: string) =>
      sql`(sf.sha256 = ${checksum} or sf.sha1 = ${checksum} or sf.md5 = ${checksum})`,
  };
}

/** What a file search asks of stored files; patterns are `LIKE` patterns (see `likePattern`). */
export type StoredFileMatch =
  | { by: 'name'; lowerCaseLike: string }
  | { by: 'path'; like: string }
  | { by: 'checksum'; algorithm: 'sha256' | 'sha1' | 'md5'; value: string }
  /** every property: the key set (`valueLike` absent), or one of its values like `valueLike` */
  | { by: 'properties'; properties: { key: string; valueLike?: string }[] };

export interface StoredFileHit {
  repository_id: string;
  path: string;
  size: string | number;
  modified_at: string | Date;
  sha256: string;
}

function storedFileCondition(match: StoredFileMatch): SQL {
  switch (match.by) {
    case 'name':
      return sql`lower(regexp_replace(a.path, '^.*/', '')) like ${match.lowerCaseLike}`;
    case 'path':
      return sql`a.path like ${match.like}`;
    case 'checksum':
      return match.algorithm === 'sha256'
        ? sql`a.sha256 = ${match.value}`
        : match.algorithm === 'sha1'
          ? sql`a.sha1 = ${match.value}`
          : sql`a.md5 = ${match.value}`;
    case 'properties':
      return sql.join(
        match.properties.map((p) =>
          p.valueLike === undefined
            ? sql`a.properties ? ${p.key}`
            : sql`exists (select 1 from jsonb_array_elements_text(case when jsonb_typeof(a.properties -> ${p.key}) = 'array' then a.properties -> ${p.key} else '[]'::jsonb end) x
                    where x like ${p.valueLike})`,
        ),
        sql` and `,
      );
  }
}

/** Stored files of these repositories that match, by path then repository, at most `limit`. */
export async function searchStoredFiles(
  db: Db,
  repositoryIds: string[],
  match: StoredFileMatch,
  limit: number,
): Promise<StoredFileHit[]> {
  if (repositoryIds.length === 0) return [];
  const inRepos = sql`a.repository_id in (${sql.join(
    repositoryIds.map((id) => sql`${id}::uuid`),
    sql`, `,
  )})`;
  return queryRows<StoredFileHit>(
    db,
    sql`select a.repository_id, a.path, a.size, a.modified_at, a.sha256
        from ${artifacts} a where ${inRepos} and ${storedFileCondition(match)}
        order by a.path, a.repository_id limit ${limit}`,
  );
}
