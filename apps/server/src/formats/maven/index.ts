import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type {
  FormatContext,
  FormatRepository,
  FormatRequest,
  PackageFormat,
  PathsChange,
} from '../sdk/format.ts';
import { checksumOfBytes, checksumOfFile } from './checksums.ts';
import {
  buildArtifactMetadata,
  buildSnapshotMetadata,
  type MavenMetadata,
  mergeMetadata,
  parseMetadata,
  serializeMetadata,
} from './index-builder.ts';
import {
  CHECKSUM_HEX_LENGTH,
  type ChecksumAlgorithm,
  checksumOf,
  folderOf,
  isMetadataFile,
  isSnapshotPath,
  isSnapshotVersion,
  METADATA_FILE,
  parseMavenPath,
} from './layout.ts';
import {
  extractMavenMetadata,
  MAX_XML_BYTES,
  PomError,
  parsePom,
  pomPackageMetadata,
  readBounded,
} from './metadata.ts';
import {
  distributionManagementXml,
  gradleSnippets,
  mavenInstallCommand,
  mavenSnippets,
  settingsXml,
} from './snippets.ts';
import { mavenPackageFolder, mavenUpstreamCheck } from './upstream.ts';

/**
 * Maven (and Gradle, which publishes and resolves the same layout): deploy by PUT, resolve by GET,
 * release/snapshot policies, immutable releases, maven-metadata.xml regenerated from the stored files,
 * checksum files computed for every file and verified on upload, merged metadata in virtual repositories.
 */

/** An error answered to the Maven client (status, and the message as body and reason phrase). */
class MavenError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

const MAX_CHECKSUM_BODY = 4096;
const CHECKSUM_HEADERS = { sha256: 64, sha1: 40, md5: 32 } as const;

/** What the client announced in X-Checksum-* headers and Content-Length (verified by the core while storing). */
function announced(request: FormatRequest): { sha256?: string; sha1?: string; md5?: string; size?: number } {
  const expected: { sha256?: string; sha1?: string; md5?: string; size?: number } = {};
  for (const [kind, length] of Object.entries(CHECKSUM_HEADERS) as [
    keyof typeof CHECKSUM_HEADERS,
    number,
  ][]) {
    const value = request.headers[`x-checksum-${kind}`];
    if (value === undefined) continue;
    if (typeof value !== 'string' || !new RegExp(`^[0-9a-fA-F]{${length}}$`).test(value))
      throw new MavenError(
        400,
        `X-Checksum-${kind[0]!.toUpperCase()}${kind.slice(1)} is not a ${kind} hex digest`,
      );
    expected[kind] = value.toLowerCase();
  }
  const length = request.headers['content-length'];
  if (
    typeof length === 'string' &&
    /^\d+$/.test(length) &&
    request.headers['transfer-encoding'] === undefined
  )
    expected.size = Number(length);
  return expected;
}

