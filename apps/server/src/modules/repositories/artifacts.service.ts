import type { Readable } from 'node:stream';
import type { FormatEvent, PackageMetadata } from '../../formats/sdk/format.ts';
import {
  type BlobHold,
  ChecksumMismatchError,
  deleteBlobHolds,
  type ExpectedChecksums,
} from '../../platform/blobs/index.ts';
import {
  ConflictError,
  DomainError,
  ForbiddenError,
  InvalidError,
  NotFoundError,
  NotSupportedError,
} from '../../platform/errors.ts';
import { type DomainEvent, publish } from '../../platform/events/index.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { httpStatusOf } from '../../platform/http/error-status.ts';
import { artifactEvent, formatEvents, propertyEvents } from './artifact-events.ts';
import {
  type ArtifactInsert,
  type ArtifactRow,
  changeArtifacts,
  deleteArtifactsAt,
  findArtifact,
  findArtifactForRead,
  findArtifacts,
  findByChecksum,
  folderExists,
  listArtifactsBelow,
  pathConflicts,
  setArtifactProperties,
  upsertArtifact,
  upsertArtifacts,
} from './artifacts.queries.ts';
import {
  actorName,
  admitsPath,
  authorize,
  can,
  MAX_VIRTUAL_DEPTH,
  type RepositoriesContext,
  repositoryHidden,
} from './context.ts';
import {
  applyTransfers,
  checkTransferFile,
  checkTransferRepositories,
  type Refuse,
  type TransferStep,
} from './file-transfer.ts';
import { extractFor, notifyRemoved, notifyStored } from './indexing.ts';
import { isInternalPath, reservedPath } from './internal-paths.ts';
import { mimeTypeOf } from './mime.ts';
import { enforceQuota, logQuotaWarnings, type QuotaWarning } from './quota.service.ts';
import { isStale } from './remote.service.ts';
import type { RepoPath } from './repo-path.ts';
import { cacheBaseKey, findRepository, type RepoConfig } from './repositories.service.ts';
import { moveToTrash } from './trash.service.ts';

export type Properties = Record<string, string[]>;

/** A repository as a request names it: `{key}-cache` is the cache of the remote repository `key`. */
export interface Target {
  repo: RepoConfig;
  /** The request named the remote's cache (`{key}-cache`): only cached files, no upstream. */
  cache: boolean;
  /** The key the request used (for URIs). */
  key: string;
}

/** The row a deploy or link writes for `blob` at `path`. */
function artifactInsert(
  repositoryId: string,
  path: RepoPath,
  blob: { sha256: string; sha1: string; md5: string; size: number },
  properties: ArtifactInsert['properties'],
  by: string,
): ArtifactInsert {
  return {
    repositoryId,
    path: path.path,
    size: blob.size,
    sha256: blob.sha256,
    sha1: blob.sha1,
    md5: blob.md5,
    mimeType: mimeTypeOf(path.name),
    properties,
    createdBy: by,
    modifiedBy: by,
  };
}

/**
 * The repository a request names. One that does not exist answers as one the caller may not see
 * (`repositoryHidden`): 401 for anonymous callers, 404 for signed-in ones.
 */
export async function resolveTarget(
  ctx: RepositoriesContext,
  key: string,
  principal: Principal | null,
): Promise<Target> {
  const repo = await findRepository(ctx.db, key);
  if (repo) return { repo, cache: false, key: repo.key };
  const base = cacheBaseKey(key);
  if (base) {
    const remote = await findRepository(ctx.db, base);
    if (remote?.rclass === 'remote') return { repo: remote, cache: true, key: `${remote.key}-cache` };
  }
  throw repositoryHidden(principal, key);
}

export interface DeployInput {
  expected: ExpectedChecksums;
  /** `X-Checksum-Deploy: true`: store by a known checksum, no bytes sent. */
  byChecksum: boolean;
  properties: Properties;
  /** Refuse (409) when a file is already stored at the path: published versions never change. */
  noOverwrite?: boolean;
  /**
   * An index document the server regenerates from stored files (maven-metadata.xml): the caller's
   * write permission suffices to replace it, no delete permission (what it replaces is the server's).
   */
  regenerated?: boolean;
  /** Package metadata the caller already parsed; otherwise the repository's format extracts it. */
  metadata?: PackageMetadata | null;
  /** Bytes already in the blob store, hashed by the core (a format's `spool`): stored without reading `source`. */
  stored?: { sha256: string; sha1: string; md5: string; size: number };
  /** The virtual repository the request came through, when the caller already resolved it (a format's deploy context). */
  via?: string;
  /** A format's own domain events, published with the file (`FormatEvent`). */
  events?: readonly FormatEvent[];
  /** A file the format derives (`EventOptions.derived`): no `artifact.deployed` of its own. */
  derived?: boolean;
}

