import type { FastifyReply } from 'fastify';
import type { FormatRequest, RequestContext } from '../sdk/format.ts';
import { checksumOfFile } from './checksums.ts';
import { MavenError } from './errors.ts';
import {
  type GradleModule,
  GradleModuleError,
  MAX_MODULE_BYTES,
  parseGradleModule,
} from './gradle-module.ts';
import { type MavenMetadata, parseMetadata } from './index-builder.ts';
import {
  CHECKSUM_HEX_LENGTH,
  type ChecksumAlgorithm,
  folderOf,
  isMetadataFile,
  parseMavenPath,
} from './layout.ts';
import { MAX_XML_BYTES, PomError, parsePom, pomPackageMetadata, readBounded } from './metadata.ts';
import { policyRefusal } from './policy.ts';
import { metadataOwner, regenerate } from './regenerate.ts';

/**
 * Deploys (`mvn deploy`, `gradle publish`): files PUT in the Maven layout under the release/snapshot
 * policies (releases immutable unless redeploys are allowed), a POM and a Gradle `.module` checked against their path, deploys by
 * checksum, client checksum files verified against the stored file, and maven-metadata.xml uploads
 * accepted but regenerated from the stored files.
 */

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

export async function deployFile(
  request: FormatRequest,
  reply: FastifyReply,
  ctx: RequestContext,
): Promise<boolean> {
  const path = request.path;
  const target = await ctx.deployContext();
  const refusal = policyRefusal(target.repository, path, true);
  if (refusal) throw new MavenError(409, refusal);
  const parsed = parseMavenPath(path);
  const expected = announced(request);
  // Released versions never change (unless the repository allows redeploys); snapshots and files outside the layout may be replaced.
  const noOverwrite = parsed !== null && !parsed.snapshot && !target.repository.maven?.allowReleaseRedeploy;
  let stored: Awaited<ReturnType<RequestContext['deploy']>>;
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
  } else if (parsed?.extension === 'module' && !parsed.classifier) {
    await target.authorize('write', path);
    let bytes: Buffer;
    try {
      bytes = await readBounded(request.body, MAX_MODULE_BYTES);
    } catch (err) {
      throw new MavenError(413, (err as Error).message);
    }
    let module: GradleModule;
    try {
      module = parseGradleModule(bytes);
    } catch (err) {
      if (err instanceof GradleModuleError)
        throw new MavenError(400, `${path}: not a Gradle module file: ${err.message}; nothing was stored`);
      throw err;
    }
    const { group, module: name, version } = module.component;
    const claimed = `${group}:${name}:${version}`;
    const at = `${parsed.groupId}:${parsed.artifactId}:${parsed.version}`;
    if (claimed !== at)
      throw new MavenError(
        409,
        `The Gradle module's component ${claimed} does not match its path (${at}); nothing was stored`,
      );
    stored = await ctx.deploy(path, bytes, { expected, noOverwrite, metadata: null });
  } else {
    stored = await ctx.deploy(path, request.body, { expected, noOverwrite, metadata: null });
  }
  if (parsed) await regenerate(target, parsed.gaPath, parsed.snapshot ? [parsed.gavPath] : []);
  reply.code(201).send({
    repo: target.repository.key,
    path: `/${stored.path}`,
    size: String(stored.size),
    checksums: { sha1: stored.sha1, md5: stored.md5, sha256: stored.sha256 },
    downloadUri: `${ctx.baseUrl}/repository/${target.repository.key}/${stored.path}`,
  });
  return true;
}

/**
 * A client's maven-metadata.xml upload: checked (well-formed, no DOCTYPE) but not trusted — the
 * document is regenerated from the stored files; group-level plugin prefixes are kept.
 */
export async function acceptMetadata(
  request: FormatRequest,
  reply: FastifyReply,
  ctx: RequestContext,
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
export async function acceptChecksum(
  request: FormatRequest,
  reply: FastifyReply,
  ctx: RequestContext,
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
