import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { httpStatusOf } from '../../platform/http/error-status.ts';
import type { RepositoryHandle, RequestContext } from '../sdk/format.ts';
import { packagesOf, REPODATA, REPOMD, readStored } from './index-builder.ts';
import { buildRepodata, MAX_REPOMD_BYTES, type RepoPackage } from './repodata.ts';
import { RpmError } from './respond.ts';

/**
 * The YUM protocol's documents: `repodata/repomd.xml` and the files it names, its detached signature
 * `repodata/repomd.xml.asc` (made on request with the repository's key), and that key at
 * `repodata/repomd.xml.key` (the path openSUSE's and Artifactory's YUM repositories use). Local:
 * the stored, regenerated repodata. Remote: the upstream's repodata, cached, signed with the remote's
 * own key (clients trust Granary's key, not the upstream's). Virtual: the members' repodata merged —
 * local members first, a package name a local member holds never offered by a remote member, the
 * first member's file winning a shared path — signed with the virtual repository's key.
 */

export const SIGNATURE = `${REPOMD}.asc`;
export const PUBLIC_KEY = `${REPOMD}.key`;

/**
 * The repodata of a local repository no package was ever uploaded to (nothing stored yet): dnf reads
 * an empty repository rather than a 404. The same bytes every time (no timestamps in the gzip headers).
 */
const EMPTY = (() => {
  const { files, repomd } = buildRepodata([], 0);
  return { repomd, files: new Map(files.map((f) => [f.path, f.bytes])) };
})();

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

const isServerError = (err: unknown) => {
  const status = httpStatusOf(err) ?? (err as { status?: unknown }).status;
  return typeof status === 'number' && status >= 500;
};

interface Merged {
  inputs: string;
  repomd: Buffer;
  files: Map<string, Buffer>;
  /** the previous generation's files, for a client that read the previous repomd.xml a moment ago */
  previous: Map<string, Buffer>;
}
/** Virtual repositories' merged repodata (by repository and visible members), while the members' repomd.xml stay the same. */
const mergedCache = new Map<string, Merged>();
/** Signatures made, by repository, key and repomd digest (signing costs more than a lookup). */
const signatures = new Map<string, string>();

async function rpmMembers(ctx: RepositoryHandle): Promise<RepositoryHandle[]> {
  const members = (await ctx.members()).filter(
    (m) => m.repository.packageType === ctx.repository.packageType,
  );
  // local members first, each class in resolution order
  return [
    ...members.filter((m) => m.repository.rclass === 'local'),
    ...members.filter((m) => m.repository.rclass !== 'local'),
  ];
}

/** The merged repodata of a virtual repository (rebuilt when a member's repomd.xml changed). */
export async function virtualRepodata(ctx: RepositoryHandle): Promise<Merged> {
  const members = await rpmMembers(ctx);
  const found: { member: RepositoryHandle; repomdSha: string }[] = [];
  for (const m of members) {
    try {
      const repomd = await m.get(REPOMD);
      if (repomd) found.push({ member: m, repomdSha: repomd.sha256 });
    } catch (err) {
      if (!isServerError(err)) throw err;
      ctx.log.warn({ member: m.repository.key, err: (err as Error).message }, 'rpm member failed');
    }
  }
  const inputs = found.map((f) => `${f.member.repository.key}:${f.repomdSha}`).join('|');
  // One entry per set of members a caller may read: nobody is served a merge of members hidden from them.
  const cacheKey = `${ctx.repository.key}|${members.map((m) => m.repository.key).join(',')}`;
  const cached = mergedCache.get(cacheKey);
  if (cached?.inputs === inputs) return cached;

  const localNames = new Set<string>();
  const locations = new Set<string>();
  const merged: RepoPackage[] = [];
  for (const { member } of found) {
    let pkgs: RepoPackage[] | null;
    try {
      pkgs = await packagesOf(member);
    } catch (err) {
      ctx.log.warn(
        { member: member.repository.key, err: (err as Error).message },
        'rpm member repodata unreadable',
      );
      continue;
    }
    const local = member.repository.rclass === 'local';
    for (const p of pkgs ?? []) {
      if (!local && localNames.has(p.name)) continue;
      if (locations.has(p.location)) continue;
      locations.add(p.location);
      merged.push(p);
    }
    if (local) for (const p of pkgs ?? []) localNames.add(p.name);
  }
  const { files, repomd } = buildRepodata(merged, Math.floor(Date.now() / 1000));
  const result: Merged = {
    inputs,
    repomd,
    files: new Map(files.map((f) => [f.path, f.bytes])),
    previous: cached?.files ?? new Map(),
  };
  if (mergedCache.size > 200) mergedCache.clear();
  mergedCache.set(cacheKey, result);
  return result;
}