/** Where a PUT lands: the local repository itself, or a virtual repository's default deployment repository. */
async function deployTarget(ctx: RepositoriesContext, target: Target): Promise<RepoConfig> {
  const { repo } = target;
  if (target.cache || repo.rclass === 'remote')
    throw new NotSupportedError(`Remote repository '${target.key}' does not accept deploys`);
  if (repo.rclass === 'local') return repo;
  const deployKey = repo.virtual?.defaultDeploymentRepo;
  if (!deployKey)
    throw new InvalidError(`Virtual repository '${repo.key}' has no default deployment repository`);
  const local = await findRepository(ctx.db, deployKey);
  if (!local) throw new InvalidError(`Default deployment repository '${deployKey}' no longer exists`);
  return local;
}

/**
 * Deploys a file. The artifact row appears only once its blob is stored and verified against the
 * client's checksums; concurrent deploys to one path each store a whole blob and the last row wins.
 */
export async function deployArtifact(
  ctx: RepositoriesContext,
  principal: Principal | null,
  path: RepoPath,
  input: DeployInput,
  source: Readable,
): Promise<{ repo: RepoConfig; artifact: ArtifactRow; created: boolean }> {
  const target = await resolveTarget(ctx, path.repoKey, principal);
  const repo = await deployTarget(ctx, target);
  if (path.isRoot || path.folderHint) throw new InvalidError('A file path is required to deploy');
  if (target.repo !== repo && !admitsPath(target.repo, path.path, ctx.formats))
    throw new ForbiddenError(
      `'${path.path}' is not accepted by repository '${target.repo.key}' (include/exclude patterns)`,
    );
  if (!admitsPath(repo, path.path, ctx.formats))
    throw new ForbiddenError(
      `'${path.path}' is not accepted by repository '${repo.key}' (include/exclude patterns)`,
    );
  const existing = await findArtifact(ctx.db, repo.id, path.path);
  await authorize(ctx, principal, 'write', repo, path.path);
  // Writing what is already stored changes nothing (issue 12 §13): a client's retry of a release, a
  // checksum deploy of the same content. So it needs no permission to replace and is not refused as
  // an overwrite; only different content is.
  const immutable = !!existing && !!input.noOverwrite;
  const mayReplace =
    !!existing &&
    !immutable &&
    (!!input.regenerated || (await can(ctx, principal, 'delete', repo, path.path)));
  const refuseReplacing = async (): Promise<never> => {
    source.resume();
    if (immutable)
      throw new ConflictError(
        `'${path.path}' already exists in repository '${repo.key}' and cannot be overwritten`,
        'ALREADY_EXISTS',
      );
    await authorize(ctx, principal, 'delete', repo, path.path);
    throw new ForbiddenError(`You do not have delete permission on ${repo.key}/${path.path}`);
  };
  /** The stored file when this deploy would store the same thing again (same bytes, no other properties). */
  const unchanged = (row: ArtifactRow | undefined, sha256: string) =>
    row && row.sha256 === sha256 && sameProperties(row.properties as Properties, input.properties)
      ? row
      : undefined;
  if (existing && !mayReplace) {
    // Only the same content may come: refuse at once what the client announces otherwise.
    if (
      differs(input.expected, existing, !input.byChecksum && !input.stored) ||
      !sameProperties(existing.properties as Properties, input.properties)
    )
      await refuseReplacing();
  }
  // A file at the path already answers both: no folder is there, and no file above it.
  if (!existing) await refuseConflicts(ctx, repo, [path.path]);

  let blob: { sha256: string; sha1: string; md5: string; size: number };
  /** issue 21: the blob store's hold on the bytes put, released once the row holds them */
  let hold: BlobHold | undefined;
  if (input.stored) {
    source.resume();
    const { sha256, size } = input.expected;
    if (
      (sha256 && sha256.toLowerCase() !== input.stored.sha256) ||
      (size !== undefined && size !== input.stored.size)
    )
      throw new ConflictError(
        `Checksum mismatch: the client announced sha256 ${sha256 ?? '(none)'}, ${size ?? '?'} bytes; the content is sha256 ${input.stored.sha256}, ${input.stored.size} bytes; nothing was stored`,
        'CHECKSUM_MISMATCH',
      );
    if (!(await ctx.blobs.stat(input.stored.sha256)))
      throw new NotFoundError('The uploaded bytes are gone: upload them again');
    blob = input.stored;
  } else if (input.byChecksum) {
    source.resume();
    const { sha256, sha1, md5 } = input.expected;
    if (!sha256 && !sha1 && !md5)
      throw new InvalidError('Deploy by checksum needs an X-Checksum-Sha256 or -Sha1 header');
    const known = await findByChecksum(ctx.db, { sha256, sha1, md5 });
    if (!known || !(await ctx.blobs.stat(known.sha256)))
      throw new NotFoundError('No stored content has this checksum: deploy the bytes instead');
    if ((sha256 && sha256.toLowerCase() !== known.sha256) || (sha1 && sha1.toLowerCase() !== known.sha1))
      throw new NotFoundError('No stored content has these checksums: deploy the bytes instead');
    blob = known;
  } else {
    // Where only the stored content may come, the bytes are checked against it as they stream:
    // different bytes store nothing.
    const expected =
      existing && !mayReplace
        ? { ...input.expected, sha256: existing.sha256, size: existing.size }
        : input.expected;
    try {
      const put = await ctx.blobs.put(source, expected);
      blob = put;
      hold = put.hold;
    } catch (err) {
      if (err instanceof ChecksumMismatchError) {
        if (existing && !mayReplace) await refuseReplacing();
        throw new ConflictError(
          err.checksum === 'size'
            ? `The upload was ${err.actual} bytes where ${err.expected} were announced: nothing was stored`
            : `Checksum mismatch: the client sent ${err.checksum} ${err.expected} but the content's is ${err.actual}; nothing was stored`,
          'CHECKSUM_MISMATCH',
        );
      }
      throw err;
    }
  }
  const same = unchanged(existing, blob.sha256);
  if (same) {
    await hold?.release();
    return { repo, artifact: same, created: false };
  }
  if (existing && !mayReplace) await refuseReplacing();
  const by = actorName(principal);
  // issue 14 §Events: a deploy to a virtual repository lands in its default deployment repository;
  // its event names both.
  const via = target.repo !== repo ? target.repo.key : input.via;
  const extra = formatEvents(input.events, repo.key, { by, via });
  const meta = input.metadata !== undefined ? input.metadata : await extractFor(ctx, repo, path.path, blob);
  let quotaWarnings: QuotaWarning[] = [];
  const outcome = await changeArtifacts(ctx.db, async (tx) => {
    if (input.noOverwrite) {
      // A concurrent deploy got there first: the same content is its twin's success, other content a conflict.
      const now = await findArtifact(tx, repo.id, path.path);
      const twin = unchanged(now, blob.sha256);
      if (twin) return { row: twin, changed: false };
      if (now)
        throw new ConflictError(
          `'${path.path}' already exists in repository '${repo.key}' and cannot be overwritten`,
          'ALREADY_EXISTS',
        );
    }
    // issue 21: over a quota the row is never written; the stored blob is left unreferenced for the GC.
    quotaWarnings = await enforceQuota(tx, repo, blob.size - (existing?.size ?? 0));
    if (existing) await notifyRemoved(ctx, tx, repo.id, [path.path]);
    await notifyStored(ctx, tx, repo, path.path, blob, meta);
    const row = await upsertArtifact(tx, artifactInsert(repo.id, path, blob, input.properties, by));
    await publish(
      tx,
      ...(announced(ctx, repo, path.path, input.derived)
        ? [
            artifactEvent(
              'deployed',
              { repoKey: repo.key, path: path.path, sha256: blob.sha256, size: blob.size },
              { by, via },
            ),
          ]
        : []),
      ...extra,
    );
    return { row, changed: true };
  });
  logQuotaWarnings(ctx, quotaWarnings);
  await hold?.release();
  return { repo, artifact: outcome.row, created: !existing && outcome.changed };
}

