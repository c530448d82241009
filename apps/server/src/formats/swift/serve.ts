import type { FastifyReply } from 'fastify';
import semver from 'semver';
import { readAtMost } from '../../platform/archives/bounded-archive.ts';
import type { FormatFile, RepositoryHandle, RequestContext } from '../sdk/format.ts';
import { toolsVersionOf } from './archive.ts';
import { SwiftError } from './errors.ts';
import { MANIFEST, type PackageRef, packageFolder, packageId } from './names.ts';
import { normalizeRepositoryUrl, REPOSITORY_URL } from './publish.ts';
import { allReleases, archiveOf, holderOf, JSON_TYPE, manifestsOf, recordOf } from './release.ts';

/** The SE-0292 answers: release lists, release metadata, manifests, source archives, identifiers. */

const json = (reply: FastifyReply, body: unknown) =>
  reply
    .code(200)
    .header('content-version', '1')
    .header('cache-control', 'no-cache')
    .type(JSON_TYPE)
    .send(body);

const releaseUrl = (ctx: RequestContext, p: PackageRef, version: string) =>
  `${ctx.repositoryUrl}/${p.scope}/${p.name}/${version}`;

const notFound = (ctx: RequestContext, what: string) =>
  new SwiftError(404, `${what} not found in '${ctx.repository.key}'`);

/** `GET /{scope}/{name}`: every release with its URL, newest first; `Link` names the latest. */
export async function serveReleases(reply: FastifyReply, ctx: RequestContext, p: PackageRef) {
  await ctx.authorize('read', `${packageFolder(p)}/`);
  const versions = await allReleases(ctx, p);
  if (!versions?.length) throw notFound(ctx, `Package ${packageId(p)}`);
  const latest = versions.find((v) => !semver.prerelease(v)) ?? versions[0]!;
  reply.header(
    'link',
    `<${releaseUrl(ctx, p, latest)}>; rel="latest-version", <${ctx.repositoryUrl}/${p.scope}/${p.name}>; rel="canonical"`,
  );
  return json(reply, {
    releases: Object.fromEntries(versions.map((v) => [v, { url: releaseUrl(ctx, p, v) }])),
  });
}

async function holder(ctx: RequestContext, p: PackageRef, version: string): Promise<RepositoryHandle> {
  await ctx.authorize('read', `${packageFolder(p)}/`);
  const h = await holderOf(ctx, p, version);
  if (!h) throw notFound(ctx, `Release ${version} of ${packageId(p)}`);
  return h;
}

/** `GET /{scope}/{name}/{version}`: the release's id, resources (the archive's checksum), metadata, and its neighbours in `Link`. */
export async function serveRelease(reply: FastifyReply, ctx: RequestContext, p: PackageRef, version: string) {
  const h = await holder(ctx, p, version);
  const record = await recordOf(h, p, version);
  if (!record) throw notFound(ctx, `Release ${version} of ${packageId(p)}`);
  const versions = ((await allReleases(ctx, p)) ?? []).slice().sort(semver.compare);
  const at = versions.indexOf(version);
  const links = [];
  const latest = versions.filter((v) => !semver.prerelease(v)).at(-1) ?? versions.at(-1);
  if (latest) links.push(`<${releaseUrl(ctx, p, latest)}>; rel="latest-version"`);
  if (at >= 0 && at + 1 < versions.length)
    links.push(`<${releaseUrl(ctx, p, versions[at + 1]!)}>; rel="successor-version"`);
  if (at > 0) links.push(`<${releaseUrl(ctx, p, versions[at - 1]!)}>; rel="predecessor-version"`);
  if (links.length) reply.header('link', links.join(', '));
  return json(reply, {
    id: record.id,
    version,
    resources: [{ name: 'source-archive', type: 'application/zip', checksum: record.checksum }],
    metadata: record.metadata,
    publishedAt: record.publishedAt,
  });
}

const bytesOf = async (m: FormatFile | (() => Promise<Buffer>)) =>
  typeof m === 'function' ? m() : readAtMost(await m.open(), 1024 * 1024, m.path);

/**
 * `GET /{scope}/{name}/{version}/Package.swift[?swift-version=X]`: the manifest, `Link`ing the
 * version-specific ones; a `swift-version` without its own manifest redirects (303) to Package.swift.
 */
