import { asc, eq, gt, max, sql } from 'drizzle-orm';
import type { ScrubTarget } from '../../platform/blobs/index.ts';
import type { Db } from '../../platform/db/index.ts';
import { artifacts, repositories } from './repositories.schema.ts';

/** A repository's key by its id (to name an artifact in a log line); undefined when it is gone. */
export async function repositoryKeyOf(db: Db, repositoryId: string): Promise<string | undefined> {
  const rows = await db
    .select({ key: repositories.key })
    .from(repositories)
    .where(eq(repositories.id, repositoryId))
    .limit(1);
  return rows[0]?.key;
}

/**
 * Every blob artifacts refer to, once each, in sha256 order and read a page at a time: its size and
 * one artifact (`repository/path`) that has it.
 */
export async function* scrubTargets(db: Db, pageSize = 500): AsyncGenerator<ScrubTarget> {
  let after = '';
  for (;;) {
    const rows = await db
      .select({
        sha256: artifacts.sha256,
        size: max(artifacts.size),
        artifact: sql<string>`min(${repositories.key} || '/' || ${artifacts.path})`,
      })
      .from(artifacts)
      .innerJoin(repositories, eq(repositories.id, artifacts.repositoryId))
      .where(gt(artifacts.sha256, after))
      .groupBy(artifacts.sha256)
      .orderBy(asc(artifacts.sha256))
      .limit(pageSize);
    for (const row of rows) yield { sha256: row.sha256, size: Number(row.size ?? 0), artifact: row.artifact };
    if (rows.length < pageSize) return;
    after = rows.at(-1)!.sha256;
  }
}
