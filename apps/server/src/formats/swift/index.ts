import type { PackageFormat, StoredFile } from '../sdk/format.ts';
import { problem, SwiftError } from './errors.ts';
import { swiftInstallCommand } from './install-command.ts';
import { isPackageName, isScope, isVersion, type PackageRef, parseArchivePath } from './names.ts';
import { publishRelease } from './publish.ts';
import { serveArchive, serveIdentifiers, serveManifest, serveRelease, serveReleases } from './serve.ts';
import { swiftSnippets } from './snippets.ts';

/** The API version an `Accept: application/vnd.swift.registry.v{N}+…` asks for, when it names one. */
function refuseOtherApiVersion(accept: string | string[] | undefined) {
  const text = Array.isArray(accept) ? accept.join(',') : (accept ?? '');
  for (const m of text.matchAll(/application\/vnd\.swift\.registry\.v([^+;,\s]+)/gi))
    if (m[1] !== '1')
      throw new SwiftError(400, `Unsupported API version '${m[1]}': this registry speaks version 1`);
}

const ref = (scope: string, name: string): PackageRef => {
  if (!isScope(scope)) throw new SwiftError(400, `Invalid scope '${scope}'`);
  if (!isPackageName(name)) throw new SwiftError(400, `Invalid package name '${name}'`);
  return { scope, name };
};

const checkVersion = (version: string) => {
  if (!isVersion(version)) throw new SwiftError(400, `Invalid version '${version}': not a semantic version`);
  return version;
};

async function extractSwiftMetadata(file: StoredFile) {
  const at = parseArchivePath(file.path);
  return at ? { name: `${at.scope}.${at.name}`, version: at.version, leadFile: true } : null;
}

/**
 * Swift packages (issue 23): the package registry service of SE-0292 and publishing of SE-0391, at
 * the repository's URL (`swift package-registry set {baseUrl}/repository/{key}`), for local, remote (an
 * upstream registry) and virtual repositories. Every answer carries `Content-Version: 1`; errors are
 * problem details (`application/problem+json`). Releases are stored below the lower-cased
 * `{scope}/{name}/{version}/` (names.ts).
 */
export const swiftFormat: PackageFormat = {
  id: 'swift',
  aliases: [],
  displayName: 'Swift',
  icon: 'swift',
  classes: ['local', 'remote', 'virtual'],
  extractMetadata: extractSwiftMetadata,
  snippets: swiftSnippets,
  installCommand: swiftInstallCommand,
  upstreamUrl: (remoteUrl, path) => `${remoteUrl.replace(/\/+$/, '')}/${path}`,
  /** The core fetches nothing from a Swift upstream by path: the format asks with SE-0292's headers. */
  async upstreamCheck() {
    return false;
  },
  packageFolder(path) {
    const [scope, name] = path.split('/');
    return scope && name && isScope(scope) && isPackageName(name)
      ? `${scope.toLowerCase()}/${name.toLowerCase()}`
      : null;
  },
  errorBody(error, reply) {
    return problem(reply, error.status, error.message);
  },
  async handle(req, reply, ctx) {
    refuseOtherApiVersion(req.headers.accept);
    const read = req.method === 'GET' || req.method === 'HEAD';
    const parts = req.path.split('/');
    if (req.path === 'login') {
      if (req.method !== 'POST') throw new SwiftError(405, 'Sign in with POST /login');
      if (!ctx.principal)
        throw new SwiftError(401, 'Sign in with a user name and password or an access token');
      await reply.code(200).header('content-version', '1').send();
      return true;
    }
    if (req.path === 'identifiers') {
      if (!read) throw new SwiftError(405, 'Look identifiers up with GET');
      await serveIdentifiers(reply, ctx, req.query.url);
      return true;
    }
    if (parts.length === 2 && read) {
      const [scope, name] = parts as [string, string];
      await serveReleases(reply, ctx, ref(scope, name.replace(/\.json$/, '')));
      return true;
    }
    if (parts.length === 3) {
      const [scope, name, last] = parts as [string, string, string];
      if (req.method === 'PUT') {
        await publishRelease(req, reply, ctx, ref(scope, name), checkVersion(last));
        return true;
      }
      if (!read) return false;
      if (last.endsWith('.zip'))
        await serveArchive(reply, ctx, ref(scope, name), checkVersion(last.slice(0, -4)));
      else await serveRelease(reply, ctx, ref(scope, name), checkVersion(last.replace(/\.json$/, '')));
      return true;
    }
    if (parts.length === 4 && read && parts[3] === 'Package.swift') {
      const [scope, name, version] = parts as [string, string, string];
      await serveManifest(reply, ctx, ref(scope, name), checkVersion(version), req.query['swift-version']);
      return true;
    }
    if (req.method === 'PUT' || req.method === 'POST')
      throw new SwiftError(
        405,
        'Publish with swift package-registry publish (PUT /{scope}/{name}/{version})',
      );
    return false;
  },
};