/**
 * Whether a stored or removed file is announced as an `artifact.*` event (issue 14): not a format's
 * internal record (`internalPaths`: npm's `.npm/**`) nor a file it derives from another (`derived`),
 * so one `npm publish` or `twine upload` is one event, naming the package file.
 */
export function announced(
  ctx: Pick<RepositoriesContext, 'formats'>,
  repo: RepoConfig,
  path: string,
  derived?: boolean,
): boolean {
  return !derived && !isInternalPath(ctx, repo.packageType, path);
}

/** A new file cannot go where a folder is or below a file (409, naming which). */
async function refuseConflicts(ctx: RepositoriesContext, repo: RepoConfig, paths: string[]): Promise<void> {
  const conflicts = await pathConflicts(ctx.db, repo.id, paths);
  for (const path of paths) {
    const conflict = conflicts.get(path)!;
    if (conflict.folder) throw new ConflictError(`'${path}' is a folder in repository '${repo.key}'`);
    if (conflict.fileAbove)
      throw new ConflictError(`'${conflict.fileAbove}' is a file in repository '${repo.key}'`);
  }
}

export interface LinkInput {
  path: RepoPath;
  /** the content: a stored file's blob (no bytes read) */
  stored: { sha256: string; sha1: string; md5: string; size: number };
  properties: Properties;
  /** package metadata the format parsed (null: none); undefined: the format extracts it */
  metadata?: PackageMetadata | null;
  /** the writer's hold on the content (a spool's): released in the transaction that writes the row */
  hold?: BlobHold;
}

