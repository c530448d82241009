import { Transform } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { ArchiveError } from '../../platform/archives/bounded-archive.ts';
import type { FormatRequest, RequestContext, SpooledBytes } from '../sdk/format.ts';
import { splitMatrix } from '../sdk/matrix-params.ts';
import { isArchitecture, isSuiteName, renderParagraph } from './control.ts';
import { debMetadata, readDeb } from './deb-file.ts';
import { DebianError } from './errors.ts';
import { isDerivedPath, PROP } from './layout.ts';
import { rebuildLocal } from './local.ts';

/** The largest .deb accepted (Debian's own largest packages are a few hundred MiB). */
export const MAX_DEB_BYTES = 2 * 1024 * 1024 * 1024;

/** A coordinate from matrix parameters (`deb.distribution=a,b` or repeated) or the plain query form (`?distribution=a`). */
function coordinate(
  properties: Record<string, string[]>,
  query: FormatRequest['query'],
  name: 'distribution' | 'component' | 'architecture',
): string[] {
  const values = [...(properties[`deb.${name}`] ?? []), ...(query[name] ? [query[name]!] : [])];
  return [
    ...new Set(
      values
        .flatMap((v) => v.split(','))
        .map((v) => v.trim())
        .filter(Boolean),
    ),
  ];
}

/** Counts the body, refusing more than `max` bytes. */
function capped(max: number): Transform {
  let n = 0;
  return new Transform({
    transform(chunk: Buffer, _e, done) {
      n += chunk.length;
      if (n > max)
        return done(new DebianError(413, `the .deb is larger than ${max} bytes: nothing was stored`));
      done(null, chunk);
    },
  });
}

/**
 * The name, version and architecture a Debian pool file name spells (`{name}_{version}_{arch}.deb`,
 * the version without its epoch), or null for a name of another shape.
 */
export function poolName(path: string): { name: string; version: string; arch: string } | null {
  const base = path.split('/').at(-1) ?? '';
  const m = /^([a-z0-9][a-z0-9+.-]+)_([^_]+)_([a-z0-9-]+)\.deb$/.exec(base);
  return m ? { name: m[1]!, version: decodeURIComponent(m[2]!), arch: m[3]! } : null;
}

const withoutEpoch = (v: string) => v.replace(/^\d+:/, '');

/**
 * `PUT /repository/{key}/{path}.deb;deb.distribution=…;deb.component=…;deb.architecture=…` (Artifactory's
 * form) or `PUT …/{path}.deb?distribution=…&component=…&architecture=…` (the plain REST form). The
 * upload is spooled, then read as dpkg reads it — ar members, control paragraph, every data path — and
 * only a sound package whose file name agrees with its control file becomes a file; the indexes are
 * rebuilt before the answer, so `apt-get update` right after sees it. Without a distribution the
 * package is in the flat layout only; the component defaults to `main`, the architecture to the
 * control file's.
 */
export async function handleUpload(req: FormatRequest, reply: FastifyReply, ctx: RequestContext) {
  if (ctx.repository.rclass === 'remote')
    throw new DebianError(405, `remote repository '${ctx.repository.key}' does not accept uploads`);
  const { path, properties } = splitMatrix(req.path);
  if (isDerivedPath(path))
    throw new DebianError(
      405,
      `'${path}' is an index the repository derives from its packages: upload the .deb files instead`,
    );
  const distributions = coordinate(properties, req.query, 'distribution');
  const components = coordinate(properties, req.query, 'component');
  const architectures = coordinate(properties, req.query, 'architecture');
  for (const d of distributions)
    if (!isSuiteName(d)) throw new DebianError(400, `"${d}" is not a valid distribution name`);
  for (const c of components)
    if (!isSuiteName(c)) throw new DebianError(400, `"${c}" is not a valid component name`);
  for (const a of architectures)
    if (!isArchitecture(a)) throw new DebianError(400, `"${a}" is not a valid architecture`);

  const target = await ctx.deployContext();
  await target.authorize('write', path);
  const announced = req.headers['content-length'];
  if (typeof announced === 'string' && /^\d+$/.test(announced) && Number(announced) > MAX_DEB_BYTES) {
    req.body.resume();
    throw new DebianError(413, `the .deb is larger than ${MAX_DEB_BYTES} bytes: nothing was stored`);
  }
  const body = req.body.pipe(capped(MAX_DEB_BYTES));
  req.body.on('error', (err) => body.destroy(err));
  let spooled: SpooledBytes;
  try {
    spooled = await target.spool(path, body);
  } catch (err) {
    if (err instanceof DebianError) reply.header('connection', 'close');
    throw err;
  }
  try {
    let info: Awaited<ReturnType<typeof readDeb>>;
    try {
      info = await readDeb(await spooled.open(), { checkData: true });
    } catch (err) {
      if (err instanceof ArchiveError) throw new DebianError(400, `${err.message}: nothing was stored`);
      throw err;
    }
    const named = poolName(path);
    if (
      named &&
      (named.name !== info.name ||
        named.version !== withoutEpoch(info.version) ||
        (named.arch !== info.architecture && info.architecture !== 'all'))
    )
      throw new DebianError(
        400,
        `the file name says ${named.name} ${named.version} (${named.arch}) but the control file says ${info.name} ${info.version} (${info.architecture}): nothing was stored`,
      );
    const archs = architectures.length ? architectures : [info.architecture];
    if (info.architecture !== 'all' && archs.some((a) => a !== info.architecture))
      throw new DebianError(
        400,
        `deb.architecture ${archs.join(',')} does not match the package's Architecture ${info.architecture}: nothing was stored`,
      );
    const file = await target.deploy(path, Buffer.alloc(0), {
      spooled,
      metadata: debMetadata(info.control),
      properties: {
        ...properties,
        [PROP.distribution]: distributions,
        [PROP.component]: distributions.length ? (components.length ? components : ['main']) : components,
        [PROP.architecture]: archs,
        [PROP.name]: [info.name],
        [PROP.version]: [info.version],
        [PROP.control]: [renderParagraph(info.control)],
      },
    });
    try {
      await rebuildLocal(target);
    } catch (err) {
      // No package without its index: the upload is undone, the indexes as they were.
      await target.delete(path, { permanent: true }).catch(() => 0);
      await rebuildLocal(target).catch(() => undefined);
      throw err;
    }
    return reply.code(201).send({
      repo: target.repository.key,
      path: `/${file.path}`,
      downloadUri: `${ctx.baseUrl}/repository/${target.repository.key}/${file.path}`,
      size: String(file.size),
      checksums: { sha1: file.sha1, md5: file.md5, sha256: file.sha256 },
      package: { name: info.name, version: info.version, architecture: info.architecture },
    });
  } finally {
    await spooled.release();
  }
}
