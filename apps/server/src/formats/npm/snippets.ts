import type { Snippet, SnippetInput } from '../sdk/format.ts';

/** `https://host/repository/key/` → `//host/repository/key/` (the prefix npm keys credentials by). */
export const nerfDart = (url: string) => url.replace(/^https?:/, '');

/**
 * Set Me Up (spec 000 §quick start, npm "Configure"): an `.npmrc` with the repository's registry URL,
 * base64 auth made of the user and an identity token (never a real secret here), always-auth true;
 * then install and publish.
 */
export function npmSnippets({ baseUrl, repository, username }: SnippetInput): Snippet[] {
  const registry = `${baseUrl}/repository/${repository.key}/`;
  const user = username ?? '<USERNAME>';
  const auth = nerfDart(registry);
  return [
    {
      title: 'Configure (.npmrc)',
      language: 'ini',
      code: [
        `registry=${registry}`,
        `${auth}:_auth=<BASE64 OF ${user}:<IDENTITY_TOKEN>>`,
        `${auth}:always-auth=true`,
      ].join('\n'),
    },
    {
      title: 'Configure with the npm CLI',
      language: 'shell',
      code: [
        `npm config set registry ${registry}`,
        `npm config set ${auth}:_auth "$(printf '%s' '${user}:<IDENTITY_TOKEN>' | base64 -w0)"`,
        `npm config set ${auth}:always-auth true`,
      ].join('\n'),
    },
    {
      title: 'Or sign in with npm',
      language: 'shell',
      code: `npm login --registry ${registry}`,
    },
    { title: 'Install', language: 'shell', code: `npm install <PACKAGE_NAME> --registry ${registry}` },
    { title: 'Publish', language: 'shell', code: `npm publish --registry ${registry}` },
  ];
}
