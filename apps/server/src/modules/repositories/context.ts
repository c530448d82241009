import type { PermissionAction } from '@granary/contracts';
import type { Logger } from 'pino';
import type { FormatRegistry } from '../../formats/registry.ts';
import type { BlobStore } from '../../platform/blobs/index.ts';
import type { Db } from '../../platform/db/index.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { ForbiddenError, UnauthorizedError } from '../../platform/http/errors.ts';
import type { OutboundClient } from '../../platform/outbound/index.ts';
import { antMatch } from '../access/ant-pattern.ts';
import type { Authorizer } from '../access/index.ts';
import type { RemoteFetcher } from './remote.service.ts';
import type { RepoConfig } from './repositories.service.ts';

/** What the repositories services share. */
export interface RepositoriesContext {
  db: Db;
  blobs: BlobStore;
  outbound: OutboundClient;
  formats: FormatRegistry;
  authorizer: Authorizer;
  log: Logger;
  remote: RemoteFetcher;
  /** `GRANARY_BASE_URL`, when set. */
  baseUrl?: string;
}

/** The caller's name as recorded on artifacts and events. */
export function actorName(principal: Principal | null): string {
  return principal?.name ?? 'anonymous';
}

/** The one permission question, asked on the canonical path; 401 for anonymous callers, 403 for users. */
export async function authorize(
  ctx: RepositoriesContext,
  principal: Principal | null,
  action: PermissionAction,
  repo: RepoConfig,
  path: string,
): Promise<void> {
  if (await can(ctx, principal, action, repo, path)) return;
  if (!principal) throw new UnauthorizedError();
  throw new ForbiddenError(`You do not have ${action} permission on ${repo.key}/${path}`);
}

export function can(
  ctx: RepositoriesContext,
  principal: Principal | null,
  action: PermissionAction,
  repo: RepoConfig,
  path: string,
): Promise<boolean> {
  return ctx.authorizer.can(principal, action, { key: repo.key, rclass: repo.rclass, path });
}

const splitPatterns = (value: string) =>
  value
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');

/** The repository's include/exclude patterns admit this path. */
export function admitsPath(repo: RepoConfig, path: string): boolean {
  const includes = splitPatterns(repo.includesPattern);
  if (includes.length > 0 && !includes.some((p) => antMatch(p, path))) return false;
  return !splitPatterns(repo.excludesPattern).some((p) => antMatch(p, path));
}
