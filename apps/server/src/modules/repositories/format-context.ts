import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type {
  DeleteOptions,
  DeployOptions,
  EventOptions,
  FormatFile,
  FormatPrincipal,
  FormatRepository,
  PathsChange,
  RepositoryHandle,
  RepositorySigning,
  RequestContext,
  SpooledBytes,
  UpstreamResponse,
} from '../../formats/sdk/format.ts';
import { type BlobHold, type BlobInfo, ChecksumMismatchError } from '../../platform/blobs/index.ts';
import {
  ConflictError,
  InvalidError,
  NotFoundError,
  UnauthorizedError,
  UpstreamError,
} from '../../platform/errors.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { publicBaseUrl } from '../../platform/http/base-url.ts';
import { OutboundProxyError } from '../../platform/outbound/index.ts';
import { openFor } from '../../platform/secrets/index.ts';
import { readBounded } from '../../platform/streams/read-bounded.ts';
import { ExpiredArtifactError } from './artifact-extensions.ts';
import {
  type ArtifactRow,
  artifactsGeneration,
  findArtifact,
  findArtifactForRead,
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
import { findRepository, type RepoConfig, upstreamProxy } from './repositories.service.ts';
import { sendArtifact } from './serve.ts';

/** What `spool` stored, by the handle it gave the format: a format cannot forge checksums it did not get from the core. */
const spooledBlobs = new WeakMap<SpooledBytes, BlobInfo & { hold?: BlobHold }>();

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

/** A repository as formats see it, made once per configuration object (configurations are cached). */
const formatRepositories = new WeakMap<RepoConfig, FormatRepository>();
function formatRepositoryOf(repo: RepoConfig): FormatRepository {
  let found = formatRepositories.get(repo);
  if (!found) {
    found = formatRepository(repo);
    formatRepositories.set(repo, found);
  }
  return found;
}

/**
 * The RepositoryHandle of one repository acting as `principal` (a request's caller, or
 * SYSTEM_PRINCIPAL): the core's services bound to the repository, each checking the principal's
 * permission on the canonical path (RepoPath). Needs no request: jobs and `afterChange` use it.
 *
 * A class, its methods on the prototype: one is made for every client request, and an object of
 * two dozen fresh closures (spread into the request's context) cost ~25 µs and most of a Maven
 * checksum GET's garbage (issue 13's bench: MV3 8.5k → 6.2k req/s). The logger child is made when
 * first used.
 *
 * A handle reached from a virtual repository's (its `deployContext`, its `members`) remembers that
 * virtual repository (`via`): the events of what it stores, caches or deletes name it as
 * `virtual_repo_key` (issue 14 §Events).
 */
class CoreRepositoryHandle implements RepositoryHandle {
  #log: RepositoryHandle['log'] | undefined;
  readonly settings: RepositoryHandle['settings'];
  readonly generation = artifactsGeneration;

  constructor(
    protected readonly ctx: RepositoriesContext,
    protected readonly repo: RepoConfig,
    protected readonly actor: Principal | null,
    private readonly depth = 0,
    /** The (outermost) virtual repository this handle was reached through. */
    private readonly via?: string,
  ) {
    this.settings = ctx.formatSettings;
  }

  get repository(): FormatRepository {
    return formatRepositoryOf(this.repo);
  }

  get node(): object {
    return this.ctx;
  }

  get log(): RepositoryHandle['log'] {
    this.#log ??= this.ctx.log.child({ repo: this.repo.key });
    return this.#log;
  }

  protected parse(path: string): RepoPath {
    return RepoPath.parse(this.repo.key, path);
  }

  private sub(other: RepoConfig): RepositoryHandle {
    const via = this.via ?? (this.repo.rclass === 'virtual' ? this.repo.key : undefined);
    return new CoreRepositoryHandle(this.ctx, other, this.actor, this.depth + 1, via);
  }

  authorize(action: Parameters<RepositoryHandle['authorize']>[0], path: string): Promise<void> {
    return authorize(this.ctx, this.actor, action, this.repo, this.parse(path).path);
  }

  can(action: Parameters<RepositoryHandle['can']>[0], path: string): Promise<boolean> {
    return can(this.ctx, this.actor, action, this.repo, this.parse(path).path);
  }

  async stat(path: string, opts?: { read?: boolean }): Promise<FormatFile | null> {
    const p = this.parse(path);
    if (p.isRoot || this.repo.rclass === 'virtual') return null;
    const row = await (opts?.read ? findArtifactForRead : findArtifact)(this.ctx.db, this.repo.id, p.path);
    return row ? toFormatFile(this.ctx, row) : null;
  }

  async get(path: string): Promise<FormatFile | null> {
    try {
      const resolved = await resolveForRead(this.ctx, this.actor, this.parse(path), { via: this.via });
      if (resolved.kind === 'file') return toFormatFile(this.ctx, resolved.artifact);
      if (resolved.kind === 'stream') {
        resolved.stream.resume();
        const row = await resolved.done;
        return row ? toFormatFile(this.ctx, row) : null;
      }
      return null;
    } catch (err) {
      if (err instanceof NotFoundError && !(err instanceof ExpiredArtifactError)) return null;
      throw err;
    }
  }

  async list(folder: string): Promise<{ name: string; folder: boolean }[]> {
    if (this.repo.rclass === 'virtual') return [];
    return listChildren(this.ctx.db, this.repo.id, this.parse(folder).path);
  }

  async listFiles(folder: string): Promise<FormatFile[]> {
    if (this.repo.rclass === 'virtual') return [];
    return (await listArtifactsBelow(this.ctx.db, this.repo.id, this.parse(folder).path)).map((r) =>
      toFormatFile(this.ctx, r),
    );
  }

  async deploy(path: string, source: Readable | Buffer, opts: DeployOptions = {}): Promise<FormatFile> {
    const { artifact } = await deployArtifact(
      this.ctx,
      this.actor,
      this.parse(path),
      {
        expected: opts.expected ?? {},
        byChecksum: opts.byChecksum ?? false,
        properties: opts.properties ?? {},
        noOverwrite: opts.noOverwrite,
        regenerated: opts.regenerated,
        metadata: opts.metadata,
        stored: opts.spooled ? spooledBlobs.get(opts.spooled) : undefined,
        via: this.via,
        events: opts.events,
        derived: opts.derived,
      },
      Buffer.isBuffer(source) ? Readable.from([source]) : source,
    );
    return toFormatFile(this.ctx, artifact);
  }

  async spool(
    path: string,
    source: Readable,
    opts: { expected?: DeployOptions['expected']; holdSecs?: number } = {},
  ): Promise<SpooledBytes> {
    const p = this.parse(path);
    await authorize(this.ctx, this.actor, 'write', this.repo, p.path);
    let info: BlobInfo & { hold?: BlobHold };
    try {
      info = await this.ctx.blobs.put(source, opts.expected ?? {}, {
        holdReason: 'spool',
        holdSecs: opts.holdSecs,
      });
    } catch (err) {
      if (err instanceof ChecksumMismatchError)
        throw new ConflictError(
          `The upload does not match its announced ${err.checksum}: nothing was stored`,
          'CHECKSUM_MISMATCH',
        );
      throw err;
    }
    const blobs = this.ctx.blobs;
    const spooled: SpooledBytes = {
      sha256: info.sha256,
      size: info.size,
      open: async () => Readable.from(await blobs.get(info.sha256)),
      release: async () => {
        await info.hold?.release();
      },
    };
    spooledBlobs.set(spooled, info);
    return spooled;
  }

  async link(
    files: Parameters<RepositoryHandle['link']>[0],
    opts: EventOptions & { noOverwrite?: boolean } = {},
  ): Promise<FormatFile[]> {
    if (files.length === 0) return [];
    const { artifacts } = await linkArtifacts(
      this.ctx,
      this.actor,
      this.repo.key,
      files.map((f) => {
        const spooled = f.spooled ? spooledBlobs.get(f.spooled) : undefined;
        const row = f.sameAs ? rows.get(f.sameAs) : spooled;
        if (!row) throw new Error('link(): not a file or spooled bytes this context handed out');
        return {
          path: this.parse(f.path),
          stored: { sha256: row.sha256, sha1: row.sha1, md5: row.md5, size: row.size },
          properties: f.properties ?? {},
          metadata: f.metadata,
          hold: f.sameAs ? undefined : spooled?.hold,
        };
      }),
      { via: this.via, events: opts.events, derived: opts.derived, noOverwrite: opts.noOverwrite },
    );
    return artifacts.map((a) => toFormatFile(this.ctx, a));
  }

  async respool(path: string, sha256: string): Promise<SpooledBytes | null> {
    if (!/^[0-9a-f]{64}$/.test(sha256) || !(await this.ctx.blobs.stat(sha256))) {
      await authorize(this.ctx, this.actor, 'write', this.repo, this.parse(path).path);
      return null;
    }
    // Read back and hashed again: the checksums handed out are the core's own, never the format's.
    return this.spool(path, Readable.from(await this.ctx.blobs.get(sha256)), { expected: { sha256 } });
  }

  /** The format's own change: no `afterChange` back to it. */
  delete(path: string, opts: DeleteOptions = {}): Promise<number> {
    return deleteArtifacts(this.ctx, this.actor, this.parse(path), {
      byFormat: true,
      via: this.via,
      events: opts.events,
      derived: opts.derived,
      permanent: opts.permanent,
    });
  }

  async setProperties(path: string, properties: Record<string, string[]>): Promise<void> {
    const p = this.parse(path);
    const current =
      this.repo.rclass === 'virtual' ? undefined : await findArtifact(this.ctx.db, this.repo.id, p.path);
    const remove = Object.keys((current?.properties ?? {}) as object).filter((k) => !(k in properties));
    await changeProperties(this.ctx, this.actor, p, { set: properties, remove });
  }

  async members(): Promise<RepositoryHandle[]> {
    if (this.repo.rclass !== 'virtual' || this.depth >= MAX_VIRTUAL_DEPTH) return [];
    const found: RepositoryHandle[] = [];
    for (const name of this.repo.virtual?.repositories ?? []) {
      const member = await findRepository(this.ctx.db, name);
      if (!member || !(await can(this.ctx, this.actor, 'read', member, ''))) continue;
      if (member.rclass === 'virtual') found.push(...(await this.sub(member).members()));
      else found.push(this.sub(member));
    }
    return found;
  }

  async deployContext(): Promise<RepositoryHandle> {
    if (this.repo.rclass !== 'virtual') return this;
    const key = this.repo.virtual?.defaultDeploymentRepo;
    const local = key ? await findRepository(this.ctx.db, key) : undefined;
    if (!local)
      throw new InvalidError(`Virtual repository '${this.repo.key}' has no default deployment repository`);
    return this.sub(local);
  }

  async upstream(
    pathOrUrl: string,
    init: Parameters<RepositoryHandle['upstream']>[1] = {},
  ): Promise<UpstreamResponse> {
    const { ctx, repo } = this;
    const remote = repo.remote;
    if (!remote) throw new InvalidError(`'${repo.key}' is not a remote repository`);
    if (remote.offline) throw new UpstreamError(`Remote repository '${repo.key}' is offline`);
    const url = /^https?:\/\//i.test(pathOrUrl)
      ? pathOrUrl
      : `${remote.url.replace(/\/+$/, '')}/${pathOrUrl.replace(/^\/+/, '')}`;
    const headers: Record<string, string> = { ...init.headers };
    if (remote.username && sameOrigin(url, remote.url) && !headers.authorization)
      headers.authorization = `Basic ${Buffer.from(`${remote.username}:${openFor(ctx.db, repo.password) ?? ''}`).toString('base64')}`;
    let res: Awaited<ReturnType<typeof ctx.outbound.fetch>>;
    try {
      res = await ctx.outbound.fetch(url, {
        headers,
        method: init.method,
        body: init.body,
        proxy: upstreamProxy(remote),
      });
    } catch (err) {
      ctx.log.warn({ repo: repo.key, url, err: (err as Error).message }, 'upstream request failed');
      throw new UpstreamError(
        `The upstream of '${repo.key}' could not be reached${err instanceof OutboundProxyError ? `: ${err.message}` : ''}`,
      );
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
  }

  async cache(path: string, source: Readable | Buffer, opts: DeployOptions = {}): Promise<FormatFile> {
    if (this.repo.rclass !== 'remote') throw new InvalidError(`'${this.repo.key}' has no cache`);
    const row = await this.ctx.remote.cacheBytes(
      this.repo,
      this.parse(path).path,
      Buffer.isBuffer(source) ? Readable.from([source]) : source,
      opts.expected ?? {},
      this.via,
    );
    return toFormatFile(this.ctx, row);
  }

  /** The key the repository names, else its own (issue 23); kept by the distribution module. */
  get signing(): RepositorySigning {
    if (!this.ctx.signing) throw new Error('Repository signing is not available on this server');
    return this.ctx.signing(this.repo.key, this.repo.signing?.primaryKeyPairRef);
  }

  /** Named per repository (its id never changes); the database makes the lock cluster-wide. */
  withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return this.ctx.withLock(`repo:${this.repo.id}:${name}`, fn);
  }
}

export function createRepositoryHandle(
  ctx: RepositoriesContext,
  repo: RepoConfig,
  principal: Principal | null,
): RepositoryHandle {
  return new CoreRepositoryHandle(ctx, repo, principal);
}

/**
 * The RequestContext of one client request on one repository: the repository's handle acting as the
 * request's caller, with what answering that client needs.
 */
class CoreRequestContext extends CoreRepositoryHandle implements RequestContext {
  readonly baseUrl: string;
  readonly repositoryUrl: string;
  readonly principal: FormatPrincipal | null;

  constructor(
    ctx: RepositoriesContext,
    private readonly request: FastifyRequest,
    repo: RepoConfig,
  ) {
    super(ctx, repo, request.principal);
    request.repoType = repo.packageType;
    this.baseUrl = publicBaseUrl(request, ctx.baseUrl);
    this.repositoryUrl = `${this.baseUrl}/repository/${repo.key}`;
    this.principal = request.principal && formatPrincipal(request.principal);
  }

  get advisories() {
    return this.ctx.advisories;
  }

  async send(reply: FastifyReply, file: FormatFile): Promise<FastifyReply> {
    const row = rows.get(file);
    if (!row) throw new Error('send(): not a file the core handed out');
    return sendArtifact(this.request, reply, this.ctx, row);
  }

  async checkDownload(file: FormatFile): Promise<void> {
    const row = rows.get(file);
    if (!row) throw new Error('checkDownload(): not a file the core handed out');
    await this.ctx.artifactExtensions.beforeDownload(row);
  }

  async login(name: string, password: string): Promise<FormatPrincipal | null> {
    const found = await this.ctx.credentials.login(this.request, name, password, this.repo.packageType);
    return found && formatPrincipal(found);
  }

  /** The core's own token service: owner check, credential caches cleared, audited. */
  revokeCallerToken(): Promise<boolean> {
    return this.ctx.credentials.revokeCallerToken(this.request);
  }

  async issueToken(opts: Parameters<RequestContext['issueToken']>[0]) {
    const owner = opts.principal ? principals.get(opts.principal) : this.actor;
    if (!owner) throw new UnauthorizedError();
    return this.ctx.credentials.issueToken(this.request, owner, opts);
  }

  openCliLogin(client: Parameters<RequestContext['openCliLogin']>[0]) {
    return this.ctx.credentials.openCliLogin(this.request, client);
  }

  pollCliLogin(session: Parameters<RequestContext['pollCliLogin']>[0]) {
    return this.ctx.credentials.pollCliLogin(this.request, session);
  }
}

export function createRequestContext(
  ctx: RepositoriesContext,
  request: FastifyRequest,
  repo: RepoConfig,
): RequestContext {
  return new CoreRequestContext(ctx, request, repo);
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
