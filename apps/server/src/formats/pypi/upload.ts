import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { FormatRequest, RequestContext } from '../sdk/format.ts';
import { DistributionError, LIMITS } from './archive.ts';
import { first, toPackageMetadata, validateDistribution } from './metadata.ts';
import { boundaryOf, DEFAULT_LIMITS, MultipartError, readMultipart } from './multipart.ts';
import { canonicalVersion, distPath, METADATA_SUFFIX, normalizeName } from './names.ts';
import { pypiError } from './respond.ts';
import { PROPERTY } from './simple.ts';

const alreadyExists = (filename: string, key: string) =>
  `File already exists: '${filename}' is in repository '${key}' and a published file never changes. Upload a new version instead`;

/**
 * The legacy upload API (`POST` to the repository with `:action=file_upload`), as twine speaks it.
 * The multipart body is read as it streams (bounded); the distribution is checked (a readable
 * archive whose core metadata matches its file name and the form) before anything is stored; an
 * existing file is never replaced. A wheel's METADATA is stored beside it as its PEP 658 file.
 */
export async function handleUpload(req: FormatRequest, reply: FastifyReply, ctx: RequestContext) {
  const key = ctx.repository.key;
  if (ctx.repository.rclass === 'remote')
    return pypiError(reply, 405, `Remote repository '${key}' does not accept uploads`);
  const boundary = boundaryOf(req.headers['content-type'] as string | undefined);
  if (!boundary)
    return pypiError(reply, 400, 'Expected a multipart/form-data upload (the upload API twine uses)');
  const target = await ctx.deployContext();
  // Anonymous callers without deploy rights hear 401 before their body is read.
  if (!ctx.principal) await target.authorize('write', 'packages');

  let form: Awaited<ReturnType<typeof readMultipart>>;
  try {
    form = await readMultipart(req.body, boundary, { ...DEFAULT_LIMITS, fileBytes: LIMITS.archiveBytes });
  } catch (err) {
    if (err instanceof MultipartError)
      return pypiError(reply, err.status, `${err.message}: nothing was stored`);
    throw err;
  }
  const field = (name: string) => form.fields.get(name)?.[0]?.trim() || undefined;
  const action = field(':action');
  if (action !== 'file_upload')
    return pypiError(reply, 400, `Unsupported :action '${action ?? ''}': only file_upload is accepted`);
  const protocol = field('protocol_version');
  if (protocol && protocol !== '1') return pypiError(reply, 400, `Unknown protocol_version '${protocol}'`);
  if (form.file?.field !== 'content')
    return pypiError(reply, 400, 'No distribution file in the upload (form field "content")');
  const filename = form.file.filename.split(/[\\/]/).at(-1) ?? '';
  const content = form.file.content;

  const sha256 = createHash('sha256').update(content).digest('hex');
  const md5 = createHash('md5').update(content).digest('hex');
  const announced = field('sha256_digest')?.toLowerCase();
  if (announced && announced !== sha256)
    return pypiError(
      reply,
      400,
      `The sha256_digest does not match the uploaded file '${filename}': nothing was stored`,
    );
  const announcedMd5 = field('md5_digest')?.toLowerCase();
  if (announcedMd5 && announcedMd5 !== md5)
    return pypiError(
      reply,
      400,
      `The md5_digest does not match the uploaded file '${filename}': nothing was stored`,
    );

  let valid: Awaited<ReturnType<typeof validateDistribution>>;
  try {
    valid = await validateDistribution(filename, content);
  } catch (err) {
    if (err instanceof DistributionError)
      return pypiError(
        reply,
        400,
        `Invalid distribution file '${filename}': ${err.message}. Nothing was stored`,
      );
    throw err;
  }
  const formName = field('name');
  if (formName && normalizeName(formName) !== normalizeName(valid.name))
    return pypiError(
      reply,
      400,
      `The form names project '${formName}' but '${filename}' is '${valid.name}'. Nothing was stored`,
    );
  const formVersion = field('version');
  if (formVersion && canonicalVersion(formVersion) !== canonicalVersion(valid.version))
    return pypiError(
      reply,
      400,
      `The form says version '${formVersion}' but '${filename}' is ${valid.version}. Nothing was stored`,
    );

  const path = distPath(valid.name, valid.version, filename);
  if (await target.stat(path)) return pypiError(reply, 400, alreadyExists(filename, target.repository.key));
  const requiresPython = first(valid.metadata, 'requires-python');
  const properties: Record<string, string[]> = {
    [PROPERTY.name]: [valid.name],
    [PROPERTY.version]: [valid.version],
    ...(requiresPython ? { [PROPERTY.requiresPython]: [requiresPython] } : {}),
  };
  // A version's wheel speaks for it in the packages index (an sdist's PKG-INFO often lacks Requires-Dist).
  const metadata = toPackageMetadata(valid.metadata);
  if (valid.dist.kind === 'sdist') {
    const siblings = await target.list(path.slice(0, path.lastIndexOf('/')));
    if (siblings.some((s) => !s.folder && s.name.endsWith('.whl'))) metadata.leadFile = false;
  }
  try {
    await target.deploy(path, content, {
      expected: { sha256, size: content.length },
      noOverwrite: true,
      properties,
      metadata,
    });
  } catch (err) {
    if ((err as { code?: string }).code === 'ALREADY_EXISTS')
      return pypiError(reply, 400, alreadyExists(filename, target.repository.key));
    throw err;
  }
  if (valid.dist.kind === 'wheel') {
    try {
      await target.deploy(`${path}${METADATA_SUFFIX}`, valid.metadataBytes, {
        metadata: null,
        derived: true,
      });
    } catch (err) {
      // The wheel is stored; without its metadata file pip downloads the wheel to read it.
      ctx.log.warn({ path, err: (err as Error).message }, 'PEP 658 metadata file not stored');
    }
  }
  return reply.code(200).type('text/plain; charset=utf-8').send('OK\n');
}
