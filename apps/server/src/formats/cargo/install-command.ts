import type { InstallCommandInput } from '../sdk/format.ts';
import { fillInstallCommand, INSTALL_COMMAND_TEMPLATES } from '../sdk/install-command.ts';

/** spec 001 §3: cargo's install command, with the registry Set Me Up names (`cargo add NAME@VERSION --registry granary`). */
export function cargoInstallCommand(pkg: InstallCommandInput): string {
  return `${fillInstallCommand(INSTALL_COMMAND_TEMPLATES.cargo, pkg)} --registry granary`;
}
