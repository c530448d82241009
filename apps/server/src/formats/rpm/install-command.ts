import type { InstallCommandInput } from '../sdk/format.ts';
import { fillInstallCommand, INSTALL_COMMAND_TEMPLATES } from '../sdk/install-command.ts';

/** spec 001 §3: the rpm install command, `yum install NAME-VERSION` (a version is `[epoch:]version-release`). */
export function rpmInstallCommand(pkg: InstallCommandInput): string {
  return fillInstallCommand(INSTALL_COMMAND_TEMPLATES.rpm, pkg);
}
