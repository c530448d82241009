import type { Snippet, SnippetInput } from '../sdk/format.ts';

/**
 * Set Me Up for Swift (SE-0292): the registry for a scope or by default, the sign-in SwiftPM keeps in
 * its credential store, a dependency by identity, and publishing (SE-0391).
 */
export function swiftSnippets({ baseUrl, repository, username }: SnippetInput): Snippet[] {
  const url = `${baseUrl}/repository/${repository.key}`;
  const user = username ?? '<USERNAME>';
  const snippets: Snippet[] = [
    {
      title: 'Use this registry (for every scope, or one)',
      language: 'shell',
      code: [
        `swift package-registry set ${url}`,
        `# or only for a scope:`,
        `swift package-registry set --scope <SCOPE> ${url}`,
      ].join('\n'),
    },
    {
      title: 'Sign in',
      language: 'shell',
      code: `swift package-registry login ${url} --username ${user} --password <PASSWORD_OR_TOKEN>`,
    },
    {
      title: 'Depend on a package (Package.swift)',
      language: 'swift',
      code: [`// resolved through ${url}`, '.package(id: "<SCOPE>.<NAME>", from: "<VERSION>")'].join('\n'),
    },
  ];
  if (repository.rclass !== 'remote')
    snippets.push({
      title: 'Publish a release',
      language: 'shell',
      code: [
        `swift package-registry publish <SCOPE>.<NAME> <VERSION> --url ${url} --metadata-path package-metadata.json`,
        '# package-metadata.json: {"description": "…", "repositoryURLs": ["https://github.com/<ORG>/<REPO>"]}',
      ].join('\n'),
    });
  return snippets;
}
