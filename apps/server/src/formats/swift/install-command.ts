import type { InstallCommandInput } from '../sdk/format.ts';

/**
 * Swift has no install command: a package is a dependency in Package.swift, by its registry identity
 * `{scope}.{name}`, resolved by `swift package resolve` through the registry set for the scope.
 */
export function swiftInstallCommand({ name, version }: InstallCommandInput): string {
  return `swift package add-dependency ${name} --type registry ${version ? `--exact ${version}` : '--from <VERSION>'}`;
}
