import { once } from 'node:events';
import { PassThrough, Readable } from 'node:stream';
import type {
  FormatRepository,
  UpstreamCheck,
  UpstreamCheckContext,
  UpstreamFile,
  UpstreamKind,
} from '../../formats/sdk/format.ts';
import { ArchiveLimitError, archiveLimitOf } from '../../platform/archives/bounded-archive.ts';
import { type BlobInfo, ChecksumMismatchError, type ExpectedChecksums } from '../../platform/blobs/index.ts';
import { UpstreamError } from '../../platform/errors.ts';
import { publish } from '../../platform/events/index.ts';
import { OutboundProxyError } from '../../platform/outbound/index.ts';
import { openFor } from '../../platform/secrets/index.ts';
import { readBounded } from '../../platform/streams/read-bounded.ts';
import { artifactEvent } from './artifact-events.ts';
import {
  type ArtifactRow,
  changeArtifacts,
  findArtifactForRead,
  markFetched,
  upsertArtifact,
} from './artifacts.queries.ts';
import type { RepositoriesContext } from './context.ts';
import { extractFor, notifyRemoved, notifyStored } from './indexing.ts';
import { isInternalPath } from './internal-paths.ts';
import { mimeTypeOf } from './mime.ts';
import { type RepoConfig, upstreamProxy } from './repositories.service.ts';
import { HEAD_BYTES, kindOfPath, kindRefusal, UpstreamRefusal } from './upstream-kind.ts';

export type FetchOutcome =
  | { artifact: ArtifactRow }
  | { stream: Readable; size?: number; done: Promise<ArtifactRow | null> }
  | null;

const HEX = /^[0-9a-f]+$/i;
const MAX_MISSES = 10_000;
const MAX_ETAGS = 100_000;
/** What `UpstreamCheckContext.upstream` reads of a body by default (a `.sha1`, a small index document). */
const CHECK_BODY_BYTES = 1024 * 1024;

/** The hex digests an upstream check names, lower-cased; invalid ones are left out. */
function indexedChecksums(check: UpstreamCheck | null): ExpectedChecksums {
  const out: ExpectedChecksums = {};
  const lengths = { sha256: 64, sha1: 40, md5: 32 } as const;
  for (const kind of ['sha256', 'sha1', 'md5'] as const) {
    const value = check?.checksums?.[kind]?.trim().toLowerCase();
    if (value && value.length === lengths[kind] && HEX.test(value)) out[kind] = value;
  }
  return out;
}

/** Why storing an upstream's answer failed, when the answer itself is wrong (not merely cut short). */
function refusalReason(err: unknown, indexed: ExpectedChecksums): string | undefined {
  const refusal = err instanceof UpstreamRefusal ? err : (err as { cause?: unknown })?.cause;
  if (refusal instanceof UpstreamRefusal) return refusal.message;
  if (err instanceof ChecksumMismatchError && err.checksum !== 'size') {
    const source = indexed[err.checksum] ? "its index's" : "the upstream's own";
    return `a file whose ${err.checksum} ${err.actual} is not ${source} ${err.expected}`;
  }
  return undefined;
}

/** `source` with its first bytes checked to be `kind` before any is passed on (issue 12 §5). */
async function* checkedKind(
  source: AsyncIterable<Uint8Array>,
  kind: UpstreamKind,
): AsyncGenerator<Uint8Array> {
  const held: Uint8Array[] = [];
  let heldBytes = 0;
  let checked = false;
  for await (const chunk of source) {
    if (checked) {
      yield chunk;
      continue;
    }
    held.push(chunk);
    heldBytes += chunk.length;
    if (heldBytes < HEAD_BYTES) continue;
    const refusal = kindRefusal(kind, Buffer.concat(held), null);
    if (refusal) throw new UpstreamRefusal(refusal);
    checked = true;
    yield* held;
  }
  if (!checked) {
    const refusal = kindRefusal(kind, Buffer.concat(held), null);
    if (refusal) throw new UpstreamRefusal(refusal);
    yield* held;
  }
}

/**
 * A cached file is stale once older than the repository's retrieval cache period, or when zap cleared
 * its fetch time ("revalidate now").
 */
export function isStale(
  repo: RepoConfig,
  artifact: ArtifactRow,
  now = Date.now(),
  isMetadataPath?: (path: string) => boolean,
): boolean {
  if (!artifact.fetchedAt) return true;
  // Content that never changes (a published tarball, a layer by digest) is never revalidated.
  if (isMetadataPath && !isMetadataPath(artifact.path)) return false;
  const period = repo.remote?.retrievalCachePeriodSecs ?? 0;
  return now - artifact.fetchedAt.getTime() >= period * 1000;
}

