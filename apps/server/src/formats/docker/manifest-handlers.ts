import type { Readable } from 'node:stream';
import { isValidReference, MAX_MANIFEST_BYTES, OciError } from './oci.ts';
import { deleteManifest, findManifest, storeManifest } from './store.ts';
import { localOnly, readManifestBody, repoContext, type V2Call, writeContext } from './v2-call.ts';

/** `/v2/{name}/manifests/{reference}`: GET and HEAD pull, PUT pushes, DELETE removes (local repositories). */
export async function manifests({ registry, request, reply, params }: V2Call) {
  const { name, reference: ref } = params as { name: string; reference: string };
  const { ctx, image } = await repoContext(registry, request, name);
  if (request.method === 'GET' || request.method === 'HEAD') {
    await ctx.authorize('read', image);
    // No manifest can be there by a reference that is no tag or digest (the conformance suite asks 404).
    const hit = isValidReference(ref) ? await findManifest(ctx, image, ref, true) : null;
    if (!hit)
      throw new OciError(404, 'MANIFEST_UNKNOWN', `${name}:${ref} is not here`, { name, reference: ref });
    await ctx.checkDownload(hit.file);
    reply
      .header('content-type', hit.mediaType)
      .header('docker-content-digest', hit.digest)
      .header('etag', `"${hit.digest}"`)
      .header('content-length', String(hit.bytes.length));
    return reply.code(200).send(request.method === 'HEAD' ? undefined : hit.bytes);
  }
  if (request.method === 'PUT') {
    const dctx = await writeContext(ctx);
    await dctx.authorize('write', image);
    const body = await readManifestBody(
      request.raw as Readable,
      MAX_MANIFEST_BYTES,
      request.headers['content-length'] as string | undefined,
    );
    const { digest, parsed } = await storeManifest(dctx, image, ref, request.headers['content-type'], body);
    reply.header('location', `/v2/${name}/manifests/${digest}`).header('docker-content-digest', digest);
    if (parsed.subject) reply.header('oci-subject', parsed.subject.digest);
    return reply.code(201).send();
  }
  if (request.method === 'DELETE') {
    localOnly(ctx);
    await ctx.authorize('delete', image);
    await deleteManifest(ctx, image, ref);
    return reply.code(202).send();
  }
  throw new OciError(405, 'UNSUPPORTED', `${request.method} is not supported on manifests`);
}
