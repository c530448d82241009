import type { InstallCommandInput } from '../sdk/format.ts';
import { fillInstallCommand, INSTALL_COMMAND_TEMPLATES } from '../sdk/install-command.ts';

/** spec 001 §3: `pypi`'s install command, e.g. `pip install NAME==VERSION` (without a version: the latest). */
export function pypiInstallCommand(pkg: InstallCommandInput): string {
  return fillInstallCommand(INSTALL_COMMAND_TEMPLATES.pypi, pkg);
}
