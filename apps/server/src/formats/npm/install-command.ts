import type { InstallCommandInput } from '../sdk/format.ts';
import { fillInstallCommand, INSTALL_COMMAND_TEMPLATES } from '../sdk/install-command.ts';

/** spec 001 §3: `npm`'s install command, e.g. `npm install NAME@VERSION` (without a version: the latest). */
export function npmInstallCommand(pkg: InstallCommandInput): string {
  return fillInstallCommand(INSTALL_COMMAND_TEMPLATES.npm, pkg);
}
