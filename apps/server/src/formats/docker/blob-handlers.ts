import { OciError, requireSha256 } from './oci.ts';
import { findBlob } from './store.ts';
import { localOnly, repoContext, type V2Call } from './v2-call.ts';

/** `/v2/{name}/blobs/{digest}`: GET and HEAD pull a layer or config, DELETE removes it (local repositories). */
export async function blobs({ registry, request, reply, params }: V2Call) {
  const { name, digest } = params as { name: string; digest: string };
  const { ctx, image } = await repoContext(registry, request, name);
  const hex = requireSha256(digest);
  if (request.method === 'GET' || request.method === 'HEAD') {
    await ctx.authorize('read', image);
    const file = await findBlob(ctx, image, hex, true);
    if (!file) throw new OciError(404, 'BLOB_UNKNOWN', `${digest} is not in ${name}`, { digest });
    reply.header('docker-content-digest', `sha256:${hex}`);
    return ctx.send(reply, file);
  }
  if (request.method === 'DELETE') {
    localOnly(ctx);
    await ctx.authorize('delete', image);
    const file = await ctx.stat(`${image}/_uploads/sha256__${hex}`);
    if (!file) throw new OciError(404, 'BLOB_UNKNOWN', `${digest} is not in ${name}`, { digest });
    await ctx.delete(file.path);
    return reply.code(202).send();
  }
  throw new OciError(405, 'UNSUPPORTED', `${request.method} is not supported on blobs`);
}
