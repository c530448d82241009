import type { FastifyReply } from 'fastify';
import semver from 'semver';
import { UpstreamError } from '../../platform/errors.ts';
import { loadOpenpgp } from '../../platform/openpgp/index.ts';
import type { FormatFile, RepositoryHandle, RequestContext } from '../sdk/format.ts';
import { MAX_ARCHIVE_BYTES } from './archive.ts';
import { TerraformError } from './errors.ts';
import { membersFor, tolerant } from './members.ts';
import {
  isVersion,
  type ProviderAddress,
  parseProviderPath,
  providerFolder,
  providerId,
  providerZip,
  providerZipName,
  shasumsName,
} from './names.ts';
import { servicePath, upstreamJson, upstreamUrl } from './upstream.ts';

/**
 * The provider registry protocol (https://developer.hashicorp.com/terraform/internals/provider-registry-protocol):
 * `…/{namespace}/{type}/versions` and `…/{version}/download/{os}/{arch}`. A local repository's
 * `SHA256SUMS` lists the version's stored zips and is signed with the repository's OpenPGP key
 * (`RepositoryHandle.signing`), which the download answer names, so terraform verifies the package as
 * it verifies HashiCorp's. A remote passes on its upstream's sums, signature and keys untouched (the
 * zips are the same bytes); a virtual answers with the member that has the version.
 */

export interface ProviderVersion {
  version: string;
  protocols: string[];
  platforms: { os: string; arch: string }[];
}

/** Provider protocols a package speaks when its upload named none (`;terraform.protocols=6.0`). */
export const DEFAULT_PROTOCOLS = ['5.0'];
const PROTOCOLS = 'terraform.protocols';

const protocolsOf = (file: FormatFile) => {
  const listed = (file.properties[PROTOCOLS] ?? []).flatMap((p) => p.split(','));
  const valid = listed.map((p) => p.trim()).filter((p) => /^\d+(\.\d+)?$/.test(p));
  return valid.length ? valid : DEFAULT_PROTOCOLS;
};

async function localVersionFiles(h: RepositoryHandle, p: ProviderAddress, version: string) {
  const folder = `${providerFolder(p)}/${version}`;
  const files: FormatFile[] = [];
  for (const e of await h.list(folder)) {
    if (e.folder || !parseProviderPath(`${folder}/${e.name}`)) continue;
    const file = await h.stat(`${folder}/${e.name}`);
    if (file) files.push(file);
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : 1));
}

async function localVersions(h: RepositoryHandle, p: ProviderAddress): Promise<ProviderVersion[] | null> {
  const out: ProviderVersion[] = [];
  for (const e of await h.list(providerFolder(p))) {
    if (!e.folder || !isVersion(e.name)) continue;
    const files = await localVersionFiles(h, p, e.name);
    if (!files.length) continue;
    out.push({
      version: e.name,
      protocols: protocolsOf(files[0]!),
      platforms: files.map((f) => {
        const at = parseProviderPath(f.path)!;
        return { os: at.os, arch: at.arch };
      }),
    });
  }
  return out.length ? out : null;
}

async function remoteVersions(h: RepositoryHandle, p: ProviderAddress): Promise<ProviderVersion[] | null> {
  const doc = await upstreamJson(h, `${await servicePath(h, 'providers.v1')}${providerFolder(p)}/versions`);
  if (!doc || !Array.isArray(doc.versions)) return null;
  const out: ProviderVersion[] = [];
  for (const v of doc.versions as Partial<ProviderVersion>[]) {
    if (typeof v?.version !== 'string' || !semver.valid(v.version)) continue;
    out.push({
      version: v.version,
      protocols: Array.isArray(v.protocols) ? v.protocols.filter((x) => typeof x === 'string') : [],
      platforms: Array.isArray(v.platforms)
        ? v.platforms.filter((x) => typeof x?.os === 'string' && typeof x?.arch === 'string')
        : [],
    });
  }
  return out;
}

const holds = async (local: RepositoryHandle, p: ProviderAddress) => (await localVersions(local, p)) !== null;

