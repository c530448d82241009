import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { FormatRequest, RequestContext } from '../sdk/format.ts';
import { readBounded } from '../sdk/helpers.ts';
import { splitMatrix } from '../sdk/matrix-params.ts';
import { checkProviderZip, MAX_ARCHIVE_BYTES, readModuleArchive } from './archive.ts';
import { TerraformError } from './errors.ts';
import { moduleMetadata } from './metadata.ts';
import { moduleFile, moduleId, parseModulePath, parseProviderPath, providerId } from './names.ts';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * A deploy (`PUT /repository/{key}/{path}`, Artifactory's layout): a module archive
 * `{namespace}/{name}/{provider}/{version}.zip|.tar.gz` or a provider package
 * `{namespace}/{type}/{version}/terraform-provider-{type}_{version}_{os}_{arch}.zip`
 * (`;terraform.protocols=5.0,6.0` names its plugin protocols). Checked before a byte is stored: the
 * path's names and version, the archive (readable, no path escapes or links, the size limits, a
 * module with `.tf` files, a provider zip with its executable); a version never changes (409).
 * Anything else is refused: SHA256SUMS and signatures are the repository's own.
 */
export async function handleDeploy(req: FormatRequest, reply: FastifyReply, ctx: RequestContext) {
  if (ctx.repository.rclass === 'remote')
    throw new TerraformError(405, `Remote repository '${ctx.repository.key}' does not accept deploys`);
  const { path, properties } = splitMatrix(req.path);
  const module = parseModulePath(path);
  const provider = module ? null : parseProviderPath(path);
  if (!module && !provider)
    throw new TerraformError(
      400,
      `'${path}' is neither a module archive ({namespace}/{name}/{provider}/{version}.zip or .tar.gz) nor a provider package ({namespace}/{type}/{version}/terraform-provider-{type}_{version}_{os}_{arch}.zip)`,
    );
  const target = await ctx.deployContext();
  await target.authorize('write', path);
  const bytes = await readBounded(
    req.body,
    MAX_ARCHIVE_BYTES,
    () => new TerraformError(413, `The upload is larger than the limit of ${MAX_ARCHIVE_BYTES} bytes`),
    { announced: req.headers['content-length'], rest: 'drain' },
  );
  const digest = sha256(bytes);
  let metadata = null;
  if (module) {
    try {
      metadata = moduleMetadata(module, module.version, await readModuleArchive(bytes, module.kind));
    } catch (err) {
      throw new TerraformError(
        400,
        `${moduleId(module)} ${module.version}: ${(err as Error).message}; nothing was stored`,
      );
    }
    const other = await target.stat(
      moduleFile(module, module.version, module.kind === 'zip' ? 'tar.gz' : 'zip'),
    );
    if (other)
      throw new TerraformError(
        409,
        `${moduleId(module)} ${module.version} already exists in '${target.repository.key}' and a module version never changes`,
      );
  } else {
    try {
      await checkProviderZip(bytes, provider!.type);
    } catch (err) {
      throw new TerraformError(
        400,
        `${providerId(provider!)} ${provider!.version}: ${(err as Error).message}; nothing was stored`,
      );
    }
  }
  const existing = await target.stat(path);
  if (existing) {
    if (existing.sha256 === digest)
      return reply.code(200).send({ repo: target.repository.key, path: `/${path}`, sha256: digest });
    throw new TerraformError(
      409,
      `${path} already exists in '${target.repository.key}' and a published version never changes`,
    );
  }
  const file = await target.deploy(path, bytes, {
    expected: { sha256: digest, size: bytes.length },
    noOverwrite: true,
    properties,
    ...(metadata ? { metadata } : {}),
  });
  return reply.code(201).send({
    repo: target.repository.key,
    path: `/${file.path}`,
    downloadUri: `${ctx.baseUrl}/repository/${target.repository.key}/${file.path}`,
    size: String(file.size),
    checksums: { sha1: file.sha1, md5: file.md5, sha256: file.sha256 },
  });
}
