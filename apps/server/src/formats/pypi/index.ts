import type { FastifyReply } from 'fastify';
import type { FormatRequest, PackageFormat, RequestContext } from '../sdk/format.ts';
import { pypiInstallCommand } from './install-command.ts';
import { extractPypiMetadata } from './metadata.ts';
import { normalizeName } from './names.ts';
import { reasonPhrase, redirect } from './respond.ts';
import { EXTERNAL, serveExternal, serveProject, serveRoot, upstreamUrlOf } from './simple.ts';
import { pypiSnippets } from './snippets.ts';
import { handleUpload } from './upload.ts';
import { pypiPackageFolder, pypiUpstreamCheck } from './upstream.ts';

/**
 * PyPI: the simple repository API (PEP 503 HTML, PEP 691 JSON, PEP 592, 658/714, 700) that pip reads,
 * and the legacy upload API twine writes to, for local, remote and virtual repositories. Files live
 * at `packages/{normalised name}/{version}/{file}`; everything else is derived from what is stored.
 */
const EXTERNAL_PATH = new RegExp(`^${EXTERNAL.replace('.', '\\.')}/([^/]+)/([^/]+)$`);

/** The answer to a client request, or false to leave it to the core's file handling (files, `.metadata`). */
function route(
  req: FormatRequest,
  reply: FastifyReply,
  ctx: RequestContext,
): false | Promise<unknown> | FastifyReply {
  const { path, method } = req;
  if (method === 'POST') return path === '' && handleUpload(req, reply, ctx);
  if (method !== 'GET' && method !== 'HEAD') return false;
  const query = req.raw.url.includes('?') ? req.raw.url.slice(req.raw.url.indexOf('?')) : '';
  if (path === 'simple') return redirect(reply, `${ctx.repositoryUrl}/simple/${query}`);
  if (path === 'simple/') return serveRoot(req, reply, ctx);
  const project = /^simple\/([^/]+)(\/?)$/.exec(path);
  if (project) {
    const normalized = normalizeName(project[1]!);
    // PEP 503: a non-normalised name (or no trailing slash) redirects to the normalised URL.
    if (normalized !== project[1] || project[2] !== '/')
      return redirect(reply, `${ctx.repositoryUrl}/simple/${encodeURIComponent(normalized)}/${query}`);
    return serveProject(req, reply, ctx, normalized);
  }
  const external = EXTERNAL_PATH.exec(path);
  if (external && ctx.repository.rclass !== 'local')
    return serveExternal(reply, ctx, external[1]!, external[2]!);
  return false;
}

export const pypiFormat: PackageFormat = {
  id: 'pypi',
  aliases: [],
  displayName: 'PyPI',
  icon: 'pypi',
  classes: ['local', 'remote', 'virtual'],
  extractMetadata: extractPypiMetadata,
  snippets: pypiSnippets,
  installCommand: pypiInstallCommand,
  /** Files an upstream serves outside its index (issue 12 §20): served by the format's own URL only. */
  internalPaths: [`${EXTERNAL}/**`],
  upstreamUrl: upstreamUrlOf,
  isMetadataPath: (path) => path.startsWith('simple/'),
  upstreamCheck: pypiUpstreamCheck,
  packageFolder: pypiPackageFolder,

  async handle(req, reply, ctx) {
    const answer = await route(req, reply, ctx);
    if (answer === false) return false;
    await answer;
    return true;
  },

  errorBody(error, reply) {
    reply.raw.statusMessage = reasonPhrase(error.message);
    reply.type('text/plain; charset=utf-8');
    return `${error.status} ${error.message}\n`;
  },
};
