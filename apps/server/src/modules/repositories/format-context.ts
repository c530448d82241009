import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type {
  DeployOptions,
  FormatFile,
  FormatPrincipal,
  FormatRepository,
  PathsChange,
  RepositoryHandle,
  RequestContext,
  SpooledBytes,
  UpstreamResponse,
} from '../../formats/sdk/format.ts';
import { type BlobInfo, ChecksumMismatchError } from '../../platform/blobs/index.ts';
import {
  ConflictError,
  InvalidError,
  NotFoundError,
  UnauthorizedError,
  UpstreamError,
} from '../../platform/errors.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { publicBaseUrl } from '../../platform/http/base-url.ts';
import { readBounded } from '../../platform/streams/read-bounded.ts';
import {
  type ArtifactRow,
  artifactsGeneration,
  findArtifact,
  listArtifactsBelow,
  listChildren,
} from './artifacts.queries.ts';
import {
  changeProperties,
  deleteArtifacts,
  deployArtifact,
  linkArtifacts,
  resolveForRead,
} from './artifacts.service.ts';
import { authorize, can, MAX_VIRTUAL_DEPTH, type RepositoriesContext } from './context.ts';
import { mimeTypeOf } from './mime.ts';
import { RepoPath } from './repo-path.ts';
import { findRepository, type RepoConfig } from './repositories.service.ts';
import { sendArtifact } from './serve.ts';

/** What `spool` stored, by the handle it gave the format: a format cannot forge checksums it did not get from the core. */
const spooledBlobs = new WeakMap<SpooledBytes, BlobInfo>();

/** Who the server's own work acts as (system handles: formats' jobs, `afterChange`): every permission, recorded as `_system`. */
export const SYSTEM_PRINCIPAL: Principal = {
  id: '00000000-0000-0000-0000-000000000000',
  name: '_system',
  admin: true,
};

const rows = new WeakMap<FormatFile, ArtifactRow>();
const principals = new WeakMap<FormatPrincipal, Principal>();

function formatPrincipal(principal: Principal): FormatPrincipal {
  const shown = { name: principal.name, admin: principal.admin };
  principals.set(shown, principal);
  return shown;
}
const DEFAULT_UPSTREAM_MAX_BYTES = 64 * 1024 * 1024;

export function toFormatFile(ctx: RepositoriesContext, row: ArtifactRow): FormatFile {
  const file: FormatFile = {
    path: row.path,
    size: row.size,
    sha256: row.sha256,
    sha1: row.sha1,
    md5: row.md5,
    mimeType: row.mimeType ?? mimeTypeOf(row.path.split('/').at(-1) ?? ''),
    properties: (row.properties ?? {}) as Record<string, string[]>,
    createdAt: row.createdAt,
    modifiedAt: row.modifiedAt,
    createdBy: row.createdBy,
    open: async () => Readable.from(await ctx.blobs.get(row.sha256)),
  };
  rows.set(file, row);
  return file;
}

export function formatRepository(repo: RepoConfig): FormatRepository {
  return {
    key: repo.key,
    rclass: repo.rclass,
    packageType: repo.packageType,
    description: repo.description,
    url: repo.remote?.url,
    remote: repo.remote && {
      url: repo.remote.url,
      offline: repo.remote.offline,
      retrievalCachePeriodSecs: repo.remote.retrievalCachePeriodSecs,
      storeArtifactsLocally: repo.remote.storeArtifactsLocally,
      namespaceConfusionProtection: repo.remote.namespaceConfusionProtection ?? true,
    },
    virtual: repo.virtual && {
      repositories: [...repo.virtual.repositories],
      defaultDeploymentRepo: repo.virtual.defaultDeploymentRepo ?? undefined,
    },
    maven: repo.maven && { ...repo.maven },
  };
}

const sameOrigin = (a: string, b: string) => {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
};

/** An upstream's answer read whole, at most `max` bytes (UpstreamError past that). */
async function readUpstreamBody(body: ReadableStream<Uint8Array> | null, max: number): Promise<Buffer> {
  if (!body) return Buffer.alloc(0);
  return readBounded(
    Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>),
    max,
    () => new UpstreamError(`The upstream answer is larger than ${max} bytes`),
  );
}

/**
 * The RepositoryHandle of one repository acting as `principal` (a request's caller, or
 * SYSTEM_PRINCIPAL): the core's services bound to the repository, each checking the principal's
 * permission on the canonical path (RepoPath). Needs no request: jobs and `afterChange` use it.
 */
