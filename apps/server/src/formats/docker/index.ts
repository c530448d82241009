import type { PackageFormat } from '../sdk/format.ts';
import { dockerInstallCommand } from './install-command.ts';
import { imageVersionDetails } from './layers.ts';
import { extractDockerMetadata } from './metadata.ts';
import { registerOciRoutes } from './routes.ts';
import { dockerSnippets } from './snippets.ts';

/**
 * Docker and OCI images (OCI Distribution spec 1.1 at `/v2/`, images addressed
 * `HOST/{repoKey}/{image}`): local, remote (an upstream registry, token auth followed) and virtual
 * repositories, stored in Artifactory's layout.
 */
export const dockerFormat: PackageFormat = {
  id: 'docker',
  aliases: ['oci'],
  displayName: 'Docker',
  icon: 'docker',
  classes: ['local', 'remote', 'virtual'],
  extractMetadata: extractDockerMetadata,
  snippets: dockerSnippets,
  installCommand: dockerInstallCommand,
  versionDetails: imageVersionDetails,
  upstreamUrl(remoteUrl, path) {
    // Registry pulls go through `/v2/` (store.ts); a plain file read of a remote's tree maps below its URL.
    return `${remoteUrl.replace(/\/+$/, '')}/${path}`;
  },
  routes: registerOciRoutes,
  isMetadataPath(path) {
    // Tags move; everything addressed by digest never changes.
    return /\/(?:list\.)?manifest\.json$/.test(path) && !/\/sha256__[a-f0-9]{64}\//.test(path);
  },
};
