import type { Snippet, SnippetInput } from '../sdk/format.ts';

/**
 * Set Me Up for YUM / DNF: a `.repo` file (metadata signature checked with the repository's key,
 * served at `repodata/repomd.xml.key`; packages are checked with their own vendors' keys), the
 * credentials as repository options, installing, and for local repositories the upload.
 */
export function rpmSnippets({ baseUrl, repository, username }: SnippetInput): Snippet[] {
  const url = `${baseUrl}/repository/${repository.key}`;
  const user = username ?? '<USERNAME>';
  const snippets: Snippet[] = [
    {
      title: `Repository file (/etc/yum.repos.d/${repository.key}.repo)`,
      language: 'ini',
      code: [
        `[${repository.key}]`,
        `name=${repository.key} (Granary)`,
        `baseurl=${url}`,
        'enabled=1',
        "# repodata/repomd.xml is signed with this repository's key: dnf checks it",
        'repo_gpgcheck=1',
        `gpgkey=${url}/repodata/repomd.xml.key`,
        "# packages signed by their vendor: gpgcheck=1 and add the vendor's key to gpgkey",
        'gpgcheck=0',
        '# when anonymous access is off:',
        `username=${user}`,
        'password=<PASSWORD_OR_TOKEN>',
      ].join('\n'),
    },
    {
      title: 'Install a package',
      language: 'shell',
      code: [
        `# repository "${repository.key}" = ${url}`,
        `sudo dnf --repo=${repository.key} install <PACKAGE>      # or: sudo yum install <PACKAGE>`,
        '# or without a .repo file:',
        `sudo dnf --repofrompath=${repository.key},${url} --repo=${repository.key} --setopt=${repository.key}.gpgcheck=0 install <PACKAGE>`,
      ].join('\n'),
    },
    {
      title: 'The signing key (for rpm or a mirror)',
      language: 'shell',
      code: `curl -fsSL ${url}/repodata/repomd.xml.key -o RPM-GPG-KEY-${repository.key}\nsudo rpm --import RPM-GPG-KEY-${repository.key}`,
    },
  ];
  if (repository.rclass !== 'remote')
    snippets.push({
      title: 'Upload a package (its file name as rpmbuild wrote it)',
      language: 'shell',
      code: [
        `curl -u ${user} -T <NAME>-<VERSION>-<RELEASE>.<ARCH>.rpm "${url}/<NAME>-<VERSION>-<RELEASE>.<ARCH>.rpm"`,
        '# any folder works too, e.g. Packages/<NAME>-…rpm; repodata/ is regenerated at once',
      ].join('\n'),
    });
  return snippets;
}