/**
 * Stores several files whose bytes are already in the blob store (an OCI tag's manifest and layers,
 * copies of stored files), all in one repository and one transaction: the checks of `deployArtifact`
 * for each path, one commit and one batch of events for all (a tag pushed cost a transaction per
 * file, issue 12 §14). A path that already holds the same content and properties stays as it is;
 * replacing other content needs delete permission.
 */
export async function linkArtifacts(
  ctx: RepositoriesContext,
  principal: Principal | null,
  repoKey: string,
  items: LinkInput[],
  /**
   * `via`: the virtual repository the request came through; `events`: a format's own, published with
   * the files; `noOverwrite`: other content at a path is refused (409 ALREADY_EXISTS), nothing stored
   */
  opts: { via?: string; events?: readonly FormatEvent[]; derived?: boolean; noOverwrite?: boolean } = {},
): Promise<{ repo: RepoConfig; artifacts: ArtifactRow[] }> {
  const target = await resolveTarget(ctx, repoKey, principal);
  const repo = await deployTarget(ctx, target);
  const by = actorName(principal);
  const via = target.repo !== repo ? target.repo.key : opts.via;
  const extra = formatEvents(opts.events, repo.key, { by, via });
  for (const { path } of items) {
    if (path.isRoot || path.folderHint) throw new InvalidError('A file path is required to deploy');
    for (const r of target.repo === repo ? [repo] : [target.repo, repo])
      if (!admitsPath(r, path.path, ctx.formats))
        throw new ForbiddenError(
          `'${path.path}' is not accepted by repository '${r.key}' (include/exclude patterns)`,
        );
    await authorize(ctx, principal, 'write', repo, path.path);
  }
  // With noOverwrite the transaction reads the paths anyway (a concurrent writer's twin or conflict),
  // so no read before it (issue 24: a statement fewer per publish): a file at a path is never replaced.
  const existing = new Map(
    opts.noOverwrite
      ? []
      : (
          await findArtifacts(
            ctx.db,
            repo.id,
            items.map((i) => i.path.path),
          )
        ).map((r) => [r.path, r]),
  );
  const same = (row: ArtifactRow | undefined, item: LinkInput) =>
    !!row &&
    row.sha256 === item.stored.sha256 &&
    sameProperties(row.properties as Properties, item.properties);
  const alreadyExists = (path: string) =>
    new ConflictError(
      `'${path}' already exists in repository '${repo.key}' and cannot be overwritten`,
      'ALREADY_EXISTS',
    );
  let changed: LinkInput[] = [];
  for (const item of items) {
    const row = existing.get(item.path.path);
    if (same(row, item)) continue;
    if (row && opts.noOverwrite) throw alreadyExists(item.path.path);
    if (row) await authorize(ctx, principal, 'delete', repo, item.path.path);
    if (!(await ctx.blobs.stat(item.stored.sha256)))
      throw new NotFoundError('The stored content is gone: deploy the bytes instead');
    changed.push(item);
  }
  await refuseConflicts(
    ctx,
    repo,
    changed.filter((i) => !existing.has(i.path.path)).map((i) => i.path.path),
  );
  const metas = new Map<string, PackageMetadata | null>();
  for (const item of changed)
    metas.set(
      item.path.path,
      item.metadata !== undefined ? item.metadata : await extractFor(ctx, repo, item.path.path, item.stored),
    );
  const stored = new Map<string, ArtifactRow>();
  let quotaWarnings: QuotaWarning[] = [];
  let released: BlobHold[] = [];
  if (changed.length > 0)
    await changeArtifacts(ctx.db, async (tx) => {
      if (opts.noOverwrite) {
        // A concurrent deploy got there first: the same content is its twin's success, other content a conflict.
        const now = new Map(
          (
            await findArtifacts(
              tx,
              repo.id,
              changed.map((i) => i.path.path),
            )
          ).map((r) => [r.path, r]),
        );
        for (const item of changed) {
          const row = now.get(item.path.path);
          if (row && !same(row, item)) throw alreadyExists(item.path.path);
          if (row) stored.set(item.path.path, row);
        }
        changed = changed.filter((i) => !now.has(i.path.path));
      }
      quotaWarnings = await enforceQuota(
        tx,
        repo,
        changed.reduce((sum, i) => sum + i.stored.size - (existing.get(i.path.path)?.size ?? 0), 0),
      );
      const replaced = changed.filter((i) => existing.has(i.path.path)).map((i) => i.path.path);
      if (replaced.length > 0) await notifyRemoved(ctx, tx, repo.id, replaced);
      for (const { path, stored: blob } of changed)
        await notifyStored(ctx, tx, repo, path.path, blob, metas.get(path.path) ?? null);
      // One statement for all rows (issue 24).
      const written = await upsertArtifacts(
        tx,
        changed.map(({ path, stored: blob, properties }) =>
          artifactInsert(repo.id, path, blob, properties, by),
        ),
      );
      for (const row of written) stored.set(row.path, row);
      // The writers' holds go in the same commit as their rows (issue 24: a statement and a commit fewer per file).
      const holds = changed.flatMap((i) => (i.hold ? [i.hold] : []));
      await deleteBlobHolds(tx, holds);
      released = holds;
      await publish(
        tx,
        ...changed
          .filter(({ path }) => announced(ctx, repo, path.path, opts.derived))
          .map(({ path, stored: blob }) =>
            artifactEvent(
              'deployed',
              { repoKey: repo.key, path: path.path, sha256: blob.sha256, size: blob.size },
              { by, via },
            ),
          ),
        ...extra,
      );
    });
  for (const hold of released) hold.releasedElsewhere();
  logQuotaWarnings(ctx, quotaWarnings);
  return {
    repo,
    artifacts: items.map((i) => stored.get(i.path.path) ?? existing.get(i.path.path)!),
  };
}