/**
 * Fetches remote repositories' misses from their upstreams and caches them as artifacts of the
 * remote (its `{key}-cache`). One upstream request per path however many clients miss at once
 * (the first streams while it stores, the others wait and read the stored file); an answer that is
 * cut short or does not match the upstream's checksums is never cached; a 404 is remembered for the
 * repository's missed-retrieval period. What the format's `upstreamCheck` asks of an answer (issue 12
 * §4, §5) is checked before anything is cached: its first bytes before they are stored or sent, the
 * index's checksums and the format's `verify` before it is served (such a file is not streamed), and
 * a refusal is a 502 that leaves nothing cached (the next request asks again).
 */
export class RemoteFetcher {
  private readonly inflight = new Map<string, Promise<ArtifactRow | null>>();
  private readonly misses = new Map<string, number>();
  /** Upstream ETags of cached files (kept in memory; after a restart If-Modified-Since alone revalidates). */
  private readonly etags = new Map<string, string>();
  /** Upstream requests sent (diagnostics and tests). */
  upstreamRequests = 0;

  constructor(private readonly ctx: () => RepositoriesContext) {}

  /**
   * A stale cached file is revalidated with the upstream (If-None-Match / If-Modified-Since) before it
   * is served: 304 keeps it (fresh again), 200 replaces it; an upstream that fails or is offline leaves
   * the cached copy to be served.
   */
  async revalidate(repo: RepoConfig, artifact: ArtifactRow, via?: string): Promise<ArtifactRow> {
    if (!repo.remote || repo.remote.offline) return artifact;
    const id = `${repo.id}\u0000${artifact.path}`;
    const running = this.inflight.get(id);
    if (running) return (await running.catch(() => null)) ?? artifact;
    const done = this.retrieve(repo, artifact.path, undefined, artifact, via).finally(() =>
      this.inflight.delete(id),
    );
    this.inflight.set(id, done);
    try {
      return (await done) ?? artifact;
    } catch (err) {
      this.ctx().log.warn(
        { repo: repo.key, path: artifact.path, err: (err as Error).message },
        'upstream revalidation failed: serving the cached copy',
      );
      return artifact;
    }
  }

  /** `storeArtifactsLocally: false`: the upstream's answer streams through, nothing is cached. */
  private async passThrough(repo: RepoConfig, path: string): Promise<FetchOutcome> {
    if ((await this.checkFor(repo, path)) === false) return null;
    const res = await this.request(repo, path, {});
    if (res.status === 404 || res.status === 410) {
      await res.body?.cancel();
      this.rememberMiss(repo, path);
      return null;
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel();
      throw new UpstreamError(`The upstream of '${repo.key}' answered ${res.status}`);
    }
    const length = res.headers.get('content-length');
    const size =
      length && /^\d+$/.test(length) && !res.headers.get('content-encoding') ? Number(length) : undefined;
    const stream = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
    return { stream, size, done: Promise.resolve(null) };
  }

  private async request(repo: RepoConfig, path: string, extra: Record<string, string>) {
    const ctx = this.ctx();
    const remote = repo.remote!;
    const format = ctx.formats.get(repo.packageType);
    const url = format?.upstreamUrl?.(remote.url, path) ?? `${remote.url.replace(/\/+$/, '')}/${path}`;
    const headers: Record<string, string> = { ...extra };
    if (remote.username)
      headers.authorization = `Basic ${Buffer.from(`${remote.username}:${openFor(ctx.db, repo.password) ?? ''}`).toString('base64')}`;
    this.upstreamRequests += 1;
    try {
      return await ctx.outbound.fetch(url, { headers, proxy: upstreamProxy(remote) });
    } catch (err) {
      ctx.log.warn({ repo: repo.key, path, err: (err as Error).message }, 'upstream request failed');
      throw new UpstreamError(
        `The upstream of '${repo.key}' could not be reached${err instanceof OutboundProxyError ? `: ${err.message}` : ''}`,
      );
    }
  }

