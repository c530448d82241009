import type { Snippet, SnippetInput } from '../sdk/format.ts';

/**
 * Set Me Up for Terraform: the token terraform sends to the registry host (`credentials` in
 * ~/.terraformrc), modules and providers by their source address `HOST/{repoKey}__{namespace}/…`,
 * and for a local repository the deploys of module archives and provider packages.
 */
export function terraformSnippets({ baseUrl, repository, username }: SnippetInput): Snippet[] {
  const host = new URL(baseUrl).host;
  const key = repository.key;
  const url = `${baseUrl}/repository/${key}`;
  const user = username ?? '<USERNAME>';
  const snippets: Snippet[] = [
    {
      title: 'Credentials (~/.terraformrc; terraform sends the token as a Bearer token)',
      language: 'hcl',
      code: [
        `# registry host ${baseUrl} (terraform reaches registries over HTTPS only)`,
        `credentials "${host}" {`,
        '  token = "<IDENTITY_TOKEN>"',
        '}',
      ].join('\n'),
    },
    {
      title: 'Use a module',
      language: 'hcl',
      code: [
        `# registry ${baseUrl} (discovery: ${baseUrl}/.well-known/terraform.json)`,
        'module "<NAME>" {',
        `  source  = "${host}/${key}__<NAMESPACE>/<NAME>/<PROVIDER>"`,
        '  version = "<VERSION>"',
        '}',
      ].join('\n'),
    },
    {
      title: 'Use a provider',
      language: 'hcl',
      code: [
        `# registry ${baseUrl}`,
        'terraform {',
        '  required_providers {',
        '    <TYPE> = {',
        `      source  = "${host}/${key}__<NAMESPACE>/<TYPE>"`,
        '      version = "<VERSION>"',
        '    }',
        '  }',
        '}',
      ].join('\n'),
    },
  ];
  if (repository.rclass !== 'remote')
    snippets.push({
      title: 'Deploy a module (a zip or .tar.gz of its .tf files) or a provider package',
      language: 'shell',
      code: [
        `curl -u ${user} -T module.zip "${url}/<NAMESPACE>/<NAME>/<PROVIDER>/<VERSION>.zip"`,
        `curl -u ${user} -T terraform-provider-<TYPE>_<VERSION>_linux_amd64.zip \\`,
        `  "${url}/<NAMESPACE>/<TYPE>/<VERSION>/terraform-provider-<TYPE>_<VERSION>_linux_amd64.zip;terraform.protocols=5.0"`,
        `# SHA256SUMS is generated and signed with the repository's key (${url}/…/terraform-provider-<TYPE>_<VERSION>_SHA256SUMS.sig)`,
      ].join('\n'),
    });
  return snippets;
}