/** The client announced checksums (or a length) that the stored file `row` does not have. */
function differs(expected: ExpectedChecksums, row: ArtifactRow, checkSize: boolean): boolean {
  for (const kind of ['sha256', 'sha1', 'md5'] as const) {
    const want = expected[kind];
    if (want && want.toLowerCase() !== row[kind]) return true;
  }
  return checkSize && expected.size !== undefined && expected.size !== row.size;
}

/** A deploy's properties leave the stored ones as they are: none given, or the same. */
function sameProperties(stored: Properties | null | undefined, given: Properties): boolean {
  const keys = Object.keys(given);
  if (keys.length === 0) return true;
  const current = stored ?? {};
  if (Object.keys(current).length !== keys.length) return false;
  return keys.every((k) => {
    const a = current[k];
    const b = given[k]!;
    return Array.isArray(a) && a.length === b.length && a.every((v, i) => v === b[i]);
  });
}

export type Resolved =
  | { kind: 'file'; repo: RepoConfig; key: string; artifact: ArtifactRow }
  | { kind: 'folder'; repo: RepoConfig; key: string; path: string; members: RepoConfig[] }
  | {
      kind: 'stream';
      repo: RepoConfig;
      key: string;
      stream: Readable;
      size?: number;
      done: Promise<ArtifactRow | null>;
    };

function metadataPaths(ctx: RepositoriesContext, repo: RepoConfig) {
  const format = ctx.formats.get(repo.packageType);
  return format?.isMetadataPath ? (path: string) => format.isMetadataPath!(path) : undefined;
}

/**
 * Finds what a read names: a stored file, a folder, or (remote miss) the upstream's answer being
 * stored while it streams. Checks read permission on the canonical path of the repository asked
 * and, through a virtual repository, of each member.
 */
export async function resolveForRead(
  ctx: RepositoriesContext,
  principal: Principal | null,
  path: RepoPath,
  /** `via`: the virtual repository the request came through (a format's member handle), for `artifact.cached` */
  opts: { stream?: boolean; via?: string } = {},
): Promise<Resolved> {
  const target = await resolveTarget(ctx, path.repoKey, principal);
  await authorize(ctx, principal, 'read', target.repo, path.path);
  const notFound = () => new NotFoundError(`'${path.path}' not found in repository '${target.key}'`);
  if (!path.isRoot && !admitsPath(target.repo, path.path, ctx.formats)) throw notFound();
  const found = await resolveIn(ctx, principal, target.repo, target.cache, path, opts, 0);
  if (!found) throw notFound();
  return { ...found, key: target.key } as Resolved;
}

interface ResolveOptions {
  stream?: boolean;
  /** The (outermost) virtual repository the request came through: a remote member's `artifact.cached` names it. */
  via?: string;
  /** An enclosing virtual repository found the path in a local member: remote members stay out. */
  localOnly?: boolean;
  /**
   * An enclosing virtual repository's local members hold the path or its package (issue 12 §7):
   * remote members with namespace confusion protection (the default) are not asked.
   */
  claimed?: boolean;
}

/** A remote that is never asked for a package local members of the virtual repository hold. */
const protects = (repo: RepoConfig) =>
  repo.rclass === 'remote' && (repo.remote?.namespaceConfusionProtection ?? true);

/**
 * A local repository reached through `repo` (itself, or a virtual repository's members transitively)
 * holds a file at `path`, whatever the caller may read and whatever the members' patterns: the name
 * is taken locally, so no upstream may answer for it.
 */
