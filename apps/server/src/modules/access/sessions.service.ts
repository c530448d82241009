import type { Db } from '../../platform/db/index.ts';
import type { UserRow } from './access.queries.ts';
import { constantTimeEqual, randomSecret, sha256 } from './crypto.ts';
import {
  deleteExpiredSessions,
  deleteSessionRow,
  findSessionByHash,
  insertSession,
  type SessionRow,
  touchSession,
} from './sessions.queries.ts';

/**
 * Console sessions. The cookie holds a random id; the table holds its SHA-256. A session ends after
 * `idleMs` without a request or `absoluteMs` after sign-in; remember-me stretches both. A session in
 * state `mfa` only lets its holder finish the second factor: it is not a signed-in session.
 */
export const SESSION_LIMITS = {
  idleMs: 30 * 60_000,
  absoluteMs: 12 * 60 * 60_000,
  rememberIdleMs: 14 * 24 * 60 * 60_000,
  rememberAbsoluteMs: 30 * 24 * 60 * 60_000,
  mfaMs: 5 * 60_000,
  /** lastSeenAt is written at most this often. */
  touchEveryMs: 60_000,
} as const;

export type SessionState = 'active' | 'mfa';

export async function openSession(
  db: Db,
  user: UserRow,
  state: SessionState,
  rememberMe: boolean,
  ip: string,
): Promise<{ token: string; session: SessionRow; maxAgeSeconds: number | null }> {
  const token = randomSecret();
  const now = Date.now();
  const absolute =
    state === 'mfa'
      ? SESSION_LIMITS.mfaMs
      : rememberMe
        ? SESSION_LIMITS.rememberAbsoluteMs
        : SESSION_LIMITS.absoluteMs;
  const session = await insertSession(db, {
    tokenHash: sha256(token),
    userId: user.id,
    state,
    rememberMe,
    ip,
    expiresAt: new Date(now + absolute),
  });
  // Housekeeping: expired rows go whenever someone signs in.
  await deleteExpiredSessions(db, new Date(now));
  // Only a remembered session outlives the browser.
  return {
    token,
    session,
    maxAgeSeconds: rememberMe && state === 'active' ? Math.floor(absolute / 1000) : null,
  };
}

/** The live session for a cookie value (any state), or undefined when unknown, idle too long or expired. */
export async function resolveSession(db: Db, token: string, now = new Date()) {
  const hash = sha256(token);
  const hit = await findSessionByHash(db, hash);
  if (!hit || !constantTimeEqual(hit.session.tokenHash, hash)) return undefined;
  const { session } = hit;
  const idle = session.rememberMe ? SESSION_LIMITS.rememberIdleMs : SESSION_LIMITS.idleMs;
  if (session.expiresAt <= now || now.getTime() - session.lastSeenAt.getTime() > idle) {
    await deleteSessionRow(db, session.id);
    return undefined;
  }
  if (now.getTime() - session.lastSeenAt.getTime() > SESSION_LIMITS.touchEveryMs)
    await touchSession(db, session.id, now);
  return hit;
}

export async function closeSession(db: Db, id: string): Promise<void> {
  await deleteSessionRow(db, id);
}