const TYPES: Record<string, string> = {
  xml: 'text/xml; charset=utf-8',
  gz: 'application/gzip',
  asc: 'application/pgp-signature',
  key: 'application/pgp-keys',
};
const typeOf = (path: string) => TYPES[path.slice(path.lastIndexOf('.') + 1)] ?? 'application/octet-stream';

function sendBytes(reply: FastifyReply, path: string, body: Buffer | string) {
  return reply.code(200).header('cache-control', 'no-cache').type(typeOf(path)).send(body);
}

/** The repomd.xml a repository answers: stored (local; the empty one before any upload), cached (remote) or merged (virtual). */
async function repomdOf(ctx: RequestContext): Promise<Buffer | null> {
  if (ctx.repository.rclass === 'virtual') return (await virtualRepodata(ctx)).repomd;
  const file = await ctx.get(REPOMD);
  if (!file && ctx.repository.rclass === 'local') return EMPTY.repomd;
  return file ? readStored(file, MAX_REPOMD_BYTES) : null;
}

/** A detached signature over the repomd.xml the repository answers, with its own key. */
async function signatureOf(ctx: RequestContext, repomd: Buffer): Promise<string> {
  const key = `${ctx.repository.key}:${await ctx.signing.fingerprint()}:${sha256(repomd)}`;
  const cached = signatures.get(key);
  if (cached) return cached;
  const signature = await ctx.signing.signDetached(repomd);
  if (signatures.size > 1000) signatures.clear();
  signatures.set(key, signature);
  return signature;
}

/** Answers a GET or HEAD of a path under `repodata/`; false when the path is not repodata. */
export async function serveRepodata(
  reply: FastifyReply,
  ctx: RequestContext,
  path: string,
): Promise<boolean> {
  if (!path.startsWith(`${REPODATA}/`)) return false;
  await ctx.authorize('read', path);
  if (path === PUBLIC_KEY) {
    await sendBytes(reply, path, await ctx.signing.publicKey());
    return true;
  }
  if (path === REPOMD || path === SIGNATURE) {
    const repomd = await repomdOf(ctx);
    if (!repomd) throw new RpmError(404, `'${ctx.repository.key}' has no repodata`);
    await sendBytes(reply, path, path === REPOMD ? repomd : await signatureOf(ctx, repomd));
    return true;
  }
  if (ctx.repository.rclass === 'virtual') {
    const merged = await virtualRepodata(ctx);
    const bytes = merged.files.get(path) ?? merged.previous.get(path);
    if (!bytes) throw new RpmError(404, `${path} not found in '${ctx.repository.key}'`);
    await sendBytes(reply, path, bytes);
    return true;
  }
  const file = await ctx.get(path);
  if (file) {
    await ctx.send(reply, file);
    return true;
  }
  const empty = ctx.repository.rclass === 'local' ? EMPTY.files.get(path) : undefined;
  if (empty && !(await ctx.stat(REPOMD))) {
    await sendBytes(reply, path, empty);
    return true;
  }
  throw new RpmError(404, `${path} not found in '${ctx.repository.key}'`);
}
