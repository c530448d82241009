import { and, eq, sql, TransactionRollbackError } from 'drizzle-orm';
import { type Db, queryRows } from '../../platform/db/index.ts';
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
  hostName?: string;
  url: string;
  version: string;
  revision: string;
  startedAt: Date;
  lastHeartbeatAt: Date;
  /** The health of the node's own parts (contracts MicroService[]), written with each heartbeat. */
  services?: unknown;
}

/** Registers (or re-registers, after a restart) a node; its heartbeat time is the database's clock. */
export async function upsertNode(db: Db, node: NodeRow): Promise<void> {
  const values = { ...node, hostName: node.hostName ?? '', services: node.services ?? [] };
  await db
    .insert(systemNodes)
    .values(values)
    .onConflictDoUpdate({
      target: systemNodes.id,
      set: {
        hostName: values.hostName,
        url: node.url,
        version: node.version,
        revision: node.revision,
        startedAt: node.startedAt,
        lastHeartbeatAt: node.lastHeartbeatAt,
        services: values.services,
      },
    });
}

/**
 * A heartbeat: the node's row gets the database's `now()` (every node reads one clock, so a node
 * whose own clock is off is neither Offline too early nor Online too long) and its parts' health.
 * False when the row is gone (an admin removed the node): the caller registers again.
 */
export async function touchNode(db: Db, id: string, services?: unknown): Promise<boolean> {
  const rows = await db
    .update(systemNodes)
    .set(services === undefined ? { lastHeartbeatAt: sql`now()` } : { lastHeartbeatAt: sql`now()`, services })
    .where(eq(systemNodes.id, id))
    .returning({ id: systemNodes.id });
  return rows.length > 0;
}

/** Every node, with the database's clock to judge their silence by. */
export async function listNodes(db: Db): Promise<{ now: Date; nodes: (NodeRow & { services: unknown })[] }> {
  const [clock] = await queryRows<{ now: string | Date }>(db, sql`select now() as now`);
  const nodes = await db.select().from(systemNodes).orderBy(systemNodes.id);
  return { now: new Date(clock?.now ?? Date.now()), nodes };
}

/**
 * Removes a node silent for at least `silentMs` (by the database's clock), in one statement so a node
 * that beats meanwhile stays. Answers whether it was removed.
 */
export async function deleteSilentNode(db: Db, id: string, silentMs: number): Promise<boolean> {
  const rows = await db
    .delete(systemNodes)
    .where(
      and(
        eq(systemNodes.id, id),
        sql`${systemNodes.lastHeartbeatAt} <= now() - ${`${silentMs} milliseconds`}::interval`,
      ),
    )
    .returning({ id: systemNodes.id });
  return rows.length > 0;
}

/**
 * The health detail's database write probe: a real write (a row in `system_settings`) in a
 * transaction that is rolled back, so it proves the database takes writes and leaves nothing.
 */
export async function probeDatabaseWrite(db: Db, nodeId: string): Promise<void> {
  try {
    await db.transaction(async (tx) => {
      await tx
        .insert(systemSettings)
        .values({ key: `health-probe:${nodeId}`, value: { at: new Date().toISOString() } })
        .onConflictDoUpdate({ target: systemSettings.key, set: { updatedAt: new Date() } });
      tx.rollback();
    });
  } catch (error) {
    if (error instanceof TransactionRollbackError) return;
    throw error;
  }
}