export async function serveManifest(
  reply: FastifyReply,
  ctx: RequestContext,
  p: PackageRef,
  version: string,
  swiftVersion: string | undefined,
) {
  const h = await holder(ctx, p, version);
  const manifests = await manifestsOf(h, p, version);
  const base = `${releaseUrl(ctx, p, version)}/Package.swift`;
  if (swiftVersion !== undefined) {
    if (!/^\d+(\.\d+){0,2}$/.test(swiftVersion))
      throw new SwiftError(400, `Invalid swift-version '${swiftVersion}'`);
    const specific = manifests.get(`Package@swift-${swiftVersion}.swift`);
    if (!specific) return reply.code(303).header('content-version', '1').header('location', base).send();
    return sendManifest(reply, `Package@swift-${swiftVersion}.swift`, await bytesOf(specific));
  }
  const main = manifests.get('Package.swift');
  if (!main) throw notFound(ctx, `Package.swift of ${packageId(p)} ${version}`);
  const alternates = [];
  for (const [name, m] of manifests) {
    const v = MANIFEST.exec(name)?.[1];
    if (!v) continue;
    const tools = toolsVersionOf(await bytesOf(m));
    alternates.push(
      `<${base}?swift-version=${v}>; rel="alternate"; filename="${name}"${tools ? `; swift-tools-version="${tools}"` : ''}`,
    );
  }
  if (alternates.length) reply.header('link', alternates.join(', '));
  return sendManifest(reply, 'Package.swift', await bytesOf(main));
}

const sendManifest = (reply: FastifyReply, name: string, bytes: Buffer) =>
  reply
    .code(200)
    .header('content-version', '1')
    .header('content-disposition', `attachment; filename="${name}"`)
    .header('cache-control', 'public, immutable')
    .type('text/x-swift')
    .send(bytes);

/** `GET /{scope}/{name}/{version}.zip`: the source archive with its `Digest` (SHA-256) and file name. */
export async function serveArchive(reply: FastifyReply, ctx: RequestContext, p: PackageRef, version: string) {
  const h = await holder(ctx, p, version);
  const file = await archiveOf(h, p, version);
  if (!file) throw notFound(ctx, `Release ${version} of ${packageId(p)}`);
  reply
    .header('content-version', '1')
    .header('content-disposition', `attachment; filename="${p.name}-${version}.zip"`)
    .header('digest', `sha-256=${Buffer.from(file.sha256, 'hex').toString('base64')}`)
    .header('cache-control', 'public, immutable');
  return ctx.send(reply, file);
}

/** `GET /identifiers?url=`: the package identifiers published with that repository URL (`metadata.repositoryURLs`). */
export async function serveIdentifiers(reply: FastifyReply, ctx: RequestContext, url: string | undefined) {
  if (!url) throw new SwiftError(400, 'The url query parameter is required');
  await ctx.authorize('read', '');
  const wanted = normalizeRepositoryUrl(url);
  const sources = ctx.repository.rclass === 'virtual' ? await ctx.members() : [ctx];
  const ids: string[] = [];
  for (const h of sources) {
    if (h.repository.rclass === 'remote') {
      if (h.repository.remote?.offline) continue;
      const res = await h
        .upstream(`identifiers?url=${encodeURIComponent(url)}`, {
          headers: { accept: JSON_TYPE },
          maxBytes: 1024 * 1024,
        })
        .catch(() => null);
      if (res?.status !== 200) continue;
      try {
        const found = (JSON.parse(res.body.toString('utf8')) as { identifiers?: unknown }).identifiers;
        if (Array.isArray(found))
          for (const id of found) if (typeof id === 'string' && !ids.includes(id)) ids.push(id);
      } catch {
        // an upstream that answers otherwise has none
      }
      continue;
    }
    for (const f of await h.listFiles('')) {
      const id = f.properties['swift.id']?.[0];
      if (!id || ids.includes(id) || !f.properties[REPOSITORY_URL]?.includes(wanted)) continue;
      if (await h.can('read', f.path)) ids.push(id);
    }
  }
  if (!ids.length) throw new SwiftError(404, `No package is published with the repository URL ${url}`);
  return json(reply, { identifiers: ids });
}
