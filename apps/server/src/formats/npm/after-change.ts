import { createHash } from 'node:crypto';
import type { FormatFile, PathsChange, RepositoryHandle } from '../sdk/format.ts';
import { forget, type Manifest, type VersionRecord } from './index-builder.ts';
import { readTarball } from './metadata.ts';
import {
  isValidName,
  META_ROOT,
  tarballPath,
  versionOfTarball,
  versionRecordPath,
  versionsFolder,
} from './names.ts';

/**
 * `afterChange` for npm: a local packument is derived from the version records under
 * `.npm/{name}/versions/`, so tarballs deleted, copied or moved by the core (tree browser, `/api/copy`,
 * `/api/move`) leave it naming versions whose tarball is gone, or missing versions whose tarball came.
 * For every package touched, the records are brought back in line with the tarballs: a record whose
 * tarball is gone goes; a tarball without a record gets one, read from its package.json (published at
 * the file's creation, no dist-tag of its own: `latest` falls back to the highest version).
 */
export async function npmAfterChange(ctx: RepositoryHandle, change: PathsChange): Promise<void> {
  if (ctx.repository.rclass !== 'local') return;
  const names = new Set<string>();
  for (const path of [...(change.deleted ?? []), ...(change.added ?? [])])
    for (const name of await namesAt(ctx, path)) names.add(name);
  for (const name of names)
    await ctx.withLock(name, async () => {
      forget(ctx, name);
      try {
        await reconcile(ctx, name);
      } finally {
        forget(ctx, name);
      }
    });
}

/** Package names a changed path may concern: its own, or (a scope or the root) every name with records there. */
async function namesAt(ctx: RepositoryHandle, raw: string): Promise<string[]> {
  const path =
    raw === META_ROOT ? '' : raw.startsWith(`${META_ROOT}/`) ? raw.slice(META_ROOT.length + 1) : raw;
  const parts = path.split('/').filter(Boolean);
  const scoped = parts[0]?.startsWith('@');
  if (parts.length >= (scoped ? 2 : 1)) {
    const name = parts.slice(0, scoped ? 2 : 1).join('/');
    return isValidName(name) ? [name] : [];
  }
  const below = parts.length === 0 ? META_ROOT : `${META_ROOT}/${parts[0]}`;
  const found = new Set<string>();
  for (const f of await ctx.listFiles(below)) {
    const m = /^\.npm\/((?:@[^/]+\/)?[^/@]+)\/versions\/[^/]+\.json$/.exec(f.path);
    if (m) found.add(m[1]!);
  }
  return [...found];
}

async function reconcile(ctx: RepositoryHandle, name: string): Promise<void> {
  const records = new Map<string, string>();
  for (const f of await ctx.listFiles(versionsFolder(name))) {
    const file = f.path.slice(versionsFolder(name).length + 1);
    if (!file.includes('/') && file.endsWith('.json')) records.set(file.slice(0, -'.json'.length), f.path);
  }
  const tarballs = new Map<string, FormatFile>();
  for (const f of await ctx.listFiles(`${name}/-`)) {
    const version = versionOfTarball(name, f.path.split('/').at(-1)!);
    if (version && f.path === tarballPath(name, version)) tarballs.set(version, f);
  }
  for (const [version, path] of records) if (!tarballs.has(version)) await ctx.delete(path);
  for (const [version, file] of tarballs) {
    if (records.has(version)) continue;
    try {
      await ctx.deploy(versionRecordPath(name, version), Buffer.from(JSON.stringify(await recordOf(file))), {
        noOverwrite: true,
        metadata: null,
      });
    } catch (err) {
      ctx.log.warn(
        { path: file.path, err: (err as Error).message },
        'npm tarball without a version record left unlisted',
      );
    }
  }
}

/** The version record of a tarball that arrived without one: its package.json, the dist checksums of its bytes. */
async function recordOf(file: FormatFile): Promise<VersionRecord> {
  const contents = await readTarball(await file.open());
  const hash = createHash('sha512');
  for await (const chunk of await file.open()) hash.update(chunk as Buffer);
  const { name, version } = contents.manifest;
  const expected = file.path.split('/-/')[0];
  if (
    name !== expected ||
    typeof version !== 'string' ||
    versionOfTarball(String(name), file.path.split('/').at(-1)!) !== version
  )
    throw new Error(`its package.json names ${String(name)}@${String(version)}`);
  const manifest: Manifest = {
    ...(contents.manifest as Manifest),
    _id: `${name}@${version}`,
    dist: { integrity: `sha512-${hash.digest('base64')}`, shasum: file.sha1 },
  };
  return {
    manifest,
    tags: [],
    publishedAt: file.createdAt.toISOString(),
    publisher: file.createdBy,
    readme: contents.readme,
    readmeFilename: contents.readmeFilename,
  };
}
