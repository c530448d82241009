import {
  type ArtifactAction,
  type ArtifactActions,
  PERMISSION_ACTIONS,
  type PermissionAction,
  type SetMeUp,
  type ZapAnswer,
} from '@granary/contracts';
import { InvalidError } from '../../platform/errors.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { expireCached } from './artifacts.queries.ts';
import { findStored, resolveTarget } from './artifacts.service.ts';
import { authorize, can, type RepositoriesContext, repositoryHidden } from './context.ts';
import type { RepoPath } from './repo-path.ts';

/**
 * The tree browser's effective permissions: what the authorizer allows the caller at a path, and the
 * spec 001 §3 catalogue actions that follow from it and from what the path is. Hiding is convenience:
 * every action's own route asks the authorizer again.
 */
export async function artifactActions(
  ctx: RepositoriesContext,
  principal: Principal | null,
  path: RepoPath,
): Promise<ArtifactActions> {
  const found = await findStored(ctx, principal, path);
  const repo = found.target.repo;
  const permissions = Object.fromEntries(
    await Promise.all(
      PERMISSION_ACTIONS.map(async (a) => [a, await can(ctx, principal, a, repo, path.path)] as const),
    ),
  ) as Record<PermissionAction, boolean>;
  const kind = found.artifact ? 'file' : path.isRoot ? 'repository' : 'folder';
  const stored = repo.rclass !== 'virtual';
  const deployable =
    !found.target.cache && (repo.rclass === 'local' || Boolean(repo.virtual?.defaultDeploymentRepo));
  const allowed: [ArtifactAction, boolean][] = [
    ['Download', kind === 'file' && permissions.read],
    ['Download Folder', kind !== 'file' && stored && permissions.read],
    ['Deploy', kind !== 'file' && deployable && permissions.write],
    ['Copy', kind !== 'repository' && stored && permissions.read],
    ['Move', kind !== 'repository' && stored && permissions.delete],
    ['Delete', kind !== 'repository' && stored && permissions.delete],
    ['Set Properties', kind === 'file' && stored && permissions.annotate],
    ['Refresh', true],
    ['Native Browser', kind !== 'file' && permissions.read],
    ['Zap Cache', repo.rclass === 'remote' && permissions.manage],
  ];
  return {
    repoKey: found.target.key,
    path: path.path,
    kind,
    rclass: repo.rclass,
    permissions,
    actions: allowed.filter(([, ok]) => ok).map(([a]) => a),
  };
}

/**
 * Zap cache (spec 001 §3): a remote repository forgets what it remembered of its upstream at or below a
 * path: remembered misses (so the next request asks the upstream again) and the fetch time of cached
 * files (marked stale). Needs `manage` on the repository.
 */
export async function zapCache(
  ctx: RepositoriesContext,
  principal: Principal | null,
  key: string,
  rawPath: string,
): Promise<ZapAnswer> {
  const target = await resolveTarget(ctx, key, principal);
  const repo = target.repo;
  const path = rawPath.replace(/^\/+|\/+$/g, '');
  if (path.split('/').includes('..')) throw new InvalidError('path: ".." is not allowed');
  await authorize(ctx, principal, 'manage', repo, path);
  if (repo.rclass !== 'remote') throw new InvalidError(`'${repo.key}' is not a remote repository`);
  const forgottenMisses = ctx.remote.forget(repo.id, path || undefined);
  const expired = await expireCached(ctx.db, repo.id, path);
  return { repo: repo.key, path, expired, forgottenMisses };
}

/** spec 000 §7 `GET ui/setMeUp`: the base URL, and with a repository its format's Set Me Up snippets. */
export async function setMeUp(
  ctx: RepositoriesContext,
  principal: Principal | null,
  baseUrl: string,
  repoKey: string | undefined,
): Promise<SetMeUp> {
  if (!repoKey) return { baseUrl };
  const target = await resolveTarget(ctx, repoKey, principal);
  const repo = target.repo;
  if (!(await can(ctx, principal, 'read', repo, ''))) throw repositoryHidden(principal, repoKey);
  const format = ctx.formats.get(repo.packageType);
  const repository = {
    key: target.key,
    rclass: repo.rclass,
    packageType: repo.packageType,
    url: repo.remote?.url,
  };
  return {
    baseUrl,
    repoKey: target.key,
    packageType: repo.packageType,
    repositoryUrl: `${baseUrl}/repository/${target.key}`,
    snippets: format?.snippets({ baseUrl, repository, username: principal?.name }) ?? [],
  };
}
