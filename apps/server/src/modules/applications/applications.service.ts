import { randomBytes } from 'node:crypto';
import {
  APPLICATION_MESSAGES,
  APPLICATION_SCOPES,
  type Application,
  type ApplicationClientData,
  type ApplicationCreate,
  type ApplicationCreated,
  type ApplicationType,
  type ApplicationValidate,
  OAUTH_PATHS,
  type UserIntegration,
} from '@granary/contracts';
import type { Logger } from 'pino';
import type { Db } from '../../platform/db/index.ts';
import { ConflictError, ForbiddenError, NotFoundError } from '../../platform/errors.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { auditOf } from '../access/audit.service.ts';
import type { AccessContext, RequestMeta } from '../access/context.ts';
import { constantTimeEqual, sha256 } from '../access/crypto.ts';
import { revokeApplicationTokens } from '../access/tokens.service.ts';
import { requireUser } from '../access/users.service.ts';
import {
  type ApplicationRow,
  deleteApplicationRow,
  deleteGrants,
  findApplicationById,
  findApplicationByNameAnyCase,
  findGrant,
  insertApplication,
  listApplicationRows,
  listGrantIdsOfApplication,
  listGrantsOfUser,
  tokenIdsOfGrants,
} from './applications.queries.ts';

export interface ApplicationsContext {
  db: Db;
  access: AccessContext;
  log: Logger;
  now: () => number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Client secrets: 256 random bits, so their SHA-256 is all that is kept (verified, never read back). */
const SECRET_PREFIX = 'grs_';

export function hashClientSecret(secret: string): string {
  return sha256(secret);
}

export function clientSecretMatches(app: ApplicationRow, secret: string): boolean {
  return constantTimeEqual(app.clientSecretHash, sha256(secret));
}

export function toApplication(row: ApplicationRow): Application {
  return {
    id: row.id,
    name: row.name,
    type: row.type as ApplicationType,
    description: row.description,
    callbackUrl: row.callbackUrl,
    platformBaseUrl: row.platformBaseUrl,
    clientId: row.clientId,
    createdOn: row.createdAt.toISOString(),
  };
}

async function requireApplication(ctx: ApplicationsContext, id: string): Promise<ApplicationRow> {
  const row = UUID.test(id) ? await findApplicationById(ctx.db, id) : undefined;
  if (!row) throw new NotFoundError(`Application '${id}' not found`);
  return row;
}

/** `POST integrations/applications`: a client id and a secret, the secret answered once. */
export async function createApplication(
  ctx: ApplicationsContext,
  meta: RequestMeta,
  body: ApplicationCreate & { description: string },
): Promise<ApplicationCreated> {
  if (await findApplicationByNameAnyCase(ctx.db, body.name))
    throw new ConflictError(APPLICATION_MESSAGES.duplicate);
  const clientSecret = `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
  const row = await insertApplication(ctx.db, {
    name: body.name,
    type: body.type,
    description: body.description ?? '',
    callbackUrl: body.callbackUrl,
    platformBaseUrl: body.platformBaseUrl,
    clientId: `granary-${randomBytes(12).toString('hex')}`,
    clientSecretHash: hashClientSecret(clientSecret),
    createdBy: meta.principal?.name ?? null,
  });
  if (!row) throw new ConflictError(APPLICATION_MESSAGES.duplicate);
  await ctx.access.audit.record({
    ...auditOf(meta),
    action: 'application.create',
    target: row.name,
    result: 'success',
    details: { clientId: row.clientId },
  });
  return { ...toApplication(row), clientSecret };
}

export async function listApplications(ctx: ApplicationsContext): Promise<Application[]> {
  return (await listApplicationRows(ctx.db)).map(toApplication);
}

/** Revokes grants: their Granary access tokens stop working at once; refresh tokens and codes go with them. */
async function revokeGrants(ctx: ApplicationsContext, grantIds: string[]): Promise<void> {
  const tokenIds = await tokenIdsOfGrants(ctx.db, grantIds);
  await revokeApplicationTokens(ctx.access, tokenIds);
  await deleteGrants(ctx.db, grantIds);
}

/** `DELETE integrations/applications/{id}`: the application and every token it holds. */
export async function deleteApplication(ctx: ApplicationsContext, meta: RequestMeta, id: string) {
  const row = await requireApplication(ctx, id);
  await revokeGrants(ctx, await listGrantIdsOfApplication(ctx.db, row.id));
  await deleteApplicationRow(ctx.db, row.id);
  await ctx.access.audit.record({
    ...auditOf(meta),
    action: 'application.delete',
    target: row.name,
    result: 'success',
  });
}

export function authorizeUrl(baseUrl: string, row: ApplicationRow): string {
  const url = new URL(OAUTH_PATHS.authorize, baseUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', row.clientId);
  url.searchParams.set('redirect_uri', row.callbackUrl);
  url.searchParams.set('scope', APPLICATION_SCOPES[0]);
  return url.toString();
}

/** `GET validate/{id}`: the application is registered and where its users start. */
export async function validateApplication(
  ctx: ApplicationsContext,
  baseUrl: string,
  id: string,
): Promise<ApplicationValidate> {
  const row = await requireApplication(ctx, id);
  return { id: row.id, valid: true, auth_url: authorizeUrl(baseUrl, row) };
}

/** `GET client-data/{id}`: what to configure in the application (never the secret). */
export async function clientData(
  ctx: ApplicationsContext,
  baseUrl: string,
  id: string,
): Promise<ApplicationClientData> {
  const row = await requireApplication(ctx, id);
  return {
    id: row.id,
    name: row.name,
    client_id: row.clientId,
    redirect_uri: row.callbackUrl,
    platform_base_url: row.platformBaseUrl,
    authorization_endpoint: new URL(OAUTH_PATHS.authorize, baseUrl).toString(),
    token_endpoint: new URL(OAUTH_PATHS.token, baseUrl).toString(),
    revocation_endpoint: new URL(OAUTH_PATHS.revoke, baseUrl).toString(),
    scopes_supported: [...APPLICATION_SCOPES],
    code_challenge_methods_supported: ['S256'],
  };
}

/** The user themself or an administrator (a user's own integrations are theirs to see and revoke). */
async function requireSelfOrAdmin(ctx: ApplicationsContext, caller: Principal, username: string) {
  if (caller.name.toLowerCase() !== username.toLowerCase() && !caller.admin)
    throw new ForbiddenError("Only an administrator can manage another user's integrations");
  return requireUser(ctx.db, username);
}

/** `GET user-integrations/{username}` */
export async function listUserIntegrations(
  ctx: ApplicationsContext,
  caller: Principal,
  username: string,
): Promise<UserIntegration[]> {
  const user = await requireSelfOrAdmin(ctx, caller, username);
  const rows = await listGrantsOfUser(ctx.db, user.id);
  return rows.map(({ grant, app }) => ({
    username: user.name,
    client_id: app.clientId,
    application_id: app.id,
    application_name: app.name,
    scopes: grant.scope.split(' ').filter(Boolean),
    created: grant.createdAt.toISOString(),
    last_used: grant.lastUsedAt?.toISOString() ?? null,
  }));
}

/** `DELETE user-integrations/{clientId}/{username}`: the application loses the user's tokens at once. */
export async function revokeUserIntegration(
  ctx: ApplicationsContext,
  meta: RequestMeta,
  clientId: string,
  username: string,
): Promise<void> {
  const user = await requireSelfOrAdmin(ctx, meta.principal!, username);
  const apps = (await listGrantsOfUser(ctx.db, user.id)).filter(({ app }) => app.clientId === clientId);
  const grant = apps[0] ? await findGrant(ctx.db, apps[0].app.id, user.id) : undefined;
  if (!grant) throw new NotFoundError(`No integration of '${clientId}' for '${user.name}'`);
  await revokeGrants(ctx, [grant.id]);
  await ctx.access.audit.record({
    ...auditOf(meta),
    action: 'application.user-integration.revoke',
    target: user.name,
    result: 'success',
    details: { clientId },
  });
}