export function createRepositoryHandle(
  ctx: RepositoriesContext,
  repo: RepoConfig,
  principal: Principal | null,
  depth = 0,
): RepositoryHandle {
  const parse = (path: string) => RepoPath.parse(repo.key, path);
  const sub = (other: RepoConfig) => createRepositoryHandle(ctx, other, principal, depth + 1);
  const self: RepositoryHandle = {
    repository: formatRepository(repo),
    log: ctx.log.child({ repo: repo.key }),
    settings: ctx.formatSettings,
    authorize: (action, path) => authorize(ctx, principal, action, repo, parse(path).path),
    can: (action, path) => can(ctx, principal, action, repo, parse(path).path),
    async stat(path) {
      const p = parse(path);
      if (p.isRoot || repo.rclass === 'virtual') return null;
      const row = await findArtifact(ctx.db, repo.id, p.path);
      return row ? toFormatFile(ctx, row) : null;
    },
    async get(path) {
      try {
        const resolved = await resolveForRead(ctx, principal, parse(path));
        if (resolved.kind === 'file') return toFormatFile(ctx, resolved.artifact);
        if (resolved.kind === 'stream') {
          resolved.stream.resume();
          const row = await resolved.done;
          return row ? toFormatFile(ctx, row) : null;
        }
        return null;
      } catch (err) {
        if (err instanceof NotFoundError) return null;
        throw err;
      }
    },
    async list(folder) {
      if (repo.rclass === 'virtual') return [];
      return listChildren(ctx.db, repo.id, parse(folder).path);
    },
    async listFiles(folder) {
      if (repo.rclass === 'virtual') return [];
      return (await listArtifactsBelow(ctx.db, repo.id, parse(folder).path)).map((r) => toFormatFile(ctx, r));
    },
    async deploy(path, source, opts: DeployOptions = {}) {
      const { artifact } = await deployArtifact(
        ctx,
        principal,
        parse(path),
        {
          expected: opts.expected ?? {},
          byChecksum: opts.byChecksum ?? false,
          properties: opts.properties ?? {},
          noOverwrite: opts.noOverwrite,
          regenerated: opts.regenerated,
          metadata: opts.metadata,
          stored: opts.spooled ? spooledBlobs.get(opts.spooled) : undefined,
        },
        Buffer.isBuffer(source) ? Readable.from([source]) : source,
      );
      return toFormatFile(ctx, artifact);
    },
    async spool(path, source, opts = {}) {
      const p = parse(path);
      await authorize(ctx, principal, 'write', repo, p.path);
      let info: BlobInfo;
      try {
        info = await ctx.blobs.put(source, opts.expected ?? {});
      } catch (err) {
        if (err instanceof ChecksumMismatchError)
          throw new ConflictError(
            `The upload does not match its announced ${err.checksum}: nothing was stored`,
            'CHECKSUM_MISMATCH',
          );
        throw err;
      }
      const spooled: SpooledBytes = {
        sha256: info.sha256,
        size: info.size,
        open: async () => Readable.from(await ctx.blobs.get(info.sha256)),
      };
      spooledBlobs.set(spooled, info);
      return spooled;
    },
    async link(files) {
      if (files.length === 0) return [];
      const { artifacts } = await linkArtifacts(
        ctx,
        principal,
        repo.key,
        files.map((f) => {
          const row = rows.get(f.sameAs);
          if (!row) throw new Error('link(): not a file this context handed out');
          return {
            path: parse(f.path),
            stored: { sha256: row.sha256, sha1: row.sha1, md5: row.md5, size: row.size },
            properties: f.properties ?? {},
            metadata: f.metadata,
          };
        }),
      );
      return artifacts.map((a) => toFormatFile(ctx, a));
    },
    async respool(path, sha256) {
      if (!/^[0-9a-f]{64}$/.test(sha256) || !(await ctx.blobs.stat(sha256))) {
        await authorize(ctx, principal, 'write', repo, parse(path).path);
        return null;
      }
      // Read back and hashed again: the checksums handed out are the core's own, never the format's.
      return self.spool(path, Readable.from(await ctx.blobs.get(sha256)), { expected: { sha256 } });
    },
    // The format's own change: no `afterChange` back to it.
    delete: (path) => deleteArtifacts(ctx, principal, parse(path), { byFormat: true }),
    async setProperties(path, properties) {
      const p = parse(path);
      const current = repo.rclass === 'virtual' ? undefined : await findArtifact(ctx.db, repo.id, p.path);
      const remove = Object.keys((current?.properties ?? {}) as object).filter((k) => !(k in properties));
      await changeProperties(ctx, principal, p, { set: properties, remove });
    },
    async members() {
      if (repo.rclass !== 'virtual' || depth >= MAX_VIRTUAL_DEPTH) return [];
      const found: RepositoryHandle[] = [];
      for (const name of repo.virtual?.repositories ?? []) {
        const member = await findRepository(ctx.db, name);
        if (!member || !(await can(ctx, principal, 'read', member, ''))) continue;
        if (member.rclass === 'virtual') found.push(...(await sub(member).members()));
        else found.push(sub(member));
      }
      return found;
    },
    async deployContext() {
      if (repo.rclass !== 'virtual') return self;
      const key = repo.virtual?.defaultDeploymentRepo;
      const local = key ? await findRepository(ctx.db, key) : undefined;
      if (!local)
        throw new InvalidError(`Virtual repository '${repo.key}' has no default deployment repository`);
      return sub(local);
    },
    async upstream(pathOrUrl, init = {}): Promise<UpstreamResponse> {
      const remote = repo.remote;
      if (!remote) throw new InvalidError(`'${repo.key}' is not a remote repository`);
      if (remote.offline) throw new UpstreamError(`Remote repository '${repo.key}' is offline`);
      const url = /^https?:\/\//i.test(pathOrUrl)
        ? pathOrUrl
        : `${remote.url.replace(/\/+$/, '')}/${pathOrUrl.replace(/^\/+/, '')}`;
      const headers: Record<string, string> = { ...init.headers };
      if (remote.username && sameOrigin(url, remote.url) && !headers.authorization)
        headers.authorization = `Basic ${Buffer.from(`${remote.username}:${repo.password ?? ''}`).toString('base64')}`;
      let res: Awaited<ReturnType<typeof ctx.outbound.fetch>>;
      try {
        res = await ctx.outbound.fetch(url, { headers, method: init.method, body: init.body });
      } catch (err) {
        ctx.log.warn({ repo: repo.key, url, err: (err as Error).message }, 'upstream request failed');
        throw new UpstreamError(`The upstream of '${repo.key}' could not be reached`);
      }
      ctx.remote.upstreamRequests += 1;
      if (init.stream)
        return {
          status: res.status,
          headers: res.headers,
          body: Buffer.alloc(0),
          stream: res.body
            ? Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>)
            : Readable.from([]),
        };
      const body = await readUpstreamBody(res.body, init.maxBytes ?? DEFAULT_UPSTREAM_MAX_BYTES);
      return { status: res.status, headers: res.headers, body };
    },
    async cache(path, source, opts: DeployOptions = {}) {
      if (repo.rclass !== 'remote') throw new InvalidError(`'${repo.key}' has no cache`);
      const row = await ctx.remote.cacheBytes(
        repo,
        parse(path).path,
        Buffer.isBuffer(source) ? Readable.from([source]) : source,
        opts.expected ?? {},
      );
      return toFormatFile(ctx, row);
    },
    // Named per repository (its id never changes); the database makes the lock cluster-wide.
    withLock: (name, fn) => ctx.withLock(`repo:${repo.id}:${name}`, fn),
    generation: artifactsGeneration,
  };
  return self;
}

