import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.ts';
import { users } from '../access/access.schema.ts';
import {
  oauthApplications,
  oauthAuthorizationCodes,
  oauthAuthorizationRequests,
  oauthGrants,
  oauthGrantTokens,
  oauthRefreshTokens,
} from './applications.schema.ts';

export type ApplicationRow = typeof oauthApplications.$inferSelect;
export type AuthorizationRequestRow = typeof oauthAuthorizationRequests.$inferSelect;
export type AuthorizationCodeRow = typeof oauthAuthorizationCodes.$inferSelect;
export type GrantRow = typeof oauthGrants.$inferSelect;

// Applications

export async function insertApplication(db: Db, row: typeof oauthApplications.$inferInsert) {
  const rows = await db.insert(oauthApplications).values(row).onConflictDoNothing().returning();
  return rows[0];
}

export async function findApplicationByNameAnyCase(db: Db, name: string) {
  const rows = await db
    .select({ id: oauthApplications.id })
    .from(oauthApplications)
    .where(sql`lower(${oauthApplications.name}) = lower(${name})`)
    .limit(1);
  return rows[0];
}

export async function listApplicationRows(db: Db): Promise<ApplicationRow[]> {
  return db.select().from(oauthApplications).orderBy(oauthApplications.createdAt);
}

export async function findApplicationById(db: Db, id: string): Promise<ApplicationRow | undefined> {
  return (await db.select().from(oauthApplications).where(eq(oauthApplications.id, id)).limit(1))[0];
}

export async function findApplicationByClientId(
  db: Db,
  clientId: string,
): Promise<ApplicationRow | undefined> {
  return (
    await db.select().from(oauthApplications).where(eq(oauthApplications.clientId, clientId)).limit(1)
  )[0];
}

export async function deleteApplicationRow(db: Db, id: string): Promise<void> {
  await db.delete(oauthApplications).where(eq(oauthApplications.id, id));
}

// Pending authorization requests

export async function insertAuthorizationRequest(
  db: Db,
  row: typeof oauthAuthorizationRequests.$inferInsert,
) {
  await db.insert(oauthAuthorizationRequests).values(row);
}

export async function findAuthorizationRequest(
  db: Db,
  id: string,
): Promise<AuthorizationRequestRow | undefined> {
  return (
    await db.select().from(oauthAuthorizationRequests).where(eq(oauthAuthorizationRequests.id, id)).limit(1)
  )[0];
}

/** Binds a pending request to the first user who opens it; false when another user holds it. */
export async function claimAuthorizationRequest(db: Db, id: string, userId: string): Promise<boolean> {
  const rows = await db
    .update(oauthAuthorizationRequests)
    .set({ userId })
    .where(
      and(
        eq(oauthAuthorizationRequests.id, id),
        sql`(${oauthAuthorizationRequests.userId} is null or ${oauthAuthorizationRequests.userId} = ${userId})`,
      ),
    )
    .returning({ id: oauthAuthorizationRequests.id });
  return rows.length === 1;
}

/** Takes a pending request out (single use); undefined when it was already taken. */
export async function takeAuthorizationRequest(db: Db, id: string, userId: string) {
  const rows = await db
    .delete(oauthAuthorizationRequests)
    .where(and(eq(oauthAuthorizationRequests.id, id), eq(oauthAuthorizationRequests.userId, userId)))
    .returning();
  return rows[0];
}

export async function pruneExpired(db: Db, now: Date): Promise<void> {
  await db.delete(oauthAuthorizationRequests).where(lt(oauthAuthorizationRequests.expiresAt, now));
  await db.delete(oauthAuthorizationCodes).where(lt(oauthAuthorizationCodes.expiresAt, now));
  await db.delete(oauthRefreshTokens).where(lt(oauthRefreshTokens.expiresAt, now));
}

// Authorization codes

export async function insertAuthorizationCode(db: Db, row: typeof oauthAuthorizationCodes.$inferInsert) {
  await db.insert(oauthAuthorizationCodes).values(row);
}

export async function findAuthorizationCode(db: Db, codeHash: string) {
  const rows = await db
    .select({ code: oauthAuthorizationCodes, user: users })
    .from(oauthAuthorizationCodes)
    .innerJoin(users, eq(oauthAuthorizationCodes.userId, users.id))
    .where(eq(oauthAuthorizationCodes.codeHash, codeHash))
    .limit(1);
  return rows[0];
}

