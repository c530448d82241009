import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import os from 'node:os';
import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Db, NotifyChannel } from '../../platform/db/index.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { Audit } from './audit.service.ts';
import { CredentialCache } from './credential-cache.ts';
import { SecuritySettings } from './settings.service.ts';

/** What the access services share: the database, settings, audit trail and the credential cache. */
export interface AccessContext {
  db: Db;
  settings: SecuritySettings;
  audit: Audit;
  credentials: CredentialCache;
  security: Logger;
  /** `GRANARY_BASE_URL`, when set. */
  baseUrl?: string;
  /** Bumped on every permission target, group or user change: the authorizer's cache key. */
  generation: { value: number };
  /** The clock token expiry and the credential cache read (epoch ms); tests move it. */
  now: () => number;
}

export function createAccessContext(
  db: Db,
  security: Logger,
  baseUrl?: string,
  now: () => number = Date.now,
): AccessContext {
  return {
    db,
    settings: new SecuritySettings(db),
    audit: new Audit(db, security),
    credentials: new CredentialCache({ now }),
    security,
    baseUrl,
    generation: { value: 0 },
    now,
  };
}

const ACCESS_CHANNEL = 'granary_access';

/**
 * Shares cache invalidation with the other nodes on the database (LISTEN/NOTIFY): every
 * `ctx.credentials.clear()` here is announced, and an announcement from another node (or a lost
 * connection, after which one may have been missed) empties this node's credential cache, permission
 * targets and security settings at once. Returns the function that stops listening.
 */
export async function shareAccessInvalidation(
  ctx: AccessContext,
  channel: NotifyChannel,
): Promise<() => Promise<void>> {
  const node = randomUUID();
  const forget = () => {
    ctx.generation.value += 1;
    ctx.credentials.clearLocal();
    ctx.settings.forget();
  };
  const unlisten = await channel.listen(ACCESS_CHANNEL, (from) => from !== node && forget(), forget);
  ctx.credentials.onClear = () =>
    channel.notify(ACCESS_CHANNEL, node).catch((err: Error) => {
      ctx.security.error(
        { event: 'access.invalidate.failure', err: err.message },
        'could not tell the other nodes to drop cached credentials; they drop them within a minute',
      );
    });
  return async () => {
    ctx.credentials.onClear = undefined;
    await unlisten();
  };
}

/** Who asks and from where: what the audit trail records. */
export interface RequestMeta {
  principal: Principal | null;
  ip: string;
  requestId: string;
  /** The public base URL of this request. */
  baseUrl: string;
  /**
   * The base URL links in mails may use: `GRANARY_BASE_URL`, else the request's origin only when its Host
   * is a name this server listens under, a loopback name or an IP literal; null otherwise (the Host
   * header is the client's word, and a mailed link must not point wherever a stranger says).
   */
  mailBaseUrl: string | null;
  https: boolean;
}

/** Whether a Host header names this server: an IP literal, a loopback name, or the host it listens under. */
export function trustedHostName(hostname: string, listenHost: string | undefined): boolean {
  const name = hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (name === '') return false;
  if (isIP(name)) return true;
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (listenHost && !isIP(listenHost) && name === listenHost.toLowerCase()) return true;
  return name === os.hostname().toLowerCase();
}

export function requestMeta(request: FastifyRequest, configuredBaseUrl?: string): RequestMeta {
  const origin = `${request.protocol}://${request.host}`;
  const listenHost = (request.server as { granary?: { config?: { host?: string } } }).granary?.config?.host;
  let mailBaseUrl: string | null = configuredBaseUrl ?? null;
  if (!mailBaseUrl) {
    try {
      const url = new URL(origin);
      if (trustedHostName(url.hostname, listenHost)) mailBaseUrl = url.origin;
    } catch {
      mailBaseUrl = null;
    }
  }
  return {
    principal: request.principal,
    ip: request.ip,
    requestId: request.id,
    baseUrl: configuredBaseUrl ?? origin,
    mailBaseUrl,
    https: request.protocol === 'https',
  };
}

/** The admin-facing line in security.log when a mail link was refused for want of a trusted address. */
export function logUntrustedBase(ctx: AccessContext, meta: RequestMeta, event: string): void {
  ctx.security.error(
    { event, reqId: meta.requestId, ip: meta.ip },
    'mail not sent: the request Host is not a name this server listens under and GRANARY_BASE_URL is not set; set GRANARY_BASE_URL to the public address (needed behind a proxy) so mailed links point to this server',
  );
}

/** Something changed that permission answers depend on. */
export function permissionsChanged(ctx: AccessContext): Promise<void> {
  ctx.generation.value += 1;
  return ctx.credentials.clear();
}
