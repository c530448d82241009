import type { PackageFormat } from '../sdk/format.ts';
import { splitMatrix } from '../sdk/matrix-params.ts';
import { goInstallCommand } from './install-command.ts';
import { extractGoMetadata } from './metadata.ts';
import { escapePath, GoPathError, parseGoPath } from './module.ts';
import { GoError, sendGoError } from './respond.ts';
import { serveLatest, serveList, serveSumdb } from './serve.ts';
import { goSnippets } from './snippets.ts';
import { handleDeploy } from './upload.ts';

/**
 * Go (issue 23): the GOPROXY protocol the go command reads (`@v/list`, `@v/{version}.info|mod|zip`,
 * `@latest`, case-encoded module paths, `sumdb/` through remotes) for local, remote and virtual
 * repositories, and a REST deploy of module versions. Files live at the escaped protocol paths
 * (`{module}/@v/{version}.zip`), so a version's files are served as stored; the lists are derived.
 */
export const goFormat: PackageFormat = {
  id: 'go',
  aliases: ['golang'],
  displayName: 'Go',
  icon: 'go',
  classes: ['local', 'remote', 'virtual'],
  extractMetadata: extractGoMetadata,
  snippets: goSnippets,
  installCommand: goInstallCommand,
  upstreamUrl: (remoteUrl, path) => `${remoteUrl.replace(/\/+$/, '')}/${path}`,
  isMetadataPath: (path) => path.endsWith('/@v/list') || path.endsWith('/@latest'),
  upstreamCheck: async (path) => {
    // sumdb answers pass through, never cached as files
    if (path.startsWith('sumdb/')) return false;
    const p = (() => {
      try {
        return parseGoPath(path);
      } catch {
        return null;
      }
    })();
    if (p?.kind === 'file') return { kind: p.ext === 'zip' ? 'zip' : p.ext === 'info' ? 'json' : null };
    if (p?.kind === 'latest') return { kind: 'json' };
    return null;
  },
  packageFolder(path) {
    try {
      const p = parseGoPath(path);
      return p ? `${escapePath(p.module)}/@v` : null;
    } catch {
      return null;
    }
  },
  errorBody(error, reply) {
    reply.type('text/plain; charset=utf-8');
    return `${error.message}\n`;
  },
  async handle(req, reply, ctx) {
    try {
      const read = req.method === 'GET' || req.method === 'HEAD';
      if (read && req.path.startsWith('sumdb/')) {
        await serveSumdb(reply, ctx, req.path);
        return true;
      }
      const rawPath = req.path;
      const p = parseGoPath(req.method === 'PUT' ? splitMatrix(rawPath).path : rawPath);
      if (!p) {
        if (req.method === 'PUT')
          throw new GoError(
            400,
            `'${rawPath}' is not a module file: deploy {module}/@v/{version}.zip (and .mod, .info)`,
          );
        return false;
      }
      if (req.method === 'PUT') {
        if (p.kind !== 'file')
          throw new GoError(
            405,
            `${p.kind === 'list' ? '@v/list' : '@latest'} is derived: deploy the version's .zip`,
          );
        await handleDeploy(req, reply, ctx, p.module, p.version, p.ext, rawPath);
        return true;
      }
      if (!read) return false;
      if (p.kind === 'list') await serveList(reply, ctx, p.module);
      else if (p.kind === 'latest') await serveLatest(reply, ctx, p.module);
      else return false;
      return true;
    } catch (err) {
      if (err instanceof GoError) {
        if (err.status === 413) reply.header('connection', 'close');
        await sendGoError(reply, err);
        return true;
      }
      if (err instanceof GoPathError) {
        await sendGoError(reply, new GoError(400, err.message));
        return true;
      }
      throw err;
    }
  },
};
