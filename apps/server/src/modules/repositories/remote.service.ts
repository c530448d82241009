import { once } from 'node:events';
import { PassThrough, Readable } from 'node:stream';
import type { ExpectedChecksums } from '../../platform/blobs/index.ts';
import { publish } from '../../platform/events/index.ts';
import { DomainError } from '../../platform/http/errors.ts';
import { type ArtifactRow, changeArtifacts, markFetched, upsertArtifact } from './artifacts.queries.ts';
import type { RepositoriesContext } from './context.ts';
import { extractFor, indexStored, unindexPaths } from './indexing.ts';
import { mimeTypeOf } from './mime.ts';
import type { RepoConfig } from './repositories.service.ts';

export class UpstreamError extends DomainError {
  constructor(message: string) {
    super(502, 'UPSTREAM_FAILED', message);
  }
}

export type FetchOutcome =
  | { artifact: ArtifactRow }
  | { stream: Readable; size?: number; done: Promise<ArtifactRow | null> }
  | null;

const HEX = /^[0-9a-f]+$/i;
const MAX_MISSES = 10_000;
const MAX_ETAGS = 100_000;

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
 * repository's missed-retrieval period.
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
  async revalidate(repo: RepoConfig, artifact: ArtifactRow): Promise<ArtifactRow> {
    if (!repo.remote || repo.remote.offline) return artifact;
    const id = `${repo.id}\u0000${artifact.path}`;
    const running = this.inflight.get(id);
    if (running) return (await running.catch(() => null)) ?? artifact;
    const done = this.retrieve(repo, artifact.path, undefined, artifact).finally(() =>
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
      headers.authorization = `Basic ${Buffer.from(`${remote.username}:${repo.password ?? ''}`).toString('base64')}`;
    this.upstreamRequests += 1;
    try {
      return await ctx.outbound.fetch(url, { headers });
    } catch (err) {
      ctx.log.warn({ repo: repo.key, path, err: (err as Error).message }, 'upstream request failed');
      throw new UpstreamError(`The upstream of '${repo.key}' could not be reached`);
    }
  }

  async fetch(repo: RepoConfig, path: string, wantStream: boolean): Promise<FetchOutcome> {
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
    const done = this.retrieve(repo, path, streamTo).finally(() => this.inflight.delete(id));
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
  ): Promise<ArtifactRow | null> {
    const ctx = this.ctx();
    const id = `${repo.id}\u0000${path}`;
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
    const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
    let client: PassThrough | undefined;
    if (streamTo) {
      client = new PassThrough();
      streamTo({ stream: client, size: expected.size });
    }
    const tee = async function* (): AsyncGenerator<Uint8Array> {
      let clientGone = false;
      client?.once('close', () => {
        clientGone = true;
      });
      for await (const chunk of body as AsyncIterable<Uint8Array>) {
        if (client && !clientGone && !client.write(chunk)) {
          await Promise.race([once(client, 'drain'), once(client, 'close')]).catch(() => {});
        }
        yield chunk;
      }
    };
    let blob: Awaited<ReturnType<typeof ctx.blobs.put>>;
    try {
      blob = await ctx.blobs.put(tee(), expected);
    } catch (err) {
      // Cut short or wrong: the client must see a broken answer, and nothing is cached.
      client?.destroy(err as Error);
      body.destroy();
      ctx.log.warn({ repo: repo.key, path, err: (err as Error).message }, 'upstream answer not cached');
      throw new UpstreamError(`The upstream of '${repo.key}' sent an incomplete or corrupt answer`);
    }
    const etag = res.headers.get('etag');
    if (etag) {
      if (this.etags.size >= MAX_ETAGS) this.etags.clear();
      this.etags.set(id, etag);
    } else this.etags.delete(id);
    // The client's answer ends once the file is cached: what it just received is then listed and zappable.
    try {
      return await this.store(repo, path, blob);
    } finally {
      client?.end();
    }
  }

  private async store(
    repo: RepoConfig,
    path: string,
    blob: Awaited<ReturnType<RepositoriesContext['blobs']['put']>>,
  ) {
    const meta = await extractFor(this.ctx(), repo, path, blob);
    return changeArtifacts(this.ctx().db, async (tx) => {
      await unindexPaths(tx, repo.id, [path]);
      await indexStored(tx, repo, path, blob, meta);
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
      await publish(tx, {
        type: 'artifact.cached',
        payload: { repo: repo.key, path, size: blob.size, sha256: blob.sha256 },
      });
      return row;
    });
  }

  /** Caches bytes a format fetched from the upstream itself (rewritten index documents, …). */
  async cacheBytes(
    repo: RepoConfig,
    path: string,
    source: Readable,
    expected: ExpectedChecksums,
  ): Promise<ArtifactRow> {
    const blob = await this.ctx().blobs.put(source, expected);
    this.misses.delete(`${repo.id}\u0000${path}`);
    return this.store(repo, path, blob);
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