/** Deletes a code; true only for the one caller that redeemed it. */
export async function deleteAuthorizationCode(db: Db, codeHash: string): Promise<boolean> {
  const rows = await db
    .delete(oauthAuthorizationCodes)
    .where(eq(oauthAuthorizationCodes.codeHash, codeHash))
    .returning({ h: oauthAuthorizationCodes.codeHash });
  return rows.length === 1;
}

// Grants (user integrations) and their tokens

export async function upsertGrant(db: Db, applicationId: string, userId: string, scope: string) {
  const rows = await db
    .insert(oauthGrants)
    .values({ applicationId, userId, scope })
    .onConflictDoUpdate({
      target: [oauthGrants.applicationId, oauthGrants.userId],
      set: { scope, lastUsedAt: new Date() },
    })
    .returning();
  return rows[0]!;
}

export async function findGrant(db: Db, applicationId: string, userId: string) {
  return (
    await db
      .select()
      .from(oauthGrants)
      .where(and(eq(oauthGrants.applicationId, applicationId), eq(oauthGrants.userId, userId)))
      .limit(1)
  )[0];
}

export async function listGrantsOfUser(db: Db, userId: string) {
  return db
    .select({ grant: oauthGrants, app: oauthApplications })
    .from(oauthGrants)
    .innerJoin(oauthApplications, eq(oauthGrants.applicationId, oauthApplications.id))
    .where(eq(oauthGrants.userId, userId))
    .orderBy(oauthGrants.createdAt);
}

export async function listGrantIdsOfApplication(db: Db, applicationId: string): Promise<string[]> {
  const rows = await db
    .select({ id: oauthGrants.id })
    .from(oauthGrants)
    .where(eq(oauthGrants.applicationId, applicationId));
  return rows.map((r) => r.id);
}

export async function tokenIdsOfGrants(db: Db, grantIds: string[]): Promise<string[]> {
  if (grantIds.length === 0) return [];
  const rows = await db
    .select({ id: oauthGrantTokens.tokenId })
    .from(oauthGrantTokens)
    .where(inArray(oauthGrantTokens.grantId, grantIds));
  return rows.map((r) => r.id);
}

export async function deleteGrants(db: Db, grantIds: string[]): Promise<void> {
  if (grantIds.length === 0) return;
  await db.delete(oauthGrants).where(inArray(oauthGrants.id, grantIds));
}

export async function touchGrant(db: Db, grantId: string): Promise<void> {
  await db.update(oauthGrants).set({ lastUsedAt: new Date() }).where(eq(oauthGrants.id, grantId));
}

export async function insertGrantToken(db: Db, row: typeof oauthGrantTokens.$inferInsert) {
  await db.insert(oauthGrantTokens).values(row);
}

export async function findGrantTokenByHash(db: Db, tokenHash: string) {
  const rows = await db
    .select({ token: oauthGrantTokens, grant: oauthGrants })
    .from(oauthGrantTokens)
    .innerJoin(oauthGrants, eq(oauthGrantTokens.grantId, oauthGrants.id))
    .where(eq(oauthGrantTokens.tokenHash, tokenHash))
    .limit(1);
  return rows[0];
}

export async function insertRefreshToken(db: Db, row: typeof oauthRefreshTokens.$inferInsert) {
  await db.insert(oauthRefreshTokens).values(row);
}

export async function findRefreshToken(db: Db, tokenHash: string) {
  const rows = await db
    .select({ refresh: oauthRefreshTokens, grant: oauthGrants, user: users })
    .from(oauthRefreshTokens)
    .innerJoin(oauthGrants, eq(oauthRefreshTokens.grantId, oauthGrants.id))
    .innerJoin(users, eq(oauthGrants.userId, users.id))
    .where(eq(oauthRefreshTokens.tokenHash, tokenHash))
    .limit(1);
  return rows[0];
}

/** Deletes a refresh token; true only for the one caller that used it (rotation). */
export async function deleteRefreshToken(db: Db, tokenHash: string): Promise<boolean> {
  const rows = await db
    .delete(oauthRefreshTokens)
    .where(eq(oauthRefreshTokens.tokenHash, tokenHash))
    .returning({ h: oauthRefreshTokens.tokenHash });
  return rows.length === 1;
}
