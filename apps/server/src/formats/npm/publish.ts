import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import semver from 'semver';
import { NotFoundError } from '../../platform/errors.ts';
import type { RepositoryHandle, RequestContext } from '../sdk/format.ts';
import { readBounded } from '../sdk/helpers.ts';
import {
  forget,
  localPackument,
  type Manifest,
  type PackageEvent,
  type Packument,
  revOf,
  type VersionRecord,
} from './index-builder.ts';
import { packageMetadata, readTarball, TarballError } from './metadata.ts';
import {
  eventsFolder,
  metaFolder,
  tarballFile,
  tarballPath,
  versionOfTarball,
  versionRecordPath,
} from './names.ts';

/**
 * An npm protocol error: the error handler keeps its status and message for 4xx, and the format's
 * errorBody renders it as npm's `{error}`, which the client prints.
 */
export class NpmError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** Largest JSON document of any other npm call. */
export const MAX_JSON_BYTES = 8 * 1024 * 1024;

export interface BodyLimit {
  /** the request's Content-Length: a larger announced body is refused before a byte is read */
  announced?: string | string[];
  /** the setting that raises the limit, named in the refusal */
  setting?: string;
}

/**
 * Reads a request body whole, refusing one over `max` bytes with 413 before it is buffered: an
 * announced length over the limit is refused at once, and reading stops at the limit. The rest is
 * discarded unread, never buffered (npm's errorBody closes the connection on a 413).
 */
export function readBody(body: Readable, max: number, limit: BodyLimit = {}): Promise<Buffer> {
  const where = limit.setting ? ` (${limit.setting})` : '';
  // Drained, not destroyed: the request's socket carries the 413.
  return readBounded(
    body,
    max,
    () => new NpmError(413, `The request body is larger than the limit of ${max} bytes${where}`),
    { announced: limit.announced, rest: 'drain' },
  );
}

