import { eq } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.ts';
import { featureFlags, systemNodes, systemSettings } from './system.schema.ts';

export async function readSystemSetting(db: Db, key: string): Promise<unknown> {
  const rows = await db.select().from(systemSettings).where(eq(systemSettings.key, key)).limit(1);
  return rows[0]?.value;
}

export async function writeSystemSetting(db: Db, key: string, value: unknown): Promise<void> {
  await db
    .insert(systemSettings)
    .values({ key, value })
    .onConflictDoUpdate({ target: systemSettings.key, set: { value, updatedAt: new Date() } });
}

export async function deleteSystemSetting(db: Db, key: string): Promise<void> {
  await db.delete(systemSettings).where(eq(systemSettings.key, key));
}

export async function listFeatureFlags(db: Db): Promise<{ name: string; enabled: boolean }[]> {
  return db.select({ name: featureFlags.name, enabled: featureFlags.enabled }).from(featureFlags);
}

/** Sets the flags given; with `replace`, every other flag's row goes (back to its default) in the same transaction. */
export async function setFeatureFlags(
  db: Db,
  flags: { name: string; enabled: boolean }[],
  replace = false,
): Promise<void> {
  await db.transaction(async (tx) => {
    if (replace) await tx.delete(featureFlags);
    for (const f of flags)
      await tx
        .insert(featureFlags)
        .values(f)
        .onConflictDoUpdate({
          target: featureFlags.name,
          set: { enabled: f.enabled, updatedAt: new Date() },
        });
  });
}

export interface NodeRow {
  id: string;
  url: string;
  version: string;
  revision: string;
  startedAt: Date;
  lastHeartbeatAt: Date;
}

export async function upsertNode(db: Db, node: NodeRow): Promise<void> {
  await db
    .insert(systemNodes)
    .values(node)
    .onConflictDoUpdate({
      target: systemNodes.id,
      set: {
        url: node.url,
        version: node.version,
        revision: node.revision,
        startedAt: node.startedAt,
        lastHeartbeatAt: node.lastHeartbeatAt,
      },
    });
}

export async function touchNode(db: Db, id: string, at: Date): Promise<void> {
  await db.update(systemNodes).set({ lastHeartbeatAt: at }).where(eq(systemNodes.id, id));
}

export async function listNodes(db: Db): Promise<NodeRow[]> {
  return db.select().from(systemNodes).orderBy(systemNodes.id);
}
