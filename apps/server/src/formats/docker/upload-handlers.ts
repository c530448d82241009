import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { OciError, requireSha256, UPLOADS } from './oci.ts';
import { findBlob, linkBlob, storeBlob } from './store.ts';
import { hasBody, owner, repoContext, type V2Call, writeContext } from './v2-call.ts';

const uploadHeaders = (reply: FastifyReply, name: string, uuid: string, size: number) =>
  reply
    .header('location', `/v2/${name}/blobs/uploads/${uuid}`)
    .header('docker-upload-uuid', uuid)
    .header('range', `0-${Math.max(0, size - 1)}`)
    .header('content-length', '0');

const blobCreated = (reply: FastifyReply, name: string, hex: string) =>
  reply
    .code(201)
    .header('location', `/v2/${name}/blobs/sha256:${hex}`)
    .header('docker-content-digest', `sha256:${hex}`)
    .header('content-length', '0')
    .send();

/**
 * `/v2/{name}/blobs/uploads/{uuid}` (spec "Pushing blobs"): POST opens an upload — or mounts a blob
 * from another repository (`mount`, `from`), or stores one whole (`digest`) — and PATCH appends a
 * chunk, PUT closes the upload with its digest, GET tells how far it is, DELETE cancels it. Operations
 * on one session run one at a time.
 */
export async function uploads(call: V2Call) {
  const { registry, request, reply } = call;
  const { name, uuid } = call.params as { name: string; uuid: string };
  const sessions = registry.uploads;
  const { ctx, image } = await repoContext(registry, request, name);
  const dctx = await writeContext(ctx);
  await dctx.authorize('write', image);
  const body = request.raw as Readable;
  const query = request.query;
  if (request.method === 'POST' && uuid === '') {
    if (query.mount) {
      const hex = requireSha256(query.mount);
      const from = query.from
        ? await repoContext(registry, request, query.from).catch(() => null)
        : { ctx, image };
      const source =
        from && (await from.ctx.can('read', from.image)) ? await findBlob(from.ctx, from.image, hex) : null;
      if (source) {
        body.resume();
        await linkBlob(dctx, image, hex);
        return blobCreated(reply, name, hex);
      }
    }
    if (query.digest) {
      const hex = requireSha256(query.digest);
      await storeBlob(dctx, image, hex, body);
      return blobCreated(reply, name, hex);
    }
    body.resume();
    const session = await sessions.open(name, owner(request));
    return uploadHeaders(reply, name, session.uuid, 0).code(202).send();
  }
  const session = await sessions.get(uuid, name, owner(request));
  const range = /^(?:bytes[ =])?(\d+)-(\d+)$/.exec(String(request.headers['content-range'] ?? ''));
  const start = range ? Number(range[1]) : undefined;
  const length = range ? Number(range[2]) - Number(range[1]) + 1 : undefined;
  if (request.method === 'GET') {
    body.resume();
    return uploadHeaders(reply, name, uuid, session.size).code(204).send();
  }
  const spoolPath = `${image}/${UPLOADS}/upload-${uuid}`;
  /** The first chunk's bytes in the blob store (spooled by this process, or found again after a restart). */
  const partialBytes = async () => {
    const partial = session.partial!;
    const spooled = sessions.spooledOf(session) ?? (await dctx.respool(spoolPath, partial.sha256));
    if (!spooled || spooled.size !== partial.size) {
      await sessions.close(session);
      throw new OciError(
        404,
        'BLOB_UPLOAD_UNKNOWN',
        `The bytes of upload '${uuid}' are gone: start it again`,
      );
    }
    return spooled;
  };
  /** A second chunk after a first one in the blob store: the bytes so far go to the session's file, the rest appends there. */
  const materialize = async () => {
    if (!session.partial) return;
    await sessions.materialize(session, await (await partialBytes()).open());
  };
  const close = () => sessions.close(session);
  if (request.method === 'DELETE') {
    body.resume();
    await sessions.serial(uuid, close);
    return reply.code(204).send();
  }
  if (request.method === 'PATCH') {
    await sessions.serial(uuid, async () => {
      if (session.size === 0 && !session.partial && !start) {
        const spooled = await dctx.spool(spoolPath, body, {
          expected: length !== undefined ? { size: length } : {},
          // issue 21: the blob GC keeps the first chunk as long as the session may live
          holdSecs: sessions.holdSecs,
        });
        await sessions.setPartial(session, spooled);
        return;
      }
      await materialize();
      await sessions.append(session, body, start, length);
    });
    return uploadHeaders(reply, name, uuid, session.size).code(202).send();
  }
  if (request.method === 'PUT') {
    const hex = requireSha256(query.digest);
    await sessions.serial(uuid, async () => {
      try {
        if (hasBody(request)) {
          if (session.size === 0 && !session.partial) {
            await storeBlob(dctx, image, hex, body);
            return;
          }
          await materialize();
          await sessions.append(session, body, start ?? session.size, length);
        } else body.resume();
        if (session.partial) {
          if (session.partial.sha256 !== hex)
            throw new OciError(
              400,
              'DIGEST_INVALID',
              `The uploaded content is sha256:${session.partial.sha256}, not sha256:${hex}; nothing was stored`,
            );
          await linkBlob(dctx, image, hex, await partialBytes());
        } else await storeBlob(dctx, image, hex, sessions.read(session));
      } finally {
        await close();
      }
    });
    return blobCreated(reply, name, hex);
  }
  throw new OciError(405, 'UNSUPPORTED', `${request.method} is not supported on uploads`);
}
