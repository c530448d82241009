import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FormatCore, RepositoryHandle, RequestContext } from '../sdk/format.ts';
import { readBounded } from '../sdk/helpers.ts';
import { NAME_RE, OciError } from './oci.ts';
import type { UploadSessions } from './uploads.ts';

/** A request to `/v2/…`: the tail after `/v2/` and the query, untyped. */
export type V2Request = FastifyRequest<{
  Params: { '*'?: string };
  Querystring: Record<string, string | undefined>;
}>;

/** What every `/v2/` handler shares: the core's services and this node's upload sessions. */
export interface OciRegistry {
  core: FormatCore;
  uploads: UploadSessions;
}

/** One request to a registry endpoint: the request, its reply, and the parts of the URL its route named. */
export interface V2Call {
  registry: OciRegistry;
  request: V2Request;
  reply: FastifyReply;
  /** The route's named parts (`name`, `reference`, `digest`, `uuid`), as they stand in the URL. */
  params: Record<string, string>;
}

/** Largest page of tags or repositories (spec: a registry may return fewer than `n`). */
export const MAX_PAGE = 1000;

export function baseUrlOf(request: FastifyRequest, ctx?: RequestContext): string {
  return ctx?.baseUrl ?? `${request.protocol}://${request.host}`;
}

/** Who an upload session belongs to. */
export const owner = (request: FastifyRequest) => request.principal?.name ?? 'anonymous';

/** `{repoKey}/{image}` → its parts (spec "repository path method": the first segment is the repository). */
function splitName(name: string): { repoKey: string; image: string } {
  const slash = name.indexOf('/');
  const repoKey = slash < 0 ? '' : name.slice(0, slash);
  const image = slash < 0 ? '' : name.slice(slash + 1);
  if (!repoKey || !NAME_RE.test(image))
    throw new OciError(
      400,
      'NAME_INVALID',
      `'${name}' is not {repository key}/{image name} (lower-case image name components separated by /)`,
    );
  return { repoKey, image };
}

/** The Docker repository `name` is in, as the caller's request context, and the image inside it. */
export async function repoContext(
  registry: OciRegistry,
  request: FastifyRequest,
  name: string,
): Promise<{ ctx: RequestContext; image: string }> {
  const { repoKey, image } = splitName(name);
  const ctx = await registry.core.requestContext(request, repoKey);
  if (ctx?.repository.packageType !== 'docker') {
    if (!request.principal) throw new OciError(401, 'UNAUTHORIZED', 'Authentication is required');
    throw new OciError(404, 'NAME_UNKNOWN', `Repository '${repoKey}' is not a Docker repository here`);
  }
  return { ctx, image };
}

/** Where a push lands: the repository, or a virtual repository's default deployment repository. */
export async function writeContext(ctx: RepositoryHandle): Promise<RepositoryHandle> {
  if (ctx.repository.rclass === 'remote')
    throw new OciError(
      405,
      'UNSUPPORTED',
      `Remote repository '${ctx.repository.key}' does not accept pushes`,
    );
  if (ctx.repository.rclass === 'local') return ctx;
  try {
    return await ctx.deployContext();
  } catch (err) {
    throw new OciError(405, 'UNSUPPORTED', (err as Error).message);
  }
}

/** Deletes go to the local repository itself. */
export function localOnly(ctx: RepositoryHandle): void {
  if (ctx.repository.rclass !== 'local')
    throw new OciError(405, 'UNSUPPORTED', `Delete from the local repository, not '${ctx.repository.key}'`);
}

/** spec "Listing Tags": `n` (clamped to MAX_PAGE) and `last`, with a `Link` to the next page. */
export function paginate(
  reply: FastifyReply,
  all: string[],
  query: Record<string, string | undefined>,
  path: string,
): string[] {
  const sorted = [...all].sort();
  let n = MAX_PAGE;
  if (query.n !== undefined) {
    if (!/^\d+$/.test(query.n)) throw new OciError(400, 'UNSUPPORTED', `n must be a non-negative integer`);
    n = Math.min(Number(query.n), MAX_PAGE);
  }
  const after = query.last;
  const rest = after === undefined ? sorted : sorted.filter((t) => t > after);
  const page = rest.slice(0, n);
  if (rest.length > page.length && page.length > 0)
    reply.header('link', `<${path}?n=${n}&last=${encodeURIComponent(page.at(-1)!)}>; rel="next"`);
  return page;
}

/** A pushed manifest's bytes, at most `max` (413 MANIFEST_INVALID past that, an announced length at once). */
export function readManifestBody(body: Readable, max: number, announced?: string): Promise<Buffer> {
  return readBounded(
    body,
    max,
    () => new OciError(413, 'MANIFEST_INVALID', `The manifest is larger than ${max} bytes`),
    {
      announced,
    },
  );
}

/** The request carries a body (a chunk to append). */
export const hasBody = (request: FastifyRequest) =>
  request.headers['transfer-encoding'] !== undefined ||
  (request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0');
