import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Db } from '../../platform/db/index.ts';
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
}

export function createAccessContext(db: Db, security: Logger, baseUrl?: string): AccessContext {
  return {
    db,
    settings: new SecuritySettings(db),
    audit: new Audit(db, security),
    credentials: new CredentialCache(),
    security,
    baseUrl,
    generation: { value: 0 },
  };
}

/** Who asks and from where: what the audit trail records. */
export interface RequestMeta {
  principal: Principal | null;
  ip: string;
  requestId: string;
  /** The public base URL of this request (for links in mails). */
  baseUrl: string;
  https: boolean;
}

export function requestMeta(request: FastifyRequest, configuredBaseUrl?: string): RequestMeta {
  return {
    principal: request.principal,
    ip: request.ip,
    requestId: request.id,
    baseUrl: configuredBaseUrl ?? `${request.protocol}://${request.host}`,
    https: request.protocol === 'https',
  };
}

/** Something changed that permission answers depend on. */
export function permissionsChanged(ctx: AccessContext): void {
  ctx.generation.value += 1;
  ctx.credentials.clear();
}
