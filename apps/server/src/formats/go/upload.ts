import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { FormatRequest, RepositoryHandle, RequestContext } from '../sdk/format.ts';
import { splitMatrix } from '../sdk/matrix-params.ts';
import { parseGoMod } from './gomod.ts';
import { moduleMetadata } from './metadata.ts';
import { checkMajor, checkModulePath, isCanonicalVersion, versionFile } from './module.ts';
import { GO_LIMITS, readModuleZip, readUpload } from './module-zip.ts';
import { GoError } from './respond.ts';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function readStored(target: RepositoryHandle, path: string): Promise<Buffer | null> {
  const file = await target.stat(path);
  if (!file) return null;
  return readUpload(await file.open(), GO_LIMITS.goModBytes, path);
}

/** The go.mod a version is served with: the zip's own, or `module PATH` for a module without one (legacy `+incompatible`). */
function goModOf(module: string, zipGoMod: Buffer | null): Buffer {
  if (!zipGoMod) return Buffer.from(`module ${module}\n`);
  const declared = parseGoMod(zipGoMod.toString('utf8')).module;
  if (declared !== module)
    throw new GoError(
      400,
      `go.mod has module path "${declared ?? ''}" but the upload is for "${module}": nothing was stored`,
    );
  return zipGoMod;
}

/**
 * A REST deploy of a module version (Artifactory's Go deploy: `PUT {module}/@v/{version}.zip`, and
 * its `.mod` and `.info`): the zip is checked as the go command checks it (module zip layout, size
 * limits, its go.mod naming the module and equal to a `.mod` already deployed) before a byte is
 * stored; the `.mod` and `.info` the proxy serves are stored beside it. A version never changes.
 */
export async function handleDeploy(
  req: FormatRequest,
  reply: FastifyReply,
  ctx: RequestContext,
  module: string,
  version: string,
  ext: 'info' | 'mod' | 'zip',
  rawPath: string,
) {
  if (ctx.repository.rclass === 'remote')
    throw new GoError(405, `remote repository '${ctx.repository.key}' does not accept deploys`);
  const pathProblem = checkModulePath(module);
  if (pathProblem) throw new GoError(400, pathProblem);
  if (!isCanonicalVersion(version))
    throw new GoError(400, `invalid version "${version}": not a canonical semantic version (vX.Y.Z)`);
  const majorProblem = checkMajor(module, version);
  if (majorProblem) throw new GoError(400, `${module}@${version}: ${majorProblem}`);
  const { properties } = splitMatrix(rawPath);
  const target = await ctx.deployContext();
  const zipPath = versionFile(module, version, 'zip');
  const modPath = versionFile(module, version, 'mod');
  const infoPath = versionFile(module, version, 'info');
  // Callers without deploy rights hear it before their body is read.
  await target.authorize('write', versionFile(module, version, ext));
  const announced = req.headers['content-length'];

  if (ext === 'info') {
    const body = await readUpload(req.body, 64 * 1024, 'the .info file', announced);
    let info: { Version?: unknown };
    try {
      info = JSON.parse(body.toString('utf8')) as { Version?: unknown };
    } catch {
      throw new GoError(400, `${version}.info is not JSON: nothing was stored`);
    }
    if (info.Version !== version)
      throw new GoError(400, `${version}.info names version "${String(info.Version)}": nothing was stored`);
    const file = await target.deploy(infoPath, body, { metadata: null, regenerated: true, properties });
    return reply.code(201).send({ repo: target.repository.key, path: `/${file.path}`, sha256: file.sha256 });
  }

  if (ext === 'mod') {
    const body = await readUpload(req.body, GO_LIMITS.goModBytes, 'go.mod', announced);
    const declared = parseGoMod(body.toString('utf8')).module;
    if (declared !== null && declared !== module)
      throw new GoError(
        400,
        `go.mod has module path "${declared}" but the upload is for "${module}": nothing was stored`,
      );
    const zip = await target.stat(zipPath);
    const stored = await readStored(target, modPath);
    if (stored && !stored.equals(body))
      throw new GoError(
        zip ? 400 : 409,
        `${module}@${version}: this go.mod does not match the one ${zip ? "in the version's zip" : 'already deployed'}: nothing was stored`,
      );
    const file = await target.deploy(modPath, body, { metadata: null, noOverwrite: true, properties });
    return reply.code(201).send({ repo: target.repository.key, path: `/${file.path}`, sha256: file.sha256 });
  }

  const bytes = await readUpload(req.body, GO_LIMITS.zipBytes, 'the module zip', announced);
  const zip = await readModuleZip(bytes, module, version);
  if (zip.goMod && version.endsWith('+incompatible'))
    throw new GoError(
      400,
      `${module}@${version}: invalid version: +incompatible suffix not allowed: module contains a go.mod file (its path must end in /v${/^v(\d+)/.exec(version)?.[1]})`,
    );
  const goMod = goModOf(module, zip.goMod);
  const storedMod = await readStored(target, modPath);
  if (storedMod && !storedMod.equals(goMod))
    throw new GoError(
      400,
      `${module}@${version}: go.mod in the zip does not match the deployed ${version}.mod: nothing was stored`,
    );
  const existing = await target.stat(zipPath);
  if (existing) {
    if (existing.sha256 === sha256(bytes))
      return reply
        .code(200)
        .send({ repo: target.repository.key, path: `/${zipPath}`, sha256: existing.sha256 });
    throw new GoError(
      409,
      `${module}@${version} already exists in '${target.repository.key}' and a module version never changes`,
    );
  }
  const zipFile = await target.deploy(zipPath, bytes, {
    expected: { sha256: sha256(bytes), size: bytes.length },
    noOverwrite: true,
    metadata: moduleMetadata(module, version, zip),
    properties: { ...properties, 'go.module': [module], 'go.version': [version] },
  });
  try {
    if (!storedMod) await target.deploy(modPath, goMod, { metadata: null, derived: true });
    if (!(await target.stat(infoPath)))
      await target.deploy(
        infoPath,
        Buffer.from(JSON.stringify({ Version: version, Time: zipFile.createdAt.toISOString() })),
        { metadata: null, derived: true },
      );
  } catch (err) {
    // A version is its three files or nothing.
    await target.delete(zipPath, { permanent: true }).catch(() => 0);
    throw err;
  }
  return reply.code(201).send({
    repo: target.repository.key,
    path: `/${zipFile.path}`,
    downloadUri: `${ctx.baseUrl}/repository/${target.repository.key}/${zipFile.path}`,
    size: String(zipFile.size),
    checksums: { sha1: zipFile.sha1, md5: zipFile.md5, sha256: zipFile.sha256 },
  });
}