  /** `via`: the virtual repository the request came through (its key goes into `artifact.cached`). */
  async fetch(repo: RepoConfig, path: string, wantStream: boolean, via?: string): Promise<FetchOutcome> {
    const remote = repo.remote;
    if (!remote || remote.offline) return null;
    const id = `${repo.id}\u0000${path}`;
    const missUntil = this.misses.get(id);
    if (missUntil !== undefined) {
      if (missUntil > Date.now()) return null;
      this.misses.delete(id);
    }
    if (!remote.storeArtifactsLocally) return this.passThrough(repo, path);
    const running = this.inflight.get(id);
    if (running) {
      const artifact = await running;
      return artifact ? { artifact } : null;
    }
    let streamTo: ((s: { stream: Readable; size?: number }) => void) | undefined;
    const streamed = wantStream
      ? new Promise<{ stream: Readable; size?: number } | null>((resolve) => {
          streamTo = resolve;
        })
      : undefined;
    const done = this.retrieve(repo, path, streamTo, undefined, via).finally(() => this.inflight.delete(id));
    this.inflight.set(id, done);
    if (!streamed) {
      const artifact = await done;
      return artifact ? { artifact } : null;
    }
    // The leader streams as soon as the upstream answers; a miss or failure settles `done` first.
    const first = await Promise.race([streamed, done.then(() => null)]);
    if (first) {
      done.catch(() => {});
      return { ...first, done: done.catch(() => null) };
    }
    const artifact = await done;
    return artifact ? { artifact } : null;
  }

  private async retrieve(
    repo: RepoConfig,
    path: string,
    streamTo?: (s: { stream: Readable; size?: number }) => void,
    cached?: ArtifactRow,
    via?: string,
  ): Promise<ArtifactRow | null> {
    const ctx = this.ctx();
    const id = `${repo.id}\u0000${path}`;
    const check = await this.checkFor(repo, path);
    // A path the format never asks its upstream for: absent (a cached copy stays as it is).
    if (check === false) return cached ?? null;
    const conditional: Record<string, string> = {};
    if (cached) {
      const etag = this.etags.get(id);
      if (etag) conditional['if-none-match'] = etag;
      conditional['if-modified-since'] = cached.modifiedAt.toUTCString();
    }
    const res = await this.request(repo, path, conditional);
    if (cached && res.status === 304) {
      await res.body?.cancel();
      return markFetched(ctx.db, cached.id);
    }
    if (cached && !res.ok) {
      // Gone or failing upstream: the cached copy is still served.
      await res.body?.cancel();
      throw new UpstreamError(`The upstream of '${repo.key}' answered ${res.status}`);
    }
    if (res.status === 404 || res.status === 410) {
      await res.body?.cancel();
      this.rememberMiss(repo, path);
      return null;
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel();
      throw new UpstreamError(`The upstream of '${repo.key}' answered ${res.status}`);
    }
    const expected: ExpectedChecksums = {};
    const length = res.headers.get('content-length');
    if (length && /^\d+$/.test(length) && !res.headers.get('content-encoding'))
      expected.size = Number(length);
    for (const kind of ['sha256', 'sha1', 'md5'] as const) {
      const value = res.headers.get(`x-checksum-${kind}`);
      if (value && HEX.test(value)) expected[kind] = value;
    }
    // What the format's index says wins over the upstream's own headers.
    const indexed = indexedChecksums(check);
    Object.assign(expected, indexed);
    const kind = check?.kind === undefined ? kindOfPath(path) : check.kind;
    const contentType = res.headers.get('content-type');
    const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
    // A file checked against its index is served only once it passed: the client gets a 502, not a cut answer.
    const streams = !!streamTo && !check?.verify && Object.keys(indexed).length === 0;
    let client: PassThrough | undefined;
    const startClient = () => {
      if (!streams || !streamTo) return;
      client = new PassThrough();
      streamTo({ stream: client, size: expected.size });
    };
    if (!kind) startClient();
    const tee = async function* (): AsyncGenerator<Uint8Array> {
      let clientGone = false;
      const watch = () =>
        client?.once('close', () => {
          clientGone = true;
        });
      watch();
      // The first bytes are held until they show the answer is the kind of file the path names.
      let held: Uint8Array[] | undefined = kind ? [] : undefined;
      let heldBytes = 0;
      const release = function* (): Generator<Uint8Array> {
        const chunks = held ?? [];
        held = undefined;
        const refusal = kindRefusal(kind!, Buffer.concat(chunks), contentType);
        if (refusal) throw new UpstreamRefusal(refusal);
        startClient();
        watch();
        for (const c of chunks) {
          client?.write(c);
          yield c;
        }
      };
      for await (const chunk of body as AsyncIterable<Uint8Array>) {
        if (held) {
          held.push(chunk);
          heldBytes += chunk.length;
          if (heldBytes >= HEAD_BYTES) yield* release();
          continue;
        }
        if (client && !clientGone && !client.write(chunk)) {
          await Promise.race([once(client, 'drain'), once(client, 'close')]).catch(() => {});
        }
        yield chunk;
      }
      if (held) yield* release();
    };
    let blob: Awaited<ReturnType<typeof ctx.blobs.put>>;
    try {
      blob = await ctx.blobs.put(tee(), expected);
    } catch (err) {
      // Cut short, wrong, or not what the path asks for: the client sees a broken answer or a 502; nothing is cached.
      client?.destroy(err as Error);
      body.destroy();
      const why = refusalReason(err, indexed);
      ctx.log.warn(
        { repo: repo.key, path, err: (err as Error).message, ...(why ? { reason: why } : {}) },
        'upstream answer not cached',
      );
      throw new UpstreamError(
        why
          ? `The upstream of '${repo.key}' answered '${path}' with ${why}: not cached`
          : `The upstream of '${repo.key}' sent an incomplete or corrupt answer`,
      );
    }
    if (check?.verify) await this.verify(repo, path, blob, check.verify);
    const etag = res.headers.get('etag');
    if (etag) {
      if (this.etags.size >= MAX_ETAGS) this.etags.clear();
      this.etags.set(id, etag);
    } else this.etags.delete(id);
    // The client's answer ends once the file is cached: what it just received is then listed and zappable.
    try {
      return await this.store(repo, path, blob, via);
    } catch (err) {
      // Refused (an archive past the limits): the client's answer is cut, as nothing was cached.
      if (err instanceof UpstreamError) {
        client?.destroy(err);
        client = undefined;
      }
      throw err;
    } finally {
      client?.end();
      await blob.hold?.release().catch(() => {}); // issue 21: the cached file's row holds the bytes now
    }
  }

