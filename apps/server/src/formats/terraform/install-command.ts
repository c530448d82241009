import type { InstallCommandInput } from '../sdk/format.ts';

/**
 * Terraform has no install command: a module or provider is named in configuration, then `terraform
 * init` fetches it. The "command" is that configuration, with the source address Granary serves
 * (`HOST/{repoKey}__{namespace}/…`): a module `{namespace}/{name}/{provider}` in a `module` block, a
 * provider `{namespace}/{type}` in `required_providers`.
 */
export function terraformInstallCommand({ name, version, baseUrl, repoKey }: InstallCommandInput): string {
  const host = baseUrl ? new URL(baseUrl).host : '<HOST>';
  const source = `${host}/${repoKey ?? '<REPO_KEY>'}__${name}`;
  const pin = version ? `, version = "${version}"` : '';
  const parts = name.split('/');
  if (parts.length === 2)
    return `terraform { required_providers { ${parts[1]} = { source = "${source}"${pin} } } }`;
  return `module "${parts.at(-2) ?? name}" { source = "${source}"${pin} }`;
}
