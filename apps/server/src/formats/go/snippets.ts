import type { Snippet, SnippetInput } from '../sdk/format.ts';

/**
 * Set Me Up for Go: GOPROXY at the repository (credentials from ~/.netrc, which the go command reads),
 * the checksum-database settings private modules need (GONOSUMDB / GOPRIVATE, or GOSUMDB through a
 * remote), GOFLAGS=-mod=mod, GOTOOLCHAIN=local, and for local repositories the REST deploy.
 */
export function goSnippets({ baseUrl, repository, username }: SnippetInput): Snippet[] {
  const url = `${baseUrl}/repository/${repository.key}`;
  const host = baseUrl.replace(/^https?:\/\//, '').replace(/[:/].*$/, '');
  const user = username ?? '<USERNAME>';
  const snippets: Snippet[] = [
    {
      title: 'Credentials: ~/.netrc (the go command sends them to the proxy)',
      language: 'text',
      code: `# ${baseUrl}\nmachine ${host}\nlogin ${user}\npassword <PASSWORD_OR_TOKEN>`,
    },
    {
      title: 'Resolve modules through this repository',
      language: 'shell',
      code: [
        `export GOPROXY=${url}`,
        '# Your private modules are not in the public checksum database: do not ask it about them',
        'export GONOSUMDB=example.com/your-org/*   # or GOPRIVATE=example.com/your-org/* (also skips the proxy for them)',
        '# Resolve go.mod changes while building (CI): add missing requirements instead of failing',
        'export GOFLAGS=-mod=mod',
        '# Use the installed Go toolchain; never download another one through the proxy',
        'export GOTOOLCHAIN=local',
      ].join('\n'),
    },
    {
      title: 'Get a module',
      language: 'shell',
      code: `go get <MODULE>@<VERSION>\n# or for one command:\nGOPROXY=${url} go get <MODULE>@latest`,
    },
  ];
  if (repository.rclass === 'remote')
    snippets.push({
      title: 'Checksum database through this remote (when its upstream proxies one)',
      language: 'shell',
      code: `export GOSUMDB="sum.golang.org ${url}/sumdb/sum.golang.org"`,
    });
  else
    snippets.push({
      title: 'Deploy a module version (a module zip: every file under MODULE@VERSION/)',
      language: 'shell',
      code: [
        `curl -u ${user} -T go.mod "${url}/<MODULE>/@v/<VERSION>.mod"`,
        `curl -u ${user} -T <VERSION>.zip "${url}/<MODULE>/@v/<VERSION>.zip"`,
        '# upper-case letters of MODULE are written !lower-case (github.com/Azure/x → github.com/!azure/x)',
      ].join('\n'),
    });
  return snippets;
}
