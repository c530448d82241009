import type { InstallCommandInput } from '../sdk/format.ts';
import { fillInstallCommand, INSTALL_COMMAND_TEMPLATES } from '../sdk/install-command.ts';

/** spec 001 §3: `go`'s install command, e.g. `go get MODULE@VERSION` (without a version: the latest). */
export function goInstallCommand(pkg: InstallCommandInput): string {
  return fillInstallCommand(INSTALL_COMMAND_TEMPLATES.go, pkg);
}
