import type { PackageFormat } from '../sdk/format.ts';
import { cargoAfterChange } from './after-change.ts';
import { cargoApi } from './api.ts';
import { extractCargoMetadata } from './crate-file.ts';
import { CargoError, cargoErrorBody } from './errors.ts';
import { cargoInstallCommand } from './install-command.ts';
import { crateOfIndexPath, dlTemplate, INDEX_ROOT, indexFileOf, parseCratePath } from './names.ts';
import { serveCrate, serveIndex } from './resolve.ts';
import { cargoSnippets } from './snippets.ts';

/**
 * Cargo registries (issue 23) for the real cargo client, as a sparse index at the repository's root
 * (`sparse+http://HOST/repository/{key}/`): `config.json`, index files by name prefix, `.crate`
 * downloads at `dl`, and the web API (publish, yank/unyank, owners, search). Local, remote (a sparse
 * upstream) and virtual repositories. Errors answer `{"errors":[{"detail"}]}`, which cargo prints.
 */
export const cargoFormat: PackageFormat = {
  id: 'cargo',
  aliases: [],
  displayName: 'Cargo',
  icon: 'cargo',
  classes: ['local', 'remote', 'virtual'],
  extractMetadata: extractCargoMetadata,
  snippets: cargoSnippets,
  installCommand: cargoInstallCommand,
  /** A local repository's index files: written by publish and yank, served as the index only. */
  internalPaths: [`${INDEX_ROOT}/**`],
  upstreamUrl: (remoteUrl, path) => `${remoteUrl.replace(/\/+$/, '')}/${path}`,
  /** A remote's cached index files (and config.json) change upstream; .crate files never do. */
  isMetadataPath: (path) => !path.startsWith('crates/'),
  /** The core fetches only index files from an upstream; .crate files come through `dl` (resolve.ts). */
  async upstreamCheck(path) {
    return crateOfIndexPath(path) ? { kind: null } : false;
  },
  packageFolder(path) {
    const at = parseCratePath(path);
    if (at) return `crates/${at.name}`;
    const name = crateOfIndexPath(path);
    return name ? indexFileOf(name) : null;
  },
  afterChange: cargoAfterChange,
  errorBody(error) {
    return cargoErrorBody(error.message);
  },
  async handle(request, reply, ctx) {
    const path = request.path;
    const read = request.method === 'GET' || request.method === 'HEAD';
    if (path === 'config.json' && read) {
      // Anonymous: answered only when anonymous may read; cargo retries with its token after a 401.
      await ctx.authorize('read', 'config.json');
      await reply
        .code(200)
        .header('cache-control', 'no-cache')
        .type('application/json; charset=utf-8')
        .send({
          dl: dlTemplate(ctx.repositoryUrl),
          api: ctx.repositoryUrl,
          'auth-required': ctx.principal !== null,
        });
      return true;
    }
    if (path.startsWith('api/v1/'))
      return (await cargoApi(request, reply, ctx, path.slice('api/v1/'.length))) !== false;
    const crateName = crateOfIndexPath(path);
    if (crateName && read) {
      await serveIndex(request, reply, ctx, crateName);
      return true;
    }
    const crate = parseCratePath(path);
    if (crate && read) {
      await serveCrate(reply, ctx, crate.name, crate.version);
      return true;
    }
    if (request.method === 'PUT' || request.method === 'POST')
      throw new CargoError(405, 'Publish crates with cargo publish (PUT /api/v1/crates/new)');
    if (read && path.startsWith(`${INDEX_ROOT}/`))
      throw new CargoError(404, `'${path}' is not part of the index`);
    return false;
  },
};