  private async store(
    repo: RepoConfig,
    path: string,
    blob: Awaited<ReturnType<RepositoriesContext['blobs']['put']>>,
    via?: string,
  ) {
    let meta: Awaited<ReturnType<typeof extractFor>>;
    try {
      meta = await extractFor(this.ctx(), repo, path, blob);
    } catch (err) {
      if (!(err instanceof ArchiveLimitError)) throw err;
      this.ctx().log.warn({ repo: repo.key, path, err: err.message }, 'upstream archive refused: not cached');
      throw new UpstreamError(
        `The upstream of '${repo.key}' sent an archive the server refuses: ${err.message}`,
      );
    }
    return changeArtifacts(this.ctx().db, async (tx) => {
      await notifyRemoved(this.ctx(), tx, repo.id, [path]);
      await notifyStored(this.ctx(), tx, repo, path, blob, meta);
      const row = await upsertArtifact(tx, {
        repositoryId: repo.id,
        path,
        size: blob.size,
        sha256: blob.sha256,
        sha1: blob.sha1,
        md5: blob.md5,
        mimeType: mimeTypeOf(path.split('/').at(-1) ?? ''),
        properties: {},
        createdBy: repo.key,
        modifiedBy: repo.key,
        fetchedAt: new Date(),
      });
      // issue 14 §Events: `repo_key` is the remote (its cache holds the bytes).
      if (!isInternalPath(this.ctx(), repo.packageType, path))
        await publish(
          tx,
          artifactEvent('cached', { repoKey: repo.key, path, sha256: blob.sha256, size: blob.size }, { via }),
        );
      return row;
    });
  }

  /** Caches bytes a format fetched from the upstream itself (rewritten index documents, …). */
  async cacheBytes(
    repo: RepoConfig,
    path: string,
    source: Readable,
    expected: ExpectedChecksums,
    via?: string,
  ): Promise<ArtifactRow> {
    const kind = kindOfPath(path);
    let blob: Awaited<ReturnType<RepositoriesContext['blobs']['put']>>;
    try {
      blob = await this.ctx().blobs.put(kind ? checkedKind(source, kind) : source, expected);
    } catch (err) {
      source.destroy();
      const why = refusalReason(err, expected);
      if (!why) throw err;
      this.ctx().log.warn({ repo: repo.key, path, reason: why }, 'upstream answer not cached');
      throw new UpstreamError(`The upstream of '${repo.key}' answered '${path}' with ${why}: not cached`);
    }
    this.misses.delete(`${repo.id}\u0000${path}`);
    try {
      return await this.store(repo, path, blob, via);
    } finally {
      await blob.hold?.release().catch(() => {}); // issue 21: the cached file's row holds the bytes now
    }
  }

