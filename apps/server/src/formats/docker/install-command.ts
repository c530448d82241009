import type { InstallCommandInput } from '../sdk/format.ts';
import { fillInstallCommand, INSTALL_COMMAND_TEMPLATES } from '../sdk/install-command.ts';
import { registryHost } from './snippets.ts';

/**
 * spec 001 §3: `docker`'s install command, e.g. `docker pull NAME:TAG` (without a version: the latest). Given
 * the server and the repository (issue 22), the image is named as this registry serves it,
 * `HOST/{repoKey}/NAME:TAG` with HOST as Set Me Up writes it: a bare `NAME:TAG` would pull from Docker Hub.
 */
export function dockerInstallCommand(pkg: InstallCommandInput): string {
  const name =
    pkg.baseUrl && pkg.repoKey ? `${registryHost(pkg.baseUrl)}/${pkg.repoKey}/${pkg.name}` : pkg.name;
  return fillInstallCommand(INSTALL_COMMAND_TEMPLATES.docker, { ...pkg, name });
}
