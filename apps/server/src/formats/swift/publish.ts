import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { FormatRequest, PackageMetadata, RequestContext } from '../sdk/format.ts';
import { readBounded } from '../sdk/helpers.ts';
import { MAX_ARCHIVE_BYTES, manifestDependencies, readSourceArchive } from './archive.ts';
import { SwiftError } from './errors.ts';
import { boundaryOf, parseMultipart } from './multipart.ts';
import {
  archivePath,
  metadataPath,
  type PackageRef,
  packageFolder,
  packageId,
  releaseFolder,
} from './names.ts';
import type { ReleaseRecord } from './release.ts';

const METADATA_BYTES = 1024 * 1024;

/**
 * The packages index name of a package: `{scope}.{name}` lower-cased, as identities compare (SE-0292), so
 * a release published as `Mona.LinkedList` and one cached by a remote are one package.
 */
export const indexName = (p: PackageRef) => `${p.scope}.${p.name}`.toLowerCase();
export const REPOSITORY_URL = 'swift.repositoryURL';

/**
 * A repository URL as SwiftPM compares them (`/identifiers?url=`): no scheme or user, `git@host:path`
 * as `host/path`, no `.git` or trailing slash, lower-case.
 */
export function normalizeRepositoryUrl(url: string): string {
  return url
    .trim()
    .toLowerCase()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .replace(/^[^@/]+@/, '')
    .replace(/^([^/:]+):(?!\d)/, '$1/')
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
}

/** The packages index entry of a release: its id, the publisher's description, README, manifest dependencies. */
function releaseMetadata(
  id: string,
  version: string,
  metadata: Record<string, unknown>,
  readme: string | undefined,
  manifest: Buffer | undefined,
): PackageMetadata {
  const description =
    typeof metadata.description === 'string' ? metadata.description.slice(0, 1000) : undefined;
  return {
    name: id,
    version,
    leadFile: true,
    ...(description ? { description } : {}),
    dependencies: manifest ? manifestDependencies(manifest.toString('utf8')) : [],
    ...(readme ? { readme } : {}),
  };
}

/**
 * `swift package-registry publish` (SE-0391: `PUT /{scope}/{name}/{version}`, multipart/form-data
 * with `source-archive` and an optional `metadata` JSON): checked before anything is stored — the
 * identifiers' grammar, the form, the metadata, the archive (a zip, no path escapes, Package.swift
 * at its root) — then, under the package's lock, refused when the version exists (409), and stored:
 * the archive, its manifests and `metadata.json`; a failure part-way removes the release again.
 * Answers 201 with the release's `Location` (the publish completes synchronously).
 */
export async function publishRelease(
  req: FormatRequest,
  reply: FastifyReply,
  ctx: RequestContext,
  p: PackageRef,
  version: string,
) {
  if (ctx.repository.rclass === 'remote')
    throw new SwiftError(405, `Remote repository '${ctx.repository.key}' does not accept publishes`);
  const target = await ctx.deployContext();
  await target.authorize('write', archivePath(p, version));
  const boundary = boundaryOf(req.headers['content-type'] as string | undefined);
  if (!boundary)
    throw new SwiftError(415, 'Publish with a multipart/form-data body (source-archive, metadata)');
  const body = await readBounded(
    req.body,
    MAX_ARCHIVE_BYTES + 2 * METADATA_BYTES,
    () => new SwiftError(413, `The publish request is larger than the limit of ${MAX_ARCHIVE_BYTES} bytes`),
    { announced: req.headers['content-length'], rest: 'drain' },
  );
  const parts = parseMultipart(body, boundary);
  const zip = parts.get('source-archive');
  if (!zip?.length) throw new SwiftError(422, 'The publish request has no source-archive part');
  let metadata: Record<string, unknown> = {};
  const metaPart = parts.get('metadata');
  if (metaPart?.length) {
    if (metaPart.length > METADATA_BYTES) throw new SwiftError(413, 'The metadata part is too large');
    try {
      metadata = JSON.parse(metaPart.toString('utf8')) as Record<string, unknown>;
    } catch {
      throw new SwiftError(422, 'The metadata part is not valid JSON');
    }
    if (!metadata || typeof metadata !== 'object' || Array.isArray(metadata))
      throw new SwiftError(422, 'The metadata part is not a JSON object');
  }
  const urls = metadata.repositoryURLs;
  if (urls !== undefined && (!Array.isArray(urls) || !urls.every((u) => typeof u === 'string')))
    throw new SwiftError(422, 'metadata.repositoryURLs must be an array of strings');
  const archive = await readSourceArchive(zip);
  const checksum = createHash('sha256').update(zip).digest('hex');
  const id = packageId(p);
  const record: ReleaseRecord = { id, version, checksum, metadata, publishedAt: new Date().toISOString() };
  await target.withLock(`swift:${packageFolder(p)}`, async () => {
    if ((await target.stat(metadataPath(p, version))) || (await target.stat(archivePath(p, version))))
      throw new SwiftError(
        409,
        `A release with version ${version} of ${id} already exists in '${target.repository.key}'`,
      );
    const stored: string[] = [];
    try {
      await target.deploy(archivePath(p, version), zip, {
        noOverwrite: true,
        expected: { sha256: checksum },
        metadata: releaseMetadata(
          indexName(p),
          version,
          metadata,
          archive.readme,
          archive.manifests.get('Package.swift'),
        ),
        properties: {
          'swift.id': [id],
          ...(Array.isArray(urls) && urls.length
            ? { [REPOSITORY_URL]: (urls as string[]).map(normalizeRepositoryUrl) }
            : {}),
        },
      });
      stored.push(archivePath(p, version));
      for (const [name, content] of archive.manifests) {
        await target.deploy(`${releaseFolder(p, version)}/${name}`, content, {
          metadata: null,
          derived: true,
        });
        stored.push(`${releaseFolder(p, version)}/${name}`);
      }
      await target.deploy(metadataPath(p, version), Buffer.from(JSON.stringify(record)), {
        metadata: null,
        derived: true,
      });
    } catch (err) {
      for (const path of stored) await target.delete(path, { permanent: true }).catch(() => 0);
      throw err;
    }
  });
  return reply
    .code(201)
    .header('content-version', '1')
    .header('location', `${ctx.repositoryUrl}/${p.scope}/${p.name}/${version}`)
    .send();
}
