import { and, desc, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.ts';
import type { Executor } from '../../platform/events/index.ts';
import { accessTokens, users } from './access.schema.ts';

export type TokenRow = typeof accessTokens.$inferSelect;

export async function insertToken(db: Executor, row: typeof accessTokens.$inferInsert): Promise<TokenRow> {
  return (await db.insert(accessTokens).values(row).returning())[0]!;
}

export async function findLiveTokenByHash(db: Db, tokenHash: string) {
  const rows = await db
    .select({ token: accessTokens, user: users })
    .from(accessTokens)
    .innerJoin(users, eq(accessTokens.userId, users.id))
    .where(and(eq(accessTokens.tokenHash, tokenHash), isNull(accessTokens.revokedAt)))
    .limit(1);
  return rows[0];
}

export async function listTokenRows(db: Db, userId?: string) {
  const q = db
    .select({ token: accessTokens, subject: users.name })
    .from(accessTokens)
    .innerJoin(users, eq(accessTokens.userId, users.id));
  return (
    userId
      ? q.where(and(eq(accessTokens.userId, userId), isNull(accessTokens.revokedAt)))
      : q.where(isNull(accessTokens.revokedAt))
  ).orderBy(desc(accessTokens.createdAt));
}

export async function findTokenById(db: Db, id: string): Promise<TokenRow | undefined> {
  return (await db.select().from(accessTokens).where(eq(accessTokens.id, id)).limit(1))[0];
}

export async function revokeTokenRow(db: Db, id: string): Promise<void> {
  await db.update(accessTokens).set({ revokedAt: new Date() }).where(eq(accessTokens.id, id));
}

export async function touchToken(db: Db, id: string): Promise<void> {
  await db.update(accessTokens).set({ lastUsedAt: new Date() }).where(eq(accessTokens.id, id));
}

/** The user's live tokens of one kind (the API key: at most one). */
export async function liveTokensOfKind(db: Db, userId: string, kind: string): Promise<TokenRow[]> {
  return db
    .select()
    .from(accessTokens)
    .where(and(eq(accessTokens.userId, userId), eq(accessTokens.kind, kind), isNull(accessTokens.revokedAt)))
    .orderBy(desc(accessTokens.createdAt));
}

export async function revokeTokensOfKind(db: Executor, userId: string, kind: string): Promise<number> {
  const rows = await db
    .update(accessTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(accessTokens.userId, userId), eq(accessTokens.kind, kind), isNull(accessTokens.revokedAt)))
    .returning({ id: accessTokens.id });
  return rows.length;
}