/**
 * The RequestContext of one client request on one repository: the repository's handle acting as the
 * request's caller, with what answering that client needs.
 */
export function createRequestContext(
  ctx: RepositoriesContext,
  request: FastifyRequest,
  repo: RepoConfig,
): RequestContext {
  const principal = request.principal;
  const baseUrl = publicBaseUrl(request, ctx.baseUrl);
  return {
    ...createRepositoryHandle(ctx, repo, principal),
    baseUrl,
    repositoryUrl: `${baseUrl}/repository/${repo.key}`,
    principal: principal && formatPrincipal(principal),
    async send(reply, file) {
      const row = rows.get(file);
      if (!row) throw new Error('send(): not a file the core handed out');
      return sendArtifact(request, reply, ctx, row);
    },
    async login(name, password) {
      const found = await ctx.credentials.login(request, name, password, repo.packageType);
      return found && formatPrincipal(found);
    },
    // The core's own token service: owner check, credential caches cleared, audited.
    revokeCallerToken: () => ctx.credentials.revokeCallerToken(request),
    async issueToken(opts) {
      const owner = opts.principal ? principals.get(opts.principal) : principal;
      if (!owner) throw new UnauthorizedError();
      return ctx.credentials.issueToken(request, owner, opts);
    },
    openCliLogin: (client) => ctx.credentials.openCliLogin(request, client),
    pollCliLogin: (session) => ctx.credentials.pollCliLogin(request, session),
  };
}

/** A repository's handle for the server's own work (jobs, `afterChange`): no request, every permission, recorded as `_system`. */
export function createSystemHandle(ctx: RepositoriesContext, repo: RepoConfig): RepositoryHandle {
  return createRepositoryHandle(ctx, repo, SYSTEM_PRINCIPAL);
}

/**
 * The core's side of `PackageFormat.afterChange` (`RepositoriesContext.afterFormatChange`): after the
 * repositories service committed a delete, copy or move the format did not make through its own
 * handle, the format regenerates what it derives from stored files, through a system handle. Never
 * fails the caller's operation (the format's error is logged).
 */
export async function notifyFormatOfChange(
  ctx: RepositoriesContext,
  repo: RepoConfig,
  change: PathsChange,
): Promise<void> {
  try {
    const format = ctx.formats.get(repo.packageType);
    if (!format?.afterChange || repo.rclass === 'virtual') return;
    await format.afterChange(createSystemHandle(ctx, repo), change);
  } catch (err) {
    ctx.log.error(
      { repo: repo.key, err: (err as Error).message },
      'format documents not regenerated after a delete, copy or move',
    );
  }
}
