import type { FastifyReply } from 'fastify';
import type { FormatRequest, PackageFormat, RequestContext } from '../sdk/format.ts';
import { acceptChecksum, acceptMetadata, deployFile } from './deploy.ts';
import { MavenError, reasonPhrase } from './errors.ts';
import { checksumOf, isMetadataFile, parseMavenPath } from './layout.ts';
import { extractMavenMetadata } from './metadata.ts';
import { policyRefusal } from './policy.ts';
import { afterChange } from './regenerate.ts';
import { mergedMetadata, sendText, serveChecksum } from './serve.ts';
import { distributionManagementXml, gradleSnippets, mavenSnippets, settingsXml } from './snippets.ts';
import { mavenPackageFolder, mavenUpstreamCheck } from './upstream.ts';

/**
 * Maven (and Gradle, which publishes and resolves the same layout): deploy by PUT (`deploy.ts`), resolve
 * by GET (`serve.ts`: checksums, merged metadata in virtual repositories), release/snapshot policies
 * (`policy.ts`), maven-metadata.xml regenerated from the stored files (`regenerate.ts`, building with
 * `index-builder.ts`).
 */

async function handle(request: FormatRequest, reply: FastifyReply, ctx: RequestContext): Promise<boolean> {
  const path = request.path;
  if (!path || path.endsWith('/')) return false;
  const sum = checksumOf(path);
  const rclass = ctx.repository.rclass;
  switch (request.method) {
    case 'GET':
    case 'HEAD': {
      const refusal = rclass !== 'virtual' && policyRefusal(ctx.repository, sum?.target ?? path, false);
      if (refusal) throw new MavenError(404, refusal);
      if (sum) return serveChecksum(request, reply, ctx, sum);
      if (rclass === 'virtual' && isMetadataFile(path)) {
        await ctx.authorize('read', path);
        const merged = await mergedMetadata(ctx, path);
        if (!merged) throw new MavenError(404, `'${path}' not found in repository '${ctx.repository.key}'`);
        return sendText(request, reply, merged, 'text/xml; charset=utf-8');
      }
      return false;
    }
    case 'PUT':
      if (rclass === 'remote') return false;
      if (sum) return acceptChecksum(request, reply, ctx, sum);
      if (isMetadataFile(path)) return acceptMetadata(request, reply, ctx);
      return deployFile(request, reply, ctx);
    // DELETE: the core deletes, then regenerates the metadata through `afterChange` (as the server).
    default:
      return false;
  }
}

/** Paths a remote revalidates after its retrieval cache period: metadata and non-unique snapshot files. */
function isMetadataPath(path: string): boolean {
  if (isMetadataFile(checksumOf(path)?.target ?? path)) return true;
  const parsed = parseMavenPath(path);
  return !!parsed?.snapshot && parsed.fileVersion === parsed.version;
}

function makeFormat(id: 'maven' | 'gradle'): PackageFormat {
  return {
    id,
    aliases: [],
    displayName: id === 'maven' ? 'Maven' : 'Gradle',
    icon: id,
    classes: ['local', 'remote', 'virtual'],
    extractMetadata: extractMavenMetadata,
    snippets: id === 'maven' ? mavenSnippets : gradleSnippets,
    clientConfig(name, { baseUrl, username, repositories }) {
      if (name === 'settings.xml')
        return { title: 'settings.xml', language: 'xml', code: settingsXml(baseUrl, repositories, username) };
      if (name === 'distributionManagement')
        return {
          title: 'distributionManagement',
          language: 'xml',
          code: distributionManagementXml(baseUrl, repositories.release, repositories.snapshot),
        };
      return null;
    },
    upstreamUrl: (remoteUrl, path) => `${remoteUrl.replace(/\/+$/, '')}/${path}`,
    handle,
    afterChange,
    isMetadataPath,
    upstreamCheck: mavenUpstreamCheck,
    packageFolder: mavenPackageFolder,
    errorBody(error, reply) {
      reply.type('text/plain; charset=utf-8');
      reply.raw.statusMessage = reasonPhrase(error.message);
      return `${error.message}\n`;
    },
  };
}

export const mavenFormat = makeFormat('maven');
/** Gradle repositories: the same Maven layout and protocol, Gradle-first Set Me Up. */
export const gradleFormat = makeFormat('gradle');