async function localHolds(
  ctx: RepositoriesContext,
  repo: RepoConfig,
  path: string,
  depth: number,
  /** a folder (a package's: `packageFolder`) whose existence counts as holding */
  folder?: string | null,
): Promise<boolean> {
  if (repo.rclass === 'local')
    return folder
      ? await folderExists(ctx.db, repo.id, folder)
      : !!(await findArtifactForRead(ctx.db, repo.id, path));
  if (repo.rclass !== 'virtual' || depth >= MAX_VIRTUAL_DEPTH) return false;
  for (const name of repo.virtual?.repositories ?? []) {
    const member = await findRepository(ctx.db, name);
    if (member && (await localHolds(ctx, member, path, depth + 1, folder))) return true;
  }
  return false;
}

async function resolveIn(
  ctx: RepositoriesContext,
  principal: Principal | null,
  repo: RepoConfig,
  cacheOnly: boolean,
  path: RepoPath,
  opts: ResolveOptions,
  depth: number,
): Promise<Resolved | null> {
  const key = repo.key;
  if (repo.rclass === 'virtual') {
    if (depth >= MAX_VIRTUAL_DEPTH) return null;
    const members: RepoConfig[] = [];
    for (const name of repo.virtual?.repositories ?? []) {
      const member = await findRepository(ctx.db, name);
      if (!member || !(await can(ctx, principal, 'read', member, path.path))) continue;
      if (!path.isRoot && !admitsPath(member, path.path, ctx.formats)) continue;
      members.push(member);
    }
    // Dependency-confusion protection (unless the virtual repository allows remote overrides): a path
    // a local member holds is never resolved from a remote member, and a remote with namespace
    // confusion protection (the default) is not even asked for anything of a package a local member
    // holds (another version of an npm name, a PyPI project, a Maven groupId:artifactId).
    let localOnly = opts.localOnly ?? false;
    let claimed = opts.claimed ?? false;
    if (
      !repo.virtual?.allowRemoteOverride &&
      !path.isRoot &&
      !path.folderHint &&
      !localOnly &&
      members.some((m) => m.rclass !== 'local')
    ) {
      localOnly = await localHolds(ctx, repo, path.path, depth);
      if (!localOnly && !claimed) {
        const folder = ctx.formats.get(repo.packageType)?.packageFolder?.(path.path);
        claimed = !!folder && (await localHolds(ctx, repo, path.path, depth, folder));
      }
    }
    const memberOpts = { ...opts, localOnly, claimed, via: opts.via ?? repo.key };
    // Files first, in member order; a failing upstream falls through to the next member.
    if (!path.folderHint)
      for (const member of members) {
        if (member.rclass === 'remote' && (localOnly || (claimed && protects(member)))) continue;
        try {
          const found = await resolveIn(ctx, principal, member, false, path, memberOpts, depth + 1);
          if (found && found.kind !== 'folder') return found;
        } catch (err) {
          if (!(err instanceof DomainError) || httpStatusOf(err) < 500) throw err;
        }
      }
    if (path.isRoot) return { kind: 'folder', repo, key, path: '', members };
    for (const member of members)
      if (member.rclass !== 'virtual' && (await folderExists(ctx.db, member.id, path.path)))
        return { kind: 'folder', repo, key, path: path.path, members };
    return null;
  }
  if (repo.rclass === 'remote' && (opts.localOnly || (opts.claimed && protects(repo)))) return null;
  if (!path.isRoot) {
    const artifact = await findArtifactForRead(ctx.db, repo.id, path.path);
    if (
      artifact &&
      repo.rclass === 'remote' &&
      !cacheOnly &&
      isStale(repo, artifact, Date.now(), metadataPaths(ctx, repo))
    )
      return { kind: 'file', repo, key, artifact: await ctx.remote.revalidate(repo, artifact, opts.via) };
    if (artifact) return { kind: 'file', repo, key, artifact };
  }
  if (path.isRoot || (await folderExists(ctx.db, repo.id, path.path)))
    return { kind: 'folder', repo, key, path: path.path, members: [repo] };
  if (repo.rclass === 'remote' && !cacheOnly && !path.folderHint) {
    const fetched = await ctx.remote.fetch(repo, path.path, opts.stream ?? false, opts.via);
    if (!fetched) return null;
    if ('artifact' in fetched) return { kind: 'file', repo, key, artifact: fetched.artifact };
    return { kind: 'stream', repo, key, ...fetched };
  }
  // issue 21: an archived file answers with the archive's message, not a plain not-found
  if (repo.rclass === 'local' && !path.folderHint) await ctx.artifactExtensions.missing(repo.id, path.path);
  return null;
}