export async function readJsonBody(
  body: Readable,
  max = MAX_JSON_BYTES,
  limit: BodyLimit = {},
): Promise<unknown> {
  const bytes = await readBody(body, max, limit);
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    throw new NpmError(400, 'The request body is not valid JSON');
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

/** Fields a publish document carries that are not part of the version (provenance, client internals). */
const DROPPED_FIELDS = ['_attachments', '_rev', '_revisions', 'readme', 'readmeFilename'];

/** A dist-tag name npm accepts: not empty, and not something a version range would be read as. */
export function checkTag(tag: string): void {
  if (!tag || tag.length > 100 || /[\s/%]/.test(tag) || semver.validRange(tag))
    throw new NpmError(400, `Invalid dist-tag '${tag}': a tag must not be a version or range`);
}

/** Runs a change of a package under its lock; what this node cached of it is dropped before and after. */
async function changing<T>(target: RepositoryHandle, name: string, fn: () => Promise<T>): Promise<T> {
  return target.withLock(name, async () => {
    forget(target, name);
    try {
      return await fn();
    } finally {
      forget(target, name);
    }
  });
}

let sequence = 0;
/** A new event's path: time first, so the folder lists in the order things happened. */
function eventPath(name: string): string {
  sequence = (sequence + 1) % 1_000_000;
  const stamp = `${Date.now().toString().padStart(15, '0')}-${sequence.toString().padStart(6, '0')}`;
  return `${eventsFolder(name)}/${stamp}-${randomBytes(4).toString('hex')}.json`;
}

export async function writeEvent(ctx: RepositoryHandle, name: string, event: PackageEvent): Promise<void> {
  await ctx.deploy(eventPath(name), Buffer.from(JSON.stringify(event)), {
    noOverwrite: true,
    metadata: null,
  });
}

/**
 * `npm publish`: one version, its tarball attached base64. Checked before anything is stored: the
 * name in the URL, the document and the tarball's package.json agree; the attachment's announced
 * length and the manifest's integrity/shasum match the bytes. A version once published never
 * changes (npm's own refusal); concurrent publishes of different versions each write their own
 * files, so none is lost.
 */
export async function publish(ctx: RequestContext, name: string, doc: Record<string, unknown>) {
  const target = await ctx.deployContext();
  const versions = isObject(doc.versions) ? doc.versions : {};
  const keys = Object.keys(versions);
  if (keys.length !== 1) throw new NpmError(400, 'A publish must carry exactly one version');
  const version = keys[0]!;
  if (!semver.valid(version) || semver.clean(version) !== version)
    throw new NpmError(400, `Invalid version: '${version}'`);
  const manifest = versions[version];
  if (!isObject(manifest)) throw new NpmError(400, `The manifest of version ${version} is not an object`);
  if (manifest.name !== name || manifest.version !== version)
    throw new NpmError(
      400,
      `The manifest names ${String(manifest.name)}@${String(manifest.version)}, not ${name}@${version}`,
    );
  if (doc.name !== undefined && doc.name !== name)
    throw new NpmError(400, `The document names package '${String(doc.name)}', not '${name}'`);

  const attachments = isObject(doc._attachments) ? doc._attachments : {};
  // Provenance bundles (`*.sigstore`) travel as extra attachments: ignored.
  const tarballs = Object.entries(attachments).filter(([file]) => file.endsWith('.tgz'));
  if (tarballs.length !== 1) throw new NpmError(400, 'A publish must attach exactly one package tarball');
  const [file, attachment] = tarballs[0]!;
  // npm names a scoped package's attachment `@scope/pkg-1.0.0.tgz`; the stored file is `pkg-1.0.0.tgz`.
  if (file !== tarballFile(name, version) && file !== `${name}-${version}.tgz`)
    throw new NpmError(400, `The attachment is '${file}', expected '${tarballFile(name, version)}'`);
  if (!isObject(attachment) || typeof attachment.data !== 'string')
    throw new NpmError(400, 'The attachment carries no base64 data');
  const data = Buffer.from(attachment.data, 'base64');
  if (attachment.length !== undefined && attachment.length !== data.length)
    throw new NpmError(
      400,
      `The attachment is ${data.length} bytes but announces ${String(attachment.length)}: nothing was stored`,
    );
  const integrity = `sha512-${createHash('sha512').update(data).digest('base64')}`;
  const shasum = createHash('sha1').update(data).digest('hex');
  const dist = isObject(manifest.dist) ? manifest.dist : {};
  if (dist.integrity !== undefined && dist.integrity !== integrity)
    throw new NpmError(
      400,
      `Integrity mismatch: the manifest says ${String(dist.integrity)} but the tarball's is ${integrity}; nothing was stored`,
    );
  if (dist.shasum !== undefined && dist.shasum !== shasum)
    throw new NpmError(
      400,
      `Shasum mismatch: the manifest says ${String(dist.shasum)} but the tarball's is ${shasum}; nothing was stored`,
    );

  let contents: Awaited<ReturnType<typeof readTarball>>;
  try {
    contents = await readTarball(data);
  } catch (err) {
    if (err instanceof TarballError) throw new NpmError(400, `The tarball is not a package: ${err.message}`);
    throw err;
  }
  if (contents.manifest.name !== name || contents.manifest.version !== version)
    throw new NpmError(
      400,
      `The tarball's package.json names ${String(contents.manifest.name)}@${String(contents.manifest.version)}, not ${name}@${version}`,
    );

  const requested = isObject(doc['dist-tags']) ? doc['dist-tags'] : {};
  const tags = Object.entries(requested)
    .filter(([, v]) => v === version)
    .map(([t]) => t);
  for (const t of tags) checkTag(t);
  const stored: Manifest = { ...(manifest as Manifest) };
  for (const f of DROPPED_FIELDS) delete stored[f];
  stored._id = `${name}@${version}`;
  stored.dist = {
    ...(typeof dist.fileCount === 'number' ? { fileCount: dist.fileCount } : {}),
    ...(typeof dist.unpackedSize === 'number' ? { unpackedSize: dist.unpackedSize } : {}),
    integrity,
    shasum,
  };
  const readme = typeof doc.readme === 'string' && doc.readme ? doc.readme : contents.readme;
  const record: VersionRecord = {
    manifest: stored,
    tags: tags.length ? tags : ['latest'],
    publishedAt: new Date().toISOString(),
    publisher: ctx.principal?.name,
    readme,
    readmeFilename: typeof doc.readmeFilename === 'string' ? doc.readmeFilename : contents.readmeFilename,
  };

  await changing(target, name, async () => {
    if (await target.stat(versionRecordPath(name, version)))
      throw new NpmError(403, `You cannot publish over the previously published versions: ${version}.`);
    // issue 24: both files' bytes first, then both files in one commit: the version is wholly there
    // or wholly absent, and one publish costs one transaction. The two files are written at once:
    // each waits mostly on its own fsyncs (server-side publish ×50, scanning off: 2.0 → 1.5–1.7 s).
    const writes = [
      target.spool(tarballPath(name, version), Readable.from([data]), {
        expected: { sha1: shasum, size: data.length },
      }),
      target.spool(versionRecordPath(name, version), Readable.from([Buffer.from(JSON.stringify(record))])),
    ];
    const settled = await Promise.allSettled(writes);
    const spooled = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    try {
      for (const r of settled) if (r.status === 'rejected') throw r.reason;
      await target.link(
        [
          {
            path: tarballPath(name, version),
            spooled: spooled[0]!,
            metadata: packageMetadata({ ...contents, readme }),
          },
          { path: versionRecordPath(name, version), spooled: spooled[1]!, metadata: null },
        ],
        { noOverwrite: true },
      );
    } finally {
      for (const s of spooled) await s.release().catch(() => {});
    }
  });
  return { ok: true, id: name, success: true };
}

async function removeVersion(ctx: RepositoryHandle, name: string, version: string): Promise<void> {
  await ctx.authorize('delete', tarballPath(name, version));
  for (const path of [versionRecordPath(name, version), tarballPath(name, version)])
    await ctx.delete(path).catch((err: unknown) => {
      if (!(err instanceof NotFoundError)) throw err;
    });
}

async function current(ctx: RepositoryHandle, name: string): Promise<Packument> {
  const p = await localPackument(ctx, name);
  if (!p) throw new NpmError(404, `Package '${name}' not found`);
  return p;
}

/**
 * A packument PUT without a tarball: `npm deprecate` (versions' `deprecated` changed) and the first
 * step of `npm unpublish pkg@version` (a version left out: removed, which needs delete permission).
 */
export async function updatePackage(ctx: RequestContext, name: string, doc: Record<string, unknown>) {
  const target = await ctx.deployContext();
  const incoming = isObject(doc.versions) ? doc.versions : null;
  if (!incoming) throw new NpmError(400, 'The document carries no versions');
  await changing(target, name, async () => {
    const now = await current(target, name);
    const removed = Object.keys(now.versions).filter((v) => !(v in incoming));
    for (const v of removed) await removeVersion(target, name, v);
    for (const [v, m] of Object.entries(incoming)) {
      const have = now.versions[v];
      if (!have || !isObject(m)) continue;
      const want = typeof m.deprecated === 'string' ? m.deprecated : '';
      if (want === (have.deprecated ?? '')) continue;
      await writeEvent(target, name, {
        type: 'deprecate',
        version: v,
        message: want,
        at: new Date().toISOString(),
        by: ctx.principal?.name,
      });
    }
  });
  const after = await localPackument(target, name);
  return { ok: true, id: name, rev: after ? revOf(after) : '0' };
}

/** `npm unpublish pkg` (all versions): `DELETE /{name}/-rev/{rev}`. */
export async function unpublishAll(ctx: RepositoryHandle, name: string) {
  const target = await ctx.deployContext();
  await changing(target, name, async () => {
    await current(target, name);
    await target.authorize('delete', name);
    await target.authorize('delete', metaFolder(name));
    await target.delete(name).catch((err: unknown) => {
      if (!(err instanceof NotFoundError)) throw err;
    });
    await target.delete(metaFolder(name));
  });
  return { ok: true, id: name };
}

/** The last step of `npm unpublish pkg@version`, or a plain DELETE of a tarball: the version goes. */
export async function deleteTarball(ctx: RepositoryHandle, name: string, file: string) {
  const target = await ctx.deployContext();
  const version = versionOfTarball(name, file);
  if (!version) throw new NpmError(404, `'${file}' is not a tarball of '${name}'`);
  await changing(target, name, async () => {
    const exists =
      (await target.stat(tarballPath(name, version))) ||
      (await target.stat(versionRecordPath(name, version)));
    if (!exists) return;
    await removeVersion(target, name, version);
  });
  return { ok: true };
}

/** `npm dist-tag add pkg@version tag` (write), `npm dist-tag rm pkg tag` (delete). */
export async function setTag(ctx: RequestContext, name: string, tag: string, version: string | null) {
  const target = await ctx.deployContext();
  checkTag(tag);
  await changing(target, name, async () => {
    const now = await current(target, name);
    if (version === null) {
      if (tag === 'latest') throw new NpmError(400, "The 'latest' tag cannot be removed");
      if (!now['dist-tags'][tag]) throw new NpmError(404, `'${name}' has no dist-tag '${tag}'`);
      await target.authorize('delete', eventsFolder(name));
    } else if (!now.versions[version]) throw new NpmError(404, `'${name}' has no version ${version}`);
    await writeEvent(target, name, {
      type: 'tag',
      tag,
      version,
      at: new Date().toISOString(),
      by: ctx.principal?.name,
    });
  });
  const after = await current(target, name);
  return after['dist-tags'];
}
