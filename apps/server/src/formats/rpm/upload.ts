import type { FastifyReply } from 'fastify';
import type { FormatRequest, RequestContext } from '../sdk/format.ts';
import { regenerateRepodata } from './index-builder.ts';
import { rpmMetadata } from './metadata.ts';
import { RpmError } from './respond.ts';
import {
  displayVersion,
  RpmFormatError,
  type RpmPackageInfo,
  readRpmPackage,
  rpmFileName,
} from './rpm-header.ts';

/** Artifactory's properties of a YUM package. */
function rpmProperties(info: RpmPackageInfo): Record<string, string[]> {
  return {
    'rpm.metadata.name': [info.name],
    'rpm.metadata.version': [info.version],
    'rpm.metadata.release': [info.release],
    'rpm.metadata.epoch': [info.epoch],
    'rpm.metadata.arch': [info.arch],
  };
}

/**
 * `PUT /repository/{key}/{path}/{name}-{version}-{release}.{arch}.rpm` (curl -T, Artifactory's YUM
 * deploy): the body is spooled to the blob store, its headers read as rpm reads them (bounded; the
 * header's digest and the file's size checked) and its file name compared with the name, version,
 * release and arch inside. Refused, nothing is stored; accepted, the repodata is regenerated before
 * the answer, so the next `dnf makecache` sees the package.
 */
export async function handleUpload(request: FormatRequest, reply: FastifyReply, ctx: RequestContext) {
  if (ctx.repository.rclass === 'remote')
    throw new RpmError(405, `remote repository '${ctx.repository.key}' does not accept uploads`);
  const path = request.path;
  const target = await ctx.deployContext();
  await target.authorize('write', path);
  const spooled = await target.spool(path, request.body);
  try {
    let info: RpmPackageInfo;
    try {
      info = await readRpmPackage(await spooled.open(), spooled.size);
    } catch (err) {
      if (err instanceof RpmFormatError) throw new RpmError(400, `${err.message}: nothing was stored`);
      throw err;
    }
    const fileName = path.slice(path.lastIndexOf('/') + 1);
    const expected = rpmFileName(info);
    if (fileName !== expected)
      throw new RpmError(
        400,
        `the package is ${info.name} ${displayVersion(info)} (${info.arch}), so its file name must be '${expected}', not '${fileName}': nothing was stored`,
      );
    const existing = await target.stat(path);
    if (existing?.sha256 === spooled.sha256)
      return reply.code(200).send({ repo: target.repository.key, path: `/${path}`, sha256: existing.sha256 });
    if (existing)
      throw new RpmError(
        409,
        `${expected} already exists in '${target.repository.key}' with other content: delete it first`,
      );
    const file = await target.deploy(path, Buffer.alloc(0), {
      spooled,
      expected: { sha256: spooled.sha256, size: spooled.size },
      noOverwrite: true,
      metadata: rpmMetadata(info),
      properties: rpmProperties(info),
    });
    try {
      await regenerateRepodata(target);
    } catch (err) {
      // A package the metadata cannot list is not kept: the repository stays as it was.
      await target.delete(path, { permanent: true }).catch(() => 0);
      throw err;
    }
    return reply.code(201).send({
      repo: target.repository.key,
      path: `/${file.path}`,
      downloadUri: `${ctx.baseUrl}/repository/${target.repository.key}/${file.path}`,
      size: String(file.size),
      checksums: { sha1: file.sha1, md5: file.md5, sha256: file.sha256 },
    });
  } finally {
    // deployed (the file holds the bytes now) or refused (nothing holds them): either way let them go
    await spooled.release().catch(() => undefined);
  }
}