/** Deletes a file or a folder (everything below it). */
export async function deleteArtifacts(
  ctx: RepositoriesContext,
  principal: Principal | null,
  path: RepoPath,
  /**
   * `byFormat`: the repository's format deletes through its own handle (no `afterChange` back to it);
   * `via`: the virtual repository the format's handle came through; `events`: the format's own, published
   * when something was deleted.
   */
  opts: {
    byFormat?: boolean;
    via?: string;
    events?: readonly FormatEvent[];
    derived?: boolean;
    /** issue 21: not to the trash (a format's own housekeeping: OCI GC, a failed publish undone). */
    permanent?: boolean;
  } = {},
): Promise<number> {
  const target = await resolveTarget(ctx, path.repoKey, principal);
  const repo = target.repo;
  if (repo.rclass === 'virtual') throw new NotSupportedError('Delete from the member repository');
  await authorize(ctx, principal, 'delete', repo, path.path);
  const by = actorName(principal);
  const extra = formatEvents(opts.events, repo.key, { by, via: opts.via });
  const deleted = await changeArtifacts(ctx.db, async (tx) => {
    const rows = await deleteArtifactsAt(tx, repo.id, path.path);
    // issue 21: what a user deleted (what is announced) goes to the repository's trash, in this transaction.
    if (!opts.permanent && !target.cache)
      await moveToTrash(
        ctx,
        tx,
        repo,
        rows.filter((r) => announced(ctx, repo, r.path, opts.derived)),
        principal,
      );
    await notifyRemoved(
      ctx,
      tx,
      repo.id,
      rows.map((r) => r.path),
    );
    if (rows.length > 0)
      await publish(
        tx,
        ...rows
          .filter((r) => announced(ctx, repo, r.path, opts.derived))
          .map((r) =>
            artifactEvent(
              'deleted',
              { repoKey: repo.key, path: r.path, sha256: r.sha256, size: r.size },
              { by, via: opts.via },
            ),
          ),
        ...extra,
      );
    return rows;
  });
  if (deleted.length === 0) throw new NotFoundError(`'${path.path}' not found in repository '${target.key}'`);
  if (!opts.byFormat) await ctx.afterFormatChange(repo, { deleted: [path.path] });
  return deleted.length;
}

/** A local (or cache) artifact for the storage API, after a read permission check. */
export async function findStored(
  ctx: RepositoriesContext,
  principal: Principal | null,
  path: RepoPath,
  action: 'read' | 'annotate' = 'read',
): Promise<{ target: Target; artifact?: ArtifactRow; folder: boolean }> {
  const target = await resolveTarget(ctx, path.repoKey, principal);
  await authorize(ctx, principal, action, target.repo, path.path);
  // issue 12 §20: what the format keeps for itself is not there for the generic APIs
  if (isInternalPath(ctx, target.repo.packageType, path.path))
    throw new NotFoundError(`'${path.path}' not found in repository '${target.key}'`);
  if (target.repo.rclass === 'virtual') {
    const resolved = await resolveForRead(ctx, principal, path);
    if (resolved.kind === 'file')
      return { target: { ...target, repo: resolved.repo }, artifact: resolved.artifact, folder: false };
    if (resolved.kind === 'folder') return { target, folder: true };
    resolved.stream.destroy();
    throw new NotFoundError(`'${path.path}' not found in repository '${target.key}'`);
  }
  if (!path.isRoot) {
    const artifact = await findArtifact(ctx.db, target.repo.id, path.path);
    if (artifact) return { target, artifact, folder: false };
  }
  if (path.isRoot || (await folderExists(ctx.db, target.repo.id, path.path))) return { target, folder: true };
  throw new NotFoundError(`'${path.path}' not found in repository '${target.key}'`);
}

/** Parses `k=v1,v2;k2=v3` (the `properties` query of the storage API). */
export function parsePropertiesParam(value: string): Properties {
  const out: Properties = {};
  for (const pair of value.split(/[;|]/)) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const key = (eq < 0 ? pair : pair.slice(0, eq)).trim();
    if (!key || key.length > 255) throw new InvalidError(`Invalid property "${pair}"`);
    out[key] = [...(out[key] ?? []), ...(eq < 0 ? [] : pair.slice(eq + 1).split(','))];
  }
  return out;
}