  /** The format's rule for what the upstream's answer at `path` must be (`false`: never asked). */
  private async checkFor(repo: RepoConfig, path: string): Promise<UpstreamCheck | false | null> {
    const format = this.ctx().formats.get(repo.packageType);
    if (!format?.upstreamCheck) return null;
    return format.upstreamCheck(path, this.checkContext(repo));
  }

  /** Runs a format's `verify` on stored bytes; any failure (a wrong package, an archive past the limits) is a 502. */
  private async verify(
    repo: RepoConfig,
    path: string,
    blob: BlobInfo,
    verify: NonNullable<UpstreamCheck['verify']>,
  ): Promise<void> {
    const ctx = this.ctx();
    try {
      await verify({ path, ...blob, open: async () => Readable.from(await ctx.blobs.get(blob.sha256)) });
    } catch (err) {
      const limit = archiveLimitOf(err);
      const message = (limit ?? (err as Error)).message;
      ctx.log.warn({ repo: repo.key, path, reason: message }, 'upstream answer not cached');
      throw new UpstreamError(
        limit
          ? `The upstream of '${repo.key}' sent an archive the server refuses for '${path}': ${message}`
          : `The upstream of '${repo.key}' answered '${path}' with ${message}: not cached`,
      );
    }
  }

  /** What a format's `upstreamCheck` may use (the server's own view of the remote). */
  private checkContext(repo: RepoConfig): UpstreamCheckContext {
    const ctx = this.ctx();
    const remote = repo.remote!;
    const repository: FormatRepository = {
      key: repo.key,
      rclass: repo.rclass,
      packageType: repo.packageType,
      description: repo.description,
      url: remote.url,
      remote: {
        url: remote.url,
        offline: remote.offline,
        retrievalCachePeriodSecs: remote.retrievalCachePeriodSecs,
        storeArtifactsLocally: remote.storeArtifactsLocally,
        namespaceConfusionProtection: remote.namespaceConfusionProtection ?? true,
      },
    };
    const fileOf = (row: ArtifactRow): UpstreamFile => ({
      path: row.path,
      size: row.size,
      sha256: row.sha256,
      sha1: row.sha1,
      md5: row.md5,
      open: async () => Readable.from(await ctx.blobs.get(row.sha256)),
    });
    return {
      repository,
      log: ctx.log.child({ repo: repo.key }),
      get: async (path, opts = {}) => {
        const row = await findArtifactForRead(ctx.db, repo.id, path);
        const format = ctx.formats.get(repo.packageType);
        const metadata = format?.isMetadataPath && ((p: string) => format.isMetadataPath!(p));
        // Checked against what clients see: a stale index document is revalidated first.
        if (row)
          return fileOf(
            opts.refresh || isStale(repo, row, Date.now(), metadata || undefined)
              ? await this.revalidate(repo, row)
              : row,
          );
        const fetched = await this.fetch(repo, path, false);
        if (!fetched) return null;
        if ('artifact' in fetched) return fileOf(fetched.artifact);
        fetched.stream.destroy();
        return null;
      },
      upstream: async (path, opts = {}) => {
        const max = opts.maxBytes ?? CHECK_BODY_BYTES;
        const res = await this.request(repo, path, {});
        const body = res.body
          ? await readBounded(
              Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>),
              max,
              () =>
                new UpstreamError(`The upstream of '${repo.key}' sent more than ${max} bytes for '${path}'`),
            )
          : Buffer.alloc(0);
        return { status: res.status, headers: res.headers, body };
      },
    };
  }

  private rememberMiss(repo: RepoConfig, path: string): void {
    const secs = repo.remote?.missedRetrievalCachePeriodSecs ?? 0;
    if (secs <= 0) return;
    if (this.misses.size >= MAX_MISSES) this.misses.clear();
    this.misses.set(`${repo.id}\u0000${path}`, Date.now() + secs * 1000);
  }

  /** Forgets remembered misses of a repository (its configuration changed), or those at or below `path`; how many. */
  forget(repoId: string, path?: string): number {
    let forgotten = 0;
    for (const id of this.misses.keys()) {
      if (!id.startsWith(`${repoId}\u0000`)) continue;
      const missed = id.slice(repoId.length + 1);
      if (path && missed !== path && !missed.startsWith(`${path}/`)) continue;
      this.misses.delete(id);
      forgotten += 1;
    }
    return forgotten;
  }
}