async function versionsOf(ctx: RepositoryHandle, p: ProviderAddress): Promise<ProviderVersion[] | null> {
  if (ctx.repository.rclass === 'local') return localVersions(ctx, p);
  if (ctx.repository.rclass === 'remote') return remoteVersions(ctx, p);
  let found: ProviderVersion[] | null = null;
  for (const m of await membersFor(ctx, (l) => holds(l, p))) {
    if (!(await m.can('read', `${providerFolder(p)}/`))) continue;
    const listed = await tolerant(ctx, m, () => versionsOf(m, p));
    for (const v of listed ?? []) {
      found ??= [];
      if (!found.some((x) => x.version === v.version)) found.push(v);
    }
  }
  return found;
}

/** The member of a virtual repository that answers for a provider version (the first that has it). */
async function ownerOf(ctx: RepositoryHandle, p: ProviderAddress, version: string) {
  if (ctx.repository.rclass !== 'virtual') return ctx;
  for (const m of await membersFor(ctx, (l) => holds(l, p))) {
    if (!(await m.can('read', `${providerFolder(p)}/`))) continue;
    const listed = await tolerant(ctx, m, () => versionsOf(m, p));
    if (listed?.some((v) => v.version === version)) return m;
  }
  return null;
}

/** The repository's signing key as the download answer names it (`signing_keys.gpg_public_keys`). */
async function signingKeys(h: RepositoryHandle) {
  const fingerprint = await h.signing.fingerprint();
  return {
    gpg_public_keys: [
      {
        key_id: fingerprint.slice(-16).toUpperCase(),
        ascii_armor: await h.signing.publicKey(),
        trust_signature: '',
        source: 'Granary',
        source_url: null,
      },
    ],
  };
}

/** A local version's SHA256SUMS: `{sha256}  {filename}` for each stored zip, as HashiCorp's releases list them. */
async function localShasums(
  h: RepositoryHandle,
  p: ProviderAddress,
  version: string,
): Promise<string | null> {
  const files = await localVersionFiles(h, p, version);
  if (!files.length) return null;
  return files.map((f) => `${f.sha256}  ${f.path.split('/').at(-1)}\n`).join('');
}

type DownloadDoc = Record<string, unknown> & {
  filename: string;
  download_url: string;
  shasums_url: string;
  shasums_signature_url: string;
  shasum: string;
};

const downloadPath = (p: ProviderAddress, version: string, os: string, arch: string) =>
  `${providerFolder(p)}/${version}/download/${os}/${arch}`;

/** A remote's download answer of its upstream (cached), or null. */
async function remoteDownload(
  h: RepositoryHandle,
  p: ProviderAddress,
  version: string,
  os: string,
  arch: string,
) {
  const rel = `${await servicePath(h, 'providers.v1')}${downloadPath(p, version, os, arch)}`;
  const doc = await upstreamJson(h, rel);
  if (!doc) return null;
  for (const k of ['filename', 'download_url', 'shasums_url', 'shasums_signature_url', 'shasum'])
    if (typeof doc[k] !== 'string')
      throw new UpstreamError(`The upstream of '${h.repository.key}' answered a download without ${k}`);
  return { rel, doc: doc as DownloadDoc };
}

/** The download answer of a version's package for a platform, its URLs below `urlBase`; null when absent. */
async function downloadOf(
  h: RepositoryHandle,
  p: ProviderAddress,
  version: string,
  os: string,
  arch: string,
  urlBase: string,
): Promise<Record<string, unknown> | null> {
  const folderUrl = `${urlBase}/${providerFolder(p)}/${version}`;
  const sums = `${folderUrl}/${shasumsName(p.type, version)}`;
  if (h.repository.rclass === 'local') {
    const file = await h.stat(providerZip(p, version, os, arch));
    if (!file) return null;
    return {
      protocols: protocolsOf(file),
      os,
      arch,
      filename: providerZipName(p.type, version, os, arch),
      download_url: `${urlBase}/${file.path}`,
      shasums_url: sums,
      shasums_signature_url: `${sums}.sig`,
      shasum: file.sha256,
      signing_keys: await signingKeys(h),
    };
  }
  const found = await remoteDownload(h, p, version, os, arch);
  if (!found) return null;
  return {
    ...found.doc,
    download_url: `${folderUrl}/${providerZipName(p.type, version, os, arch)}`,
    shasums_url: sums,
    shasums_signature_url: `${sums}.sig`,
  };
}

const json = (reply: FastifyReply, body: unknown) =>
  reply.code(200).header('cache-control', 'no-cache').type('application/json').send(body);