/** Sets (merge) or removes properties on a file, or on every file of a folder. */
export async function changeProperties(
  ctx: RepositoriesContext,
  principal: Principal | null,
  path: RepoPath,
  change: { set?: Properties; remove?: string[] },
): Promise<void> {
  const target = await resolveTarget(ctx, path.repoKey, principal);
  const repo = target.repo;
  if (repo.rclass === 'virtual') throw new InvalidError('Properties are set on the member repository');
  await authorize(ctx, principal, 'annotate', repo, path.path);
  const by = actorName(principal);
  await changeArtifacts(ctx.db, async (tx) => {
    const single = path.isRoot ? undefined : await findArtifact(tx, repo.id, path.path);
    const rows = single ? [single] : await listArtifactsBelow(tx, repo.id, path.path);
    if (rows.length === 0) throw new NotFoundError(`'${path.path}' not found in repository '${target.key}'`);
    const events: DomainEvent[] = [];
    for (const row of rows) {
      const before = (row.properties ?? {}) as Properties;
      const props: Properties = { ...before };
      for (const [k, v] of Object.entries(change.set ?? {})) props[k] = v;
      for (const k of change.remove ?? []) delete props[k];
      await setArtifactProperties(tx, row.id, props, by);
      // issue 14 §Events: one event per key set (to a new value) or removed, on each file.
      events.push(...propertyEvents({ repoKey: repo.key, path: row.path }, before, props, by));
    }
    await publish(tx, ...events);
  });
}

export interface CopyResult {
  /** Files (to be) copied or moved: `[from, to]` as `repo/path`. */
  files: [string, string][];
  dryRun: boolean;
}

/**
 * Copies or moves a file or folder to another path (same or other local repository).
 * Permission: read (copy) or delete (move) on the source; write, and delete to overwrite, on the target.
 * Counted against the target's (and its project's) quota as a deploy is: over it, 413 `QUOTA_EXCEEDED`
 * and nothing changes (issue 21).
 */
export async function copyOrMove(
  ctx: RepositoriesContext,
  principal: Principal | null,
  mode: 'copy' | 'move',
  from: RepoPath,
  to: RepoPath,
  dryRun: boolean,
): Promise<CopyResult> {
  const source = await resolveTarget(ctx, from.repoKey, principal);
  const dest = await resolveTarget(ctx, to.repoKey, principal);
  checkTransferRepositories(source, dest);
  await authorize(ctx, principal, mode === 'copy' ? 'read' : 'delete', source.repo, from.path);
  // issue 12 §20: a format's own records neither travel (its afterChange rebuilds them) nor are written
  const internal = (path: string) => isInternalPath(ctx, source.repo.packageType, path);
  if (internal(from.path)) throw new NotFoundError(`'${from.path}' not found in repository '${source.key}'`);
  const single = from.isRoot ? undefined : await findArtifact(ctx.db, source.repo.id, from.path);
  const listed = single ? [single] : await listArtifactsBelow(ctx.db, source.repo.id, from.path);
  const rows = listed.filter((row) => !internal(row.path));
  if (rows.length === 0) throw new NotFoundError(`'${from.path}' not found in repository '${source.key}'`);
  const targetPathOf = (row: ArtifactRow) =>
    single
      ? to.path
      : [to.path, row.path.slice(from.path === '' ? 0 : from.path.length + 1)].filter(Boolean).join('/');
  // The storage API answers a repository the caller cannot see as absent (404), as everywhere.
  const refuse: Refuse = (action, repo, path) => authorize(ctx, principal, action, repo, path);
  const steps: TransferStep[] = [];
  for (const row of rows) {
    const target = targetPathOf(row);
    if (dest.repo.id === source.repo.id && (target === row.path || target.startsWith(`${row.path}/`)))
      throw new InvalidError('The target is the source itself');
    const existing = await checkTransferFile(ctx, mode, refuse, source.repo, row, dest.repo, target);
    // Replacing a file takes delete permission on it.
    if (existing) await authorize(ctx, principal, 'delete', dest.repo, target);
    steps.push({ source: source.repo, row, dest: dest.repo, target, existing, same: false });
  }
  const files = steps.map((s): [string, string] => [
    `${source.key}/${s.row.path}`,
    `${dest.key}/${s.target}`,
  ]);
  if (dryRun) return { files, dryRun };
  await applyTransfers(ctx, mode, steps, actorName(principal));
  return { files, dryRun };
}

/**
 * issue 12 §20: a generic call (the PUT, GET or DELETE a format leaves to the core, a property change)
 * on a path the repository's format keeps for itself. The caller first hears what it would of any path
 * (401/403/404 for `action`); then the path is not there, and a write is refused as reserved.
 */
export async function refuseInternalPath(
  ctx: RepositoriesContext,
  principal: Principal | null,
  path: RepoPath,
  action: 'read' | 'write' | 'delete' | 'annotate',
): Promise<void> {
  if (path.isRoot) return;
  const target = await resolveTarget(ctx, path.repoKey, principal);
  if (!isInternalPath(ctx, target.repo.packageType, path.path)) return;
  await authorize(ctx, principal, action, target.repo, path.path);
  if (action === 'write') throw reservedPath(target.repo.packageType, path.path);
  throw new NotFoundError(`'${path.path}' not found in repository '${target.key}'`);
}
