import type { PackageFormat } from '../sdk/format.ts';
import { splitMatrix } from '../sdk/matrix-params.ts';
import { debianAfterChange } from './after-change.ts';
import { extractDebMetadata } from './deb-file.ts';
import { DebianError, sendDebianError } from './errors.ts';
import { debianInstallCommand } from './install-command.ts';
import { isDerivedPath, parseIndexPath } from './layout.ts';
import { serveDeb, serveIndex } from './serve.ts';
import { debianSnippets } from './snippets.ts';
import { handleUpload, poolName } from './upload.ts';

/**
 * Debian repositories (issue 23) for apt: `.deb` uploads with their distribution, component and
 * architecture (Artifactory's `;deb.*=` matrix parameters or a query), read as dpkg reads them; the
 * automatic layout (`dists/{dist}/Release`, `InRelease` and `Release.gpg` signed with the
 * repository's key, `Packages[.gz]`, `by-hash`) and the flat layout (`flat/`), all derived from the
 * stored packages; `KEY.gpg`/`KEY.asc`. Local, remote (an upstream in Debian's mirror layout, passed
 * through, .debs checked against its Packages) and virtual (members' Packages merged, local first,
 * signed with the virtual's key). Errors are one line of text, which apt and curl show.
 */
export const debianFormat: PackageFormat = {
  id: 'debian',
  aliases: [],
  displayName: 'Debian',
  icon: 'debian',
  classes: ['local', 'remote', 'virtual'],
  extractMetadata: extractDebMetadata,
  snippets: debianSnippets,
  installCommand: debianInstallCommand,
  /** The derived indexes are the format's: the generic APIs neither show nor write them. */
  internalPaths: ['dists/**', 'flat/**', 'key.gpg', 'key.asc'],
  upstreamUrl: (remoteUrl, path) => `${remoteUrl.replace(/\/+$/, '')}/${path}`,
  /** Indexes change upstream; .debs and by-hash files never do. */
  isMetadataPath: (path) => !path.endsWith('.deb') && !path.includes('/by-hash/'),
  async upstreamCheck(path) {
    // .debs are fetched by the format itself (serve.ts), checked against the upstream's Packages.
    if (path.endsWith('.deb')) return false;
    if (path.endsWith('.gz')) return { kind: 'gzip' };
    return { kind: null };
  },
  packageFolder(path) {
    const named = poolName(path);
    return named ? path.split('/').slice(0, -1).join('/') || null : null;
  },
  afterChange: debianAfterChange,
  errorBody(error, reply) {
    reply.type('text/plain; charset=utf-8');
    return `${error.message}\n`;
  },
  async handle(request, reply, ctx) {
    try {
      if (request.method === 'PUT') {
        const { path } = splitMatrix(request.path);
        if (!path.endsWith('.deb') && !isDerivedPath(path)) return false;
        await handleUpload(request, reply, ctx);
        return true;
      }
      const read = request.method === 'GET' || request.method === 'HEAD';
      if (!read) {
        if (request.method === 'DELETE' && isDerivedPath(request.path))
          throw new DebianError(
            405,
            `'${request.path}' is derived from the packages: delete the .deb instead`,
          );
        return false;
      }
      const index = parseIndexPath(request.path);
      if (index) {
        await serveIndex(request, reply, ctx, index);
        return true;
      }
      if (request.path.endsWith('.deb') && ctx.repository.rclass !== 'local') {
        await serveDeb(reply, ctx, request.path);
        return true;
      }
      return false;
    } catch (err) {
      if (err instanceof DebianError) {
        if (err.status === 413) reply.header('connection', 'close');
        await sendDebianError(reply, err);
        return true;
      }
      throw err;
    }
  },
};
