import type { PermissionAction } from '@granary/contracts';
import type { Logger } from 'pino';
import type { FormatRegistry } from '../../formats/registry.ts';
import type {
  FormatAdvisories,
  FormatSettings,
  PathsChange,
  RepositorySigning,
} from '../../formats/sdk/format.ts';
import type { BlobCache, BlobStore } from '../../platform/blobs/index.ts';
import type { Database, Db } from '../../platform/db/index.ts';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../../platform/errors.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import type { OutboundClient } from '../../platform/outbound/index.ts';
import { antMatch } from '../access/ant-pattern.ts';
import type { ClientCredentials } from '../access/client-credentials.service.ts';
import type { Authorizer } from '../access/index.ts';
import type { ArtifactExtensionPoint } from './artifact-extensions.ts';
import type { RemoteFetcher } from './remote.service.ts';
import type { RepoConfig } from './repositories.service.ts';
import type { StorageUsageSources } from './storage-usage.service.ts';

/** What the repositories services share. */
export interface RepositoriesContext {
  db: Db;
  blobs: BlobStore;
  blobCache: BlobCache;
  outbound: OutboundClient;
  formats: FormatRegistry;
  authorizer: Authorizer;
  log: Logger;
  remote: RemoteFetcher;
  /** Package clients' own login protocols. */
  credentials: ClientCredentials;
  /** `GRANARY_BASE_URL`, when set. */
  baseUrl?: string;
  /** Refuses a remote's upstream URL the outbound address rule forbids (when a repository is saved). */
  checkUpstreamAddress?: (url: string) => Promise<void>;
  /** Refuses a proxy key no proxy has (set by the proxies module): a remote names only a configured proxy. */
  checkProxyKey?: (key: string) => Promise<void>;
  /** Refuses a signing key name no key pair has (set by the distribution module): `primaryKeyPairRef`. */
  checkSigningKey?: (name: string) => Promise<void>;
  /** Repositories' OpenPGP signing (set by the distribution module, which keeps the keys; issue 23). */
  signing?: (repoKey: string, keyName: string | undefined) => RepositorySigning;
  /** What higher modules (the packages index) registered to hear of stored, removed and downloaded files. */
  artifactExtensions: ArtifactExtensionPoint;
  /** The database's cluster-wide named lock (formats' `RepositoryHandle.withLock`). */
  withLock: Database['withLock'];
  /** The server settings formats read (`RepositoryHandle.settings`). */
  formatSettings: FormatSettings;
  /**
   * After a commit, tells the repository's format of paths the services changed other than through
   * the format's own handle (`PackageFormat.afterChange`, format-context.ts): never fails the caller.
   */
  afterFormatChange(repo: RepoConfig, change: PathsChange): Promise<void>;
  /** The trash can (issue 21): the server's default retention and the clock expiries are computed on. */
  trash: { defaultRetentionDays: number; now: () => number };
  /** The advisory database's answers for formats (set by the scanning module, issue 16). */
  advisories?: FormatAdvisories;
  /** What the storage summary counts beyond artifacts (issue 21): trash, archive, reclaimable; owners set theirs at boot. */
  storageUsage?: StorageUsageSources;
}

/**
 * How deep virtual repositories are followed into nested virtual members (resolution, a format's
 * `members()`, package filters): the one limit, so every reader sees the same members.
 */
export const MAX_VIRTUAL_DEPTH = 5;

/** The caller's name as recorded on artifacts and events. */
export function actorName(principal: Principal | null): string {
  return principal?.name ?? 'anonymous';
}

/**
 * What a caller hears of a repository that does not exist, or that it may not see: the same answer
 * either way, so a key's existence never leaks (anonymous: 401 with the sign-in challenge; signed in: 404).
 */
export function repositoryHidden(principal: Principal | null, key: string): Error {
  return principal ? new NotFoundError(`Repository '${key}' not found`) : new UnauthorizedError();
}

/**
 * The caller sees the repository: it may read or deploy at its root or at the path asked. A user
 * who sees it and lacks the action gets 403; one who does not see it hears `repositoryHidden`.
 */
async function sees(ctx: RepositoriesContext, principal: Principal, repo: RepoConfig, path: string) {
  for (const action of ['read', 'write'] as const)
    for (const at of path === '' ? [''] : ['', path])
      if (await can(ctx, principal, action, repo, at)) return true;
  return false;
}

/** The one permission question, asked on the canonical path; 401 for anonymous callers, 403 (or 404, see `sees`) for users. */
export async function authorize(
  ctx: RepositoriesContext,
  principal: Principal | null,
  action: PermissionAction,
  repo: RepoConfig,
  path: string,
): Promise<void> {
  if (await can(ctx, principal, action, repo, path)) return;
  if (!principal) throw new UnauthorizedError();
  if (!(await sees(ctx, principal, repo, path))) throw repositoryHidden(principal, repo.key);
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

/**
 * The repository's include/exclude patterns admit this path. Patterns are matched as users write
 * them: against the stored path and, where the repository's format keeps a package's files outside
 * its name, against the name's path too (npm `.npm/@acme/x/…` is also `@acme/x/…`, so `@acme/**`
 * covers the whole package, as a pattern with a leading `**` did).
 */
export function admitsPath(repo: RepoConfig, path: string, formats?: FormatRegistry): boolean {
  const alias = formats?.get(repo.packageType)?.patternPath?.(path);
  const paths = alias && alias !== path ? [path, alias] : [path];
  const matches = (p: string) => paths.some((candidate) => antMatch(p, candidate));
  const includes = splitPatterns(repo.includesPattern);
  if (includes.length > 0 && !includes.some(matches)) return false;
  return !splitPatterns(repo.excludesPattern).some(matches);
}
