import { ANONYMOUS_BEARER_TOKEN } from '@granary/contracts';
import { MEDIA_TYPES, OciError, requireSha256 } from './oci.ts';
import { listImages, listReferrers, listTags } from './store.ts';
import { paginate, repoContext, type V2Call } from './v2-call.ts';

const isRead = (method: string) => method === 'GET' || method === 'HEAD';

/** `/v2/`: the version check clients start with; 401 (with the token challenge) until they sign in. */
export async function ping({ request, reply }: V2Call) {
  if (!isRead(request.method))
    throw new OciError(405, 'UNSUPPORTED', `${request.method} is not supported here`);
  const anonymousToken = request.headers.authorization === `Bearer ${ANONYMOUS_BEARER_TOKEN}`;
  if (!request.principal && !anonymousToken)
    throw new OciError(401, 'UNAUTHORIZED', 'Authentication is required');
  return reply.send({});
}

/** `/v2/{name}/tags/list` (spec "Listing Tags"), paged. */
export async function tags({ registry, request, reply, params }: V2Call) {
  if (!isRead(request.method))
    throw new OciError(405, 'UNSUPPORTED', `${request.method} is not supported on tags`);
  const { name } = params as { name: string };
  const { ctx, image } = await repoContext(registry, request, name);
  await ctx.authorize('read', image);
  const all = await listTags(ctx, image);
  if (!all) throw new OciError(404, 'NAME_UNKNOWN', `${name} is not here`, { name });
  return reply.send({ name, tags: paginate(reply, all, request.query, `/v2/${name}/tags/list`) });
}

/** `/v2/{name}/referrers/{digest}` (spec "Listing Referrers"): an image index, filtered by `artifactType`. */
export async function referrers({ registry, request, reply, params }: V2Call) {
  if (!isRead(request.method))
    throw new OciError(405, 'UNSUPPORTED', `${request.method} is not supported on referrers`);
  const { name, digest } = params as { name: string; digest: string };
  const { ctx, image } = await repoContext(registry, request, name);
  await ctx.authorize('read', image);
  const hex = requireSha256(digest);
  const artifactType = request.query.artifactType;
  const manifests = await listReferrers(ctx, image, hex, artifactType);
  if (artifactType) reply.header('oci-filters-applied', 'artifactType');
  return reply
    .type(MEDIA_TYPES.ociIndex)
    .send(Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: MEDIA_TYPES.ociIndex, manifests })));
}

/** `/v2/_catalog`: the images of every Docker repository the caller may read, paged. */
export async function catalog({ registry, request, reply }: V2Call) {
  const names: string[] = [];
  for (const key of await registry.core.repositoryKeys('docker')) {
    const ctx = await registry.core.requestContext(request, key);
    if (!ctx || !(await ctx.can('read', ''))) continue;
    for (const image of await listImages(ctx))
      if (await ctx.can('read', image)) names.push(`${key}/${image}`);
  }
  return reply.send({ repositories: paginate(reply, names, request.query, '/v2/_catalog') });
}
