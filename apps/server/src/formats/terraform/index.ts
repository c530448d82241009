import type { PackageFormat } from '../sdk/format.ts';
import { TerraformError, terraformErrorBody } from './errors.ts';
import { terraformInstallCommand } from './install-command.ts';
import { extractTerraformMetadata } from './metadata.ts';
import { serveModuleArchive } from './modules.ts';
import { moduleFolder, parseModulePath, parseProviderPath, providerFolder, shasumsName } from './names.ts';
import { serveProviderFile } from './providers.ts';
import { registerTerraformRoutes, serveRegistryCall } from './registry-api.ts';
import { terraformSnippets } from './snippets.ts';
import { handleDeploy } from './upload.ts';
import { DISCOVERY } from './upstream.ts';

/** `{namespace}/{type}/{version}/{file}` of a provider version's SHA256SUMS or its signature. */
function parseSumsPath(path: string) {
  const m = /^([^/]+)\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(path);
  if (!m) return null;
  const [, namespace, type, version, filename] = m as unknown as string[];
  const sums = shasumsName(type!, version!);
  return filename === sums || filename === `${sums}.sig`
    ? { namespace: namespace!, type: type!, version: version!, filename: filename! }
    : null;
}

/**
 * Terraform (issue 23): the module and provider registry protocols for terraform init, for local,
 * remote (an upstream registry, found by its service discovery) and virtual repositories.
 *
 * Addressing follows Artifactory: terraform finds a registry at a host's root
 * (`https://HOST/.well-known/terraform.json`), so the host answers discovery once for every
 * repository and the source address names the repository in its namespace,
 * `HOST/{repoKey}__{namespace}/{name}/{provider}` (a provider `HOST/{repoKey}__{namespace}/{type}`),
 * served at `/api/terraform/v1/{modules|providers}/…`. Each repository also answers the same API
 * below its own URL (`/repository/{key}/.well-known/terraform.json`, `/repository/{key}/v1/…`, plain
 * namespaces): what a remote repository in another Granary points at.
 *
 * Files keep Artifactory's layout: module archives `{namespace}/{name}/{provider}/{version}.zip`
 * (or `.tar.gz`), deployed with PUT and fetched at the `X-Terraform-Get` URL a download answers;
 * provider packages `{namespace}/{type}/{version}/terraform-provider-{type}_{version}_{os}_{arch}.zip`,
 * whose `SHA256SUMS` the repository lists and signs with its OpenPGP key.
 */
export const terraformFormat: PackageFormat = {
  id: 'terraform',
  aliases: [],
  displayName: 'Terraform',
  icon: 'terraform',
  classes: ['local', 'remote', 'virtual'],
  extractMetadata: extractTerraformMetadata,
  snippets: terraformSnippets,
  installCommand: terraformInstallCommand,
  upstreamUrl: (remoteUrl, path) => `${remoteUrl.replace(/\/+$/, '')}/${path}`,
  /** A remote's cached discovery and version lists change upstream; archives and download answers never do. */
  isMetadataPath: (path) => path === DISCOVERY || path.endsWith('/versions'),
  /** The core fetches only the registry's JSON documents; archives come through their download answers. */
  async upstreamCheck(path) {
    if (path === DISCOVERY || path.endsWith('/versions') || /\/download\/[^/]+\/[^/]+$/.test(path))
      return { kind: 'json' };
    return false;
  },
  packageFolder(path) {
    const module = parseModulePath(path);
    if (module) return moduleFolder(module);
    const provider = parseProviderPath(path) ?? parseSumsPath(path);
    return provider ? providerFolder(provider) : null;
  },
  routes: registerTerraformRoutes,
  errorBody(error) {
    return terraformErrorBody(error.message);
  },
  async handle(req, reply, ctx) {
    const path = req.path;
    const read = req.method === 'GET' || req.method === 'HEAD';
    if (path === DISCOVERY && read) {
      await ctx.authorize('read', '');
      await reply
        .type('application/json')
        .header('cache-control', 'no-cache')
        .send({
          'modules.v1': `${ctx.repositoryUrl}/v1/modules/`,
          'providers.v1': `${ctx.repositoryUrl}/v1/providers/`,
        });
      return true;
    }
    for (const service of ['modules', 'providers'] as const)
      if (path.startsWith(`v1/${service}/`)) {
        await serveRegistryCall(reply, ctx, service, path.slice(`v1/${service}/`.length), req.method);
        return true;
      }
    if (req.method === 'PUT') {
      await handleDeploy(req, reply, ctx);
      return true;
    }
    if (req.method === 'POST') throw new TerraformError(405, 'Deploy with PUT');
    if (!read) return false;
    const sums = parseSumsPath(path);
    if (sums) {
      await serveProviderFile(reply, ctx, sums, sums.version, sums.filename);
      return true;
    }
    if (ctx.repository.rclass === 'local') return false;
    const module = parseModulePath(path);
    if (module) {
      await serveModuleArchive(reply, ctx, module, module.version, path);
      return true;
    }
    const provider = parseProviderPath(path);
    if (provider) {
      await serveProviderFile(reply, ctx, provider, provider.version, provider.filename);
      return true;
    }
    return false;
  },
};
