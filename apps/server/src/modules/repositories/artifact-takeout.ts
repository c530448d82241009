import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../platform/events/index.ts';
import { type ArtifactRow, artifactsChanged, changeArtifacts } from './artifacts.queries.ts';
import type { RepositoriesContext } from './context.ts';
import { notifyRemoved } from './indexing.ts';
import { artifacts } from './repositories.schema.ts';
import type { RepoConfig } from './repositories.service.ts';

/**
 * Issue 21 archive (cold storage): files of a repository leave `artifacts` for a table of the caller's
 * (`keep`, in the same transaction: the archive's rows and events), not for the trash. They vanish from
 * every client view as a delete does (the read cache is dropped, the packages index hears `removed`, the
 * format regenerates its documents afterwards); their blobs lose these references as on a delete.
 */
export async function takeOutArtifacts(
  ctx: RepositoriesContext,
  repo: RepoConfig,
  paths: string[],
  keep: (tx: Executor, rows: ArtifactRow[]) => Promise<void>,
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
      await keep(tx, taken);
    }
    return taken;
  });
  if (rows.length > 0) await ctx.afterFormatChange(repo, { deleted: rows.map((r) => r.path) });
  return rows;
}
