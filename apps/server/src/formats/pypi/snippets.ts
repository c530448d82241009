import type { Snippet, SnippetInput } from '../sdk/format.ts';

const PASSWORD = '<PASSWORD>';

/** The index URL with credentials in it, as pip.conf takes it (`https://user:<PASSWORD>@host/…/simple`). */
function indexUrlWithCredentials(repositoryUrl: string, username: string): string {
  const m = /^(https?:\/\/)(.*)$/.exec(repositoryUrl);
  const user = username.startsWith('<') ? username : encodeURIComponent(username);
  return m ? `${m[1]}${user}:${PASSWORD}@${m[2]}/simple` : `${repositoryUrl}/simple`;
}

/** Set Me Up: pip.conf with the index URL and credentials, .pypirc for twine, install and publish commands. */
export function pypiSnippets({ baseUrl, repository, username }: SnippetInput): Snippet[] {
  const url = `${baseUrl}/repository/${repository.key}`;
  const user = username ?? '<USERNAME>';
  const snippets: Snippet[] = [
    {
      title: 'Configure pip: ~/.config/pip/pip.conf (Windows: %APPDATA%\\pip\\pip.ini)',
      language: 'ini',
      code: `# ${repository.key}: ${url}/simple\n[global]\nindex-url = ${indexUrlWithCredentials(url, user)}`,
    },
    {
      title: 'Install a package',
      language: 'shell',
      code: `pip install <PACKAGE_NAME>\n# or, without pip.conf (pip asks for the credentials):\npip install --index-url ${url}/simple <PACKAGE_NAME>`,
    },
  ];
  if (repository.rclass !== 'remote')
    snippets.push(
      {
        title: 'Configure twine: ~/.pypirc',
        language: 'ini',
        code: `[distutils]\nindex-servers = ${repository.key}\n\n[${repository.key}]\nrepository: ${url}/\nusername: ${user}\npassword: ${PASSWORD}`,
      },
      {
        title: 'Publish a package',
        language: 'shell',
        code: `python3 setup.py sdist\ntwine upload --repository ${repository.key} dist/*\n# or, without .pypirc:\ntwine upload --repository-url ${url}/ -u ${user} dist/*`,
      },
    );
  return snippets;
}