export async function serveProviderVersions(reply: FastifyReply, ctx: RequestContext, p: ProviderAddress) {
  await ctx.authorize('read', `${providerFolder(p)}/`);
  const versions = await versionsOf(ctx, p);
  if (!versions)
    throw new TerraformError(404, `Provider ${providerId(p)} not found in '${ctx.repository.key}'`);
  versions.sort((a, b) => semver.compare(a.version, b.version));
  return json(reply, { versions });
}

export async function serveProviderDownload(
  reply: FastifyReply,
  ctx: RequestContext,
  p: ProviderAddress,
  version: string,
  os: string,
  arch: string,
) {
  await ctx.authorize('read', `${providerFolder(p)}/`);
  const owner = await ownerOf(ctx, p, version);
  const doc = owner && (await downloadOf(owner, p, version, os, arch, ctx.repositoryUrl));
  if (!doc)
    throw new TerraformError(
      404,
      `Provider ${providerId(p)} ${version} for ${os}_${arch} not found in '${ctx.repository.key}'`,
    );
  return json(reply, doc);
}

/** A remote's file of a provider version (zip, SHA256SUMS, its signature): cached, or fetched where its upstream says. */
async function remoteProviderFile(
  h: RepositoryHandle,
  p: ProviderAddress,
  version: string,
  filename: string,
): Promise<FormatFile | null> {
  const path = `${providerFolder(p)}/${version}/${filename}`;
  const cached = await h.stat(path);
  if (cached || h.repository.remote?.offline) return cached;
  const zip = parseProviderPath(path);
  let platform = zip && { os: zip.os, arch: zip.arch };
  if (!platform) {
    // The sums are per version: any platform's download answer names them.
    const v = (await remoteVersions(h, p))?.find((x) => x.version === version);
    platform = v?.platforms[0] ?? null;
  }
  if (!platform) return null;
  const found = await remoteDownload(h, p, version, platform.os, platform.arch);
  if (!found) return null;
  const sums = shasumsName(p.type, version);
  const location = zip
    ? found.doc.download_url
    : filename === sums
      ? found.doc.shasums_url
      : filename === `${sums}.sig`
        ? found.doc.shasums_signature_url
        : null;
  if (!location) return null;
  const res = await h.upstream(upstreamUrl(h, found.rel, location), {
    stream: true,
    maxBytes: MAX_ARCHIVE_BYTES,
  });
  if (res.status !== 200) {
    res.stream?.destroy();
    if (res.status === 404) return null;
    throw new UpstreamError(`The upstream of '${h.repository.key}' answered ${res.status} for ${filename}`);
  }
  return h.cache(path, res.stream!, zip ? { expected: { sha256: found.doc.shasum } } : { metadata: null });
}

/**
 * A provider version's files: the zip (a remote's or a virtual's; a local's is served by the core),
 * `SHA256SUMS` and its detached binary signature `SHA256SUMS.sig` (generated and signed for a local).
 */
export async function serveProviderFile(
  reply: FastifyReply,
  ctx: RequestContext,
  p: ProviderAddress,
  version: string,
  filename: string,
) {
  const path = `${providerFolder(p)}/${version}/${filename}`;
  await ctx.authorize('read', path);
  const notFound = () => new TerraformError(404, `'${path}' not found in '${ctx.repository.key}'`);
  const owner = await ownerOf(ctx, p, version);
  if (!owner) throw notFound();
  if (owner.repository.rclass === 'remote') {
    const file = await remoteProviderFile(owner, p, version, filename);
    if (!file) throw notFound();
    return ctx.send(reply, file);
  }
  const sums = shasumsName(p.type, version);
  if (filename === sums || filename === `${sums}.sig`) {
    const text = await localShasums(owner, p, version);
    if (text === null) throw notFound();
    if (filename === sums)
      return reply.code(200).header('cache-control', 'no-cache').type('text/plain; charset=utf-8').send(text);
    const armored = await owner.signing.signDetached(Buffer.from(text));
    const openpgp = await loadOpenpgp();
    const signature = await openpgp.readSignature({ armoredSignature: armored });
    return reply
      .code(200)
      .header('cache-control', 'no-cache')
      .type('application/octet-stream')
      .send(Buffer.from(signature.write()));
  }
  const file = await owner.stat(path);
  if (!file) throw notFound();
  return ctx.send(reply, file);
}
