import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { FormatRequest, RepositoryHandle, RequestContext } from '../sdk/format.ts';
import { checksumOfBytes, checksumOfFile } from './checksums.ts';
import { MavenError } from './errors.ts';
import { mergeMetadata, parseMetadata, serializeMetadata } from './index-builder.ts';
import { type ChecksumAlgorithm, isMetadataFile } from './layout.ts';
import { MAX_XML_BYTES, readBounded } from './metadata.ts';
import { policyRefusal } from './policy.ts';

/** Reads the format answers itself: checksum files computed from the stored file, and a virtual repository's merged maven-metadata.xml. */

/**
 * A virtual repository's maven-metadata.xml: the members' documents merged; null when none has one.
 * Dependency-confusion protection: when a local member holds the document, remote members' are left
 * out, and not even asked for it (the coordinates never leave the server).
 */
export async function mergedMetadata(ctx: RepositoryHandle, path: string): Promise<Buffer | null> {
  const all = await ctx.members();
  const locals = all.filter((m) => m.repository.rclass === 'local');
  const held = await Promise.all(
    locals.map(async (m) => !policyRefusal(m.repository, path, false) && !!(await m.stat(path))),
  );
  const members = held.some(Boolean) ? locals : all;
  const found = await Promise.all(
    members.map(async (member) => {
      if (policyRefusal(member.repository, path, false)) return null;
      try {
        const file = await member.get(path);
        if (!file) return null;
        const doc = parseMetadata(await readBounded(await file.open(), MAX_XML_BYTES));
        return { doc, local: member.repository.rclass === 'local' };
      } catch (err) {
        ctx.log.warn(
          { member: member.repository.key, path, err: (err as Error).message },
          'member metadata skipped',
        );
        return null;
      }
    }),
  );
  let docs = found.filter((d) => d !== null);
  if (docs.some((d) => d.local)) docs = docs.filter((d) => d.local);
  const merged = mergeMetadata(docs.map((d) => d.doc));
  return merged && serializeMetadata(merged);
}

export function sendText(request: FormatRequest, reply: FastifyReply, body: Buffer, type: string): true {
  reply
    .code(200)
    .type(type)
    .header('content-length', String(body.length))
    .header('x-content-type-options', 'nosniff')
    .header('etag', `"${createHash('sha1').update(body).digest('hex')}"`);
  if (request.method === 'HEAD') reply.send();
  else reply.send(body);
  return true;
}

export async function serveChecksum(
  request: FormatRequest,
  reply: FastifyReply,
  ctx: RequestContext,
  sum: { target: string; algorithm: ChecksumAlgorithm },
): Promise<boolean> {
  let digest: string | null = null;
  if (ctx.repository.rclass === 'virtual' && isMetadataFile(sum.target)) {
    await ctx.authorize('read', sum.target);
    const merged = await mergedMetadata(ctx, sum.target);
    digest = merged && checksumOfBytes(merged, sum.algorithm);
  } else {
    const file = await ctx.get(sum.target);
    digest = file && (await checksumOfFile(file, sum.algorithm));
  }
  if (!digest) throw new MavenError(404, `'${request.path}' not found in repository '${ctx.repository.key}'`);
  return sendText(request, reply, Buffer.from(digest), 'text/plain; charset=utf-8');
}
