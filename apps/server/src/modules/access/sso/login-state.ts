import { randomBytes } from 'node:crypto';
import { and, eq, gt, lt } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../../platform/db/index.ts';
import { readCookie } from '../cookies.ts';
import { constantTimeEqual, sha256 } from '../crypto.ts';
import { ssoLoginStates } from './providers.schema.ts';

/** A sign-in through a provider must come back within this time. */
export const SSO_STATE_TTL_MS = 10 * 60_000;
const COOKIE_PATH = '/ui/api/v1/sso/';

export type SsoFlowMode = 'login' | 'test';

export interface SsoFlowData {
  nonce?: string;
  codeVerifier?: string;
  /** Where the user lands after sign-in: a same-origin path (safeRedirect). */
  redirectTo?: string;
  /** The callback URL sent as redirect_uri (the token request repeats it). */
  redirectUri?: string;
}

const cookieName = (providerKey: string) => `granary_sso_${providerKey.replace(/[^a-z0-9_]/g, '_')}`;

/**
 * Starts a flow: a random `state`, stored (hashed) with the flow's data in the database so any node
 * can finish it, and set in a short-lived HttpOnly cookie so only this browser can.
 */
export async function beginFlow(
  db: Db,
  request: FastifyRequest,
  reply: FastifyReply,
  providerKey: string,
  mode: SsoFlowMode,
  data: SsoFlowData,
): Promise<string> {
  const state = randomBytes(32).toString('base64url');
  const now = Date.now();
  await db.delete(ssoLoginStates).where(lt(ssoLoginStates.expiresAt, new Date(now)));
  await db.insert(ssoLoginStates).values({
    stateHash: sha256(`oauth-state:${state}`),
    providerKey,
    mode,
    data: data as Record<string, unknown>,
    expiresAt: new Date(now + SSO_STATE_TTL_MS),
  });
  const parts = [
    `${cookieName(providerKey)}=${state}`,
    `Path=${COOKIE_PATH}`,
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${Math.floor(SSO_STATE_TTL_MS / 1000)}`,
  ];
  if (request.protocol === 'https') parts.push('Secure');
  reply.header('set-cookie', parts.join('; '));
  return state;
}

/**
 * Takes the flow of a callback, once: the `state` must be the one this browser's cookie holds, and the
 * stored row (deleted here, so a second callback finds nothing) must not have expired.
 */
export async function takeFlow(
  db: Db,
  request: FastifyRequest,
  reply: FastifyReply,
  providerKey: string,
  state: string | undefined,
): Promise<{ mode: SsoFlowMode; data: SsoFlowData } | undefined> {
  const cookie = readCookie(request, cookieName(providerKey));
  reply.header(
    'set-cookie',
    `${cookieName(providerKey)}=; Path=${COOKIE_PATH}; HttpOnly; SameSite=Lax; Max-Age=0`,
  );
  if (!state || !cookie || !constantTimeEqual(sha256(cookie), sha256(state))) return undefined;
  const rows = await db
    .delete(ssoLoginStates)
    .where(
      and(
        eq(ssoLoginStates.stateHash, sha256(`oauth-state:${state}`)),
        eq(ssoLoginStates.providerKey, providerKey),
        gt(ssoLoginStates.expiresAt, new Date()),
      ),
    )
    .returning();
  const row = rows[0];
  if (!row) return undefined;
  return { mode: row.mode as SsoFlowMode, data: row.data as SsoFlowData };
}
