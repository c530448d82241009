import type { InstallCommandInput } from '../sdk/format.ts';
import { fillInstallCommand, INSTALL_COMMAND_TEMPLATES } from '../sdk/install-command.ts';

/** spec 001 §3: apt's install command (`apt-get install NAME=VERSION`). */
export function debianInstallCommand(pkg: InstallCommandInput): string {
  return fillInstallCommand(INSTALL_COMMAND_TEMPLATES.deb, pkg);
}