/** The release/snapshot policy refusal for a path, or null when the repository takes it. */
function policyRefusal(repo: FormatRepository, path: string, deploying: boolean): string | null {
  const policy = repo.maven;
  if (!policy || !parseMavenPath(path)) return null;
  const snapshot = isSnapshotPath(path);
  if (snapshot && !policy.handleSnapshots)
    return `Repository '${repo.key}' does not ${deploying ? 'accept' : 'serve'} snapshots (handleSnapshots is off): '${path}' is a snapshot`;
  if (!snapshot && !policy.handleReleases)
    return `Repository '${repo.key}' does not ${deploying ? 'accept' : 'serve'} releases (handleReleases is off): '${path}' is a release`;
  return null;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Stores a regenerated document unless the stored one has the same bytes. */
async function storeDocument(target: FormatContext, path: string, doc: MavenMetadata): Promise<void> {
  const bytes = serializeMetadata(doc);
  const existing = await target.stat(path);
  if (existing?.sha256 === sha256(bytes)) return;
  await target.deploy(path, bytes, { regenerated: true, metadata: null });
}

/** The plugins of a stored group-level document at `path` (kept when the document is regenerated). */
async function storedPlugins(target: FormatContext, path: string): Promise<MavenMetadata['plugins']> {
  const file = await target.stat(path);
  if (!file) return [];
  try {
    return parseMetadata(await readBounded(await file.open(), MAX_XML_BYTES)).plugins;
  } catch {
    return [];
  }
}

/**
 * Regenerates maven-metadata.xml of an artifact (and of its snapshot versions `gavPaths`) from the
 * files stored under it, holding the artifact's lock: each regeneration reads every stored build, so
 * concurrent deploys never lose one. A listing that changed while writing (another node) is read again.
 * `prune` (after a delete or move) removes documents that describe nothing any more.
 */
async function regenerate(
  target: FormatContext,
  gaPath: string,
  gavPaths: string[] = [],
  opts: { plugins?: MavenMetadata['plugins']; prune?: boolean } = {},
) {
  const gaMetaPath = `${gaPath}/${METADATA_FILE}`;
  await target.withLock(`maven-metadata:${gaPath}`, async () => {
    let signature: string | null = null;
    for (let attempt = 0; attempt < 3; attempt++) {
      const files = await target.listFiles(gaPath);
      const seen = files
        .filter((f) => !isMetadataFile(f.path))
        .map((f) => `${f.path}\u0000${f.sha256}`)
        .join('\n');
      if (seen === signature) return;
      signature = seen;
      const artifact = buildArtifactMetadata(gaPath, files);
      // Group-level plugin prefixes are kept; a new upload's entry wins over a stored one.
      const plugins = [...(await storedPlugins(target, gaMetaPath)), ...(opts.plugins ?? [])];
      if (artifact || plugins.length > 0) {
        const doc = artifact ?? { versions: [], snapshotVersions: [], plugins: [] };
        doc.plugins = [...new Map(plugins.map((p) => [p.prefix, p])).values()];
        await storeDocument(target, gaMetaPath, doc);
      } else if (opts.prune && (await target.stat(gaMetaPath))) await target.delete(gaMetaPath);
      for (const gavPath of gavPaths) {
        const gavMetaPath = `${gavPath}/${METADATA_FILE}`;
        const version = buildSnapshotMetadata(gavPath, files);
        if (version) await storeDocument(target, gavMetaPath, version);
        else if (opts.prune && (await target.stat(gavMetaPath))) await target.delete(gavMetaPath);
      }
    }
  });
}

/** The artifact (and snapshot version) a folder's maven-metadata.xml describes. */
function metadataOwner(folder: string): { gaPath: string; gavPath?: string } {
  const name = folder.split('/').at(-1) ?? '';
  return isSnapshotVersion(name) ? { gaPath: folderOf(folder), gavPath: folder } : { gaPath: folder };
}

async function deployFile(request: FormatRequest, reply: FastifyReply, ctx: FormatContext): Promise<boolean> {
  const path = request.path;
  const target = await ctx.deployContext();
  const refusal = policyRefusal(target.repository, path, true);
  if (refusal) throw new MavenError(409, refusal);
  const parsed = parseMavenPath(path);
  const expected = announced(request);
  // Released versions never change (unless the repository allows redeploys); snapshots and files outside the layout may be replaced.
  const noOverwrite = parsed !== null && !parsed.snapshot && !target.repository.maven?.allowReleaseRedeploy;
  let stored: Awaited<ReturnType<FormatContext['deploy']>>;
  const isPom = parsed?.extension === 'pom' && !parsed.classifier;
  if (String(request.headers['x-checksum-deploy']).toLowerCase() === 'true') {
    // Deploy by checksum (JFrog CLI, Artifactory's API): content already stored, no bytes sent. A POM
    // comes with its bytes, whose coordinates are checked against the path.
    request.body.resume();
    if (isPom) throw new MavenError(404, `${path}: a POM is deployed with its bytes, not by checksum`);
    stored = await ctx.deploy(path, Buffer.alloc(0), {
      expected,
      byChecksum: true,
      noOverwrite,
      metadata: null,
    });
  } else if (isPom) {
    await target.authorize('write', path);
    let bytes: Buffer;
    try {
      bytes = await readBounded(request.body, MAX_XML_BYTES);
    } catch (err) {
      throw new MavenError(413, (err as Error).message);
    }
    let pom: ReturnType<typeof parsePom>;
    try {
      pom = parsePom(bytes);
    } catch (err) {
      if (err instanceof PomError) throw new MavenError(400, `${path}: ${err.message}; nothing was stored`);
      throw err;
    }
    const claimed = `${pom.groupId}:${pom.artifactId}:${pom.version}`;
    const at = `${parsed.groupId}:${parsed.artifactId}:${parsed.version}`;
    if (claimed !== at)
      throw new MavenError(
        409,
        `The POM's coordinates ${claimed} do not match its path (${at}); nothing was stored`,
      );
    stored = await ctx.deploy(path, bytes, { expected, noOverwrite, metadata: pomPackageMetadata(pom) });
  } else {
    stored = await ctx.deploy(path, request.body, { expected, noOverwrite, metadata: null });
  }
  if (parsed) await regenerate(target, parsed.gaPath, parsed.snapshot ? [parsed.gavPath] : []);
  reply.code(201).send({
    repo: target.repository.key,
    path: `/${stored.path}`,
    size: String(stored.size),
    checksums: { sha1: stored.sha1, md5: stored.md5, sha256: stored.sha256 },
    downloadUri: `${target.repositoryUrl}/${stored.path}`,
  });
  return true;
}

/**
 * A client's maven-metadata.xml upload: checked (well-formed, no DOCTYPE) but not trusted — the
 * document is regenerated from the stored files; group-level plugin prefixes are kept.
 */
async function acceptMetadata(
  request: FormatRequest,
  reply: FastifyReply,
  ctx: FormatContext,
): Promise<boolean> {
  const target = await ctx.deployContext();
  await target.authorize('write', request.path);
  let doc: MavenMetadata;
  try {
    doc = parseMetadata(await readBounded(request.body, MAX_XML_BYTES));
  } catch (err) {
    throw new MavenError(
      400,
      `${request.path}: not a valid maven-metadata.xml (${(err as Error).message}); nothing was stored`,
    );
  }
  const owner = metadataOwner(folderOf(request.path));
  await regenerate(target, owner.gaPath, owner.gavPath ? [owner.gavPath] : [], { plugins: doc.plugins });
  reply.code(201).send();
  return true;
}

async function readChecksumBody(
  request: FormatRequest,
  algorithm: ChecksumAlgorithm,
  path: string,
): Promise<string> {
  let body: Buffer;
  try {
    body = await readBounded(request.body, MAX_CHECKSUM_BODY);
  } catch {
    throw new MavenError(400, `${path}: a checksum file holds one ${algorithm} digest`);
  }
  // "digest" or "digest  file-name" (sha1sum output)
  const value = body.toString('utf8').trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  if (!new RegExp(`^[0-9a-f]{${CHECKSUM_HEX_LENGTH[algorithm]}}$`).test(value))
    throw new MavenError(400, `${path}: the body is not a ${algorithm} hex digest`);
  return value;
}

/**
 * A checksum upload (`x.jar.sha1`): verified against the stored file, never stored itself (the
 * checksums are computed from the file whenever asked). A wrong one is refused with 409.
 */
async function acceptChecksum(
  request: FormatRequest,
  reply: FastifyReply,
  ctx: FormatContext,
  sum: { target: string; algorithm: ChecksumAlgorithm },
): Promise<boolean> {
  const target = await ctx.deployContext();
  await target.authorize('write', sum.target);
  const sent = await readChecksumBody(request, sum.algorithm, request.path);
  // Granary regenerates maven-metadata.xml: the client's checksum is of its own copy.
  if (!isMetadataFile(sum.target)) {
    const file = await target.stat(sum.target);
    if (!file)
      throw new MavenError(
        409,
        `'${sum.target}' is not stored in '${target.repository.key}': deploy the file before its checksum`,
      );
    const actual = await checksumOfFile(file, sum.algorithm);
    if (actual !== sent)
      throw new MavenError(
        409,
        `Checksum mismatch: the ${sum.algorithm} sent for '${sum.target}' is ${sent} but the stored file's is ${actual}`,
      );
  }
  reply.code(201).send();
  return true;
}

/**
 * A virtual repository's maven-metadata.xml: the members' documents merged; null when none has one.
 * Dependency-confusion protection: when a local member holds the document, remote members' are left
 * out, and not even asked for it (the coordinates never leave the server).
 */
async function mergedMetadata(ctx: FormatContext, path: string): Promise<Buffer | null> {
  const all = await ctx.members();
  const locals = all.filter((m) => m.repository.rclass === 'local');
  const held = await Promise.all(
    locals.map(async (m) => !policyRefusal(m.repository, path, false) && !!(await m.stat(path))),
  );
  const members = held.some(Boolean) ? locals : all;
  const found = await Promise.all(
    members.map(async (member) => {
      if (policyRefusal(member.repository, path, false)) return null;
      try {
        const file = await member.get(path);
        if (!file) return null;
        const doc = parseMetadata(await readBounded(await file.open(), MAX_XML_BYTES));
        return { doc, local: member.repository.rclass === 'local' };
      } catch (err) {
        ctx.log.warn(
          { member: member.repository.key, path, err: (err as Error).message },
          'member metadata skipped',
        );
        return null;
      }
    }),
  );
  let docs = found.filter((d) => d !== null);
  if (docs.some((d) => d.local)) docs = docs.filter((d) => d.local);
  const merged = mergeMetadata(docs.map((d) => d.doc));
  return merged && serializeMetadata(merged);
}

function sendText(request: FormatRequest, reply: FastifyReply, body: Buffer, type: string): true {
  reply
    .code(200)
    .type(type)
    .header('content-length', String(body.length))
    .header('x-content-type-options', 'nosniff')
    .header('etag', `"${createHash('sha1').update(body).digest('hex')}"`);
  if (request.method === 'HEAD') reply.send();
  else reply.send(body);
  return true;
}

async function serveChecksum(
  request: FormatRequest,
  reply: FastifyReply,
  ctx: FormatContext,
  sum: { target: string; algorithm: ChecksumAlgorithm },
): Promise<boolean> {
  let digest: string | null = null;
  if (ctx.repository.rclass === 'virtual' && isMetadataFile(sum.target)) {
    await ctx.authorize('read', sum.target);
    const merged = await mergedMetadata(ctx, sum.target);
    digest = merged && checksumOfBytes(merged, sum.algorithm);
  } else {
    const file = await ctx.get(sum.target);
    digest = file && (await checksumOfFile(file, sum.algorithm));
  }
  if (!digest) throw new MavenError(404, `'${request.path}' not found in repository '${ctx.repository.key}'`);
  return sendText(request, reply, Buffer.from(digest), 'text/plain; charset=utf-8');
}

/**
 * The documents changes at `paths` (files or folders deleted, files stored) may have made wrong, as
 * artifact → its snapshot versions. A file of the layout names its artifact (and snapshot version); a
 * metadata file names the artifact (or version) it describes; a folder names the document of the
 * folder holding it when one is stored (a version folder's artifact, an artifact folder's group) —
 * whatever was inside a deleted folder went with it.
 */
async function affectedDocuments(ctx: FormatContext, paths: string[]): Promise<Map<string, Set<string>>> {
  const owners = new Map<string, Set<string>>();
  const add = (gaPath: string, gavPath?: string) => {
    if (!gaPath) return;
    const gavs = owners.get(gaPath) ?? new Set<string>();
    owners.set(gaPath, gavs);
    if (gavPath) gavs.add(gavPath);
  };
  const folders = new Set<string>();
  for (const raw of paths) {
    const path = checksumOf(raw)?.target ?? raw.replace(/\/+$/, '');
    const parsed = parseMavenPath(path);
    if (parsed) add(parsed.gaPath, parsed.snapshot ? parsed.gavPath : undefined);
    else if (isMetadataFile(path)) {
      const owner = metadataOwner(folderOf(path));
      add(owner.gaPath, owner.gavPath);
    } else folders.add(folderOf(path));
  }
  for (const folder of folders) {
    if (!folder) continue;
    const owner = metadataOwner(folder);
    // Only stored documents are rewritten: deleting a folder never lists a whole group for nothing.
    if (owners.has(owner.gaPath) || (await ctx.stat(`${folder}/${METADATA_FILE}`)))
      add(owner.gaPath, owner.gavPath);
  }
  return owners;
}

/**
 * `afterChange`: files deleted (every DELETE, which the core performs), copied or moved (tree browser,
 * `/api/copy`, `/api/move`): the metadata of every artifact touched is regenerated from what is stored
 * now, like Artifactory's metadata recalculation — the versions and snapshot builds still present;
 * documents of an artifact left with none are removed. A remote's cache keeps its upstream's documents.
 */
async function afterChange(ctx: FormatContext, change: PathsChange): Promise<void> {
  if (ctx.repository.rclass !== 'local') return;
  const paths = [...(change.deleted ?? []), ...(change.added ?? [])];
  for (const [gaPath, gavPaths] of await affectedDocuments(ctx, paths))
    await regenerate(ctx, gaPath, [...gavPaths], { prune: true });
}

async function handle(request: FormatRequest, reply: FastifyReply, ctx: FormatContext): Promise<boolean> {
  const path = request.path;
  if (!path || path.endsWith('/')) return false;
  const sum = checksumOf(path);
  const rclass = ctx.repository.rclass;
  switch (request.method) {
    case 'GET':
    case 'HEAD': {
      const refusal = rclass !== 'virtual' && policyRefusal(ctx.repository, sum?.target ?? path, false);
      if (refusal) throw new MavenError(404, refusal);
      if (sum) return serveChecksum(request, reply, ctx, sum);
      if (rclass === 'virtual' && isMetadataFile(path)) {
        await ctx.authorize('read', path);
        const merged = await mergedMetadata(ctx, path);
        if (!merged) throw new MavenError(404, `'${path}' not found in repository '${ctx.repository.key}'`);
        return sendText(request, reply, merged, 'text/xml; charset=utf-8');
      }
      return false;
    }
    case 'PUT':
      if (rclass === 'remote') return false;
      if (sum) return acceptChecksum(request, reply, ctx, sum);
      if (isMetadataFile(path)) return acceptMetadata(request, reply, ctx);
      return deployFile(request, reply, ctx);
    // DELETE: the core deletes, then regenerates the metadata through `afterChange` (as the server).
    default:
      return false;
  }
}

/** Paths a remote revalidates after its retrieval cache period: metadata and non-unique snapshot files. */
function isMetadataPath(path: string): boolean {
  if (isMetadataFile(checksumOf(path)?.target ?? path)) return true;
  const parsed = parseMavenPath(path);
  return !!parsed?.snapshot && parsed.fileVersion === parsed.version;
}

/** The reason phrase carries the message, so `mvn` shows why (printable ASCII only). */
function reasonPhrase(message: string): string {
  return message.replace(/[^\x20-\x7e]/g, '?').slice(0, 300);
}

function makeFormat(id: 'maven' | 'gradle'): PackageFormat {
  return {
    id,
    aliases: [],
    displayName: id === 'maven' ? 'Maven' : 'Gradle',
    icon: id,
    classes: ['local', 'remote', 'virtual'],
    extractMetadata: extractMavenMetadata,
    snippets: id === 'maven' ? mavenSnippets : gradleSnippets,
    installCommand: mavenInstallCommand,
    clientConfig(name, { baseUrl, username, repositories }) {
      if (name === 'settings.xml')
        return { title: 'settings.xml', language: 'xml', code: settingsXml(baseUrl, repositories, username) };
      if (name === 'distributionManagement')
        return {
          title: 'distributionManagement',
          language: 'xml',
          code: distributionManagementXml(baseUrl, repositories.release, repositories.snapshot),
        };
      return null;
    },
    upstreamUrl: (remoteUrl, path) => `${remoteUrl.replace(/\/+$/, '')}/${path}`,
    handle,
    afterChange,
    isMetadataPath,
    upstreamCheck: mavenUpstreamCheck,
    packageFolder: mavenPackageFolder,
    errorBody(error, reply) {
      reply.type('text/plain; charset=utf-8');
      reply.raw.statusMessage = reasonPhrase(error.message);
      return `${error.message}\n`;
    },
  };
}

export const mavenFormat = makeFormat('maven');
/** Gradle repositories: the same Maven layout and protocol, Gradle-first Set Me Up. */
export const gradleFormat = makeFormat('gradle');
