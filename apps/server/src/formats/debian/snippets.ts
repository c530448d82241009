import type { Snippet, SnippetInput } from '../sdk/format.ts';

/**
 * Set Me Up for Debian: the repository's key (`KEY.gpg`, binary, for `signed-by`), the sources line
 * (automatic layout `dists/{dist}`, or the flat layout `./`), credentials in apt's auth.conf, then
 * install; for local and virtual repositories the upload with Artifactory's matrix parameters.
 */
export function debianSnippets({ baseUrl, repository, username }: SnippetInput): Snippet[] {
  const url = `${baseUrl}/repository/${repository.key}`;
  // apt_auth.conf(5): an entry without a scheme matches https only; http must be named.
  const machine = `${baseUrl.startsWith('https://') ? baseUrl.slice('https://'.length) : baseUrl}/repository/${repository.key}`;
  const user = username ?? '<USERNAME>';
  const keyring = `/etc/apt/keyrings/${repository.key}.gpg`;
  const snippets: Snippet[] = [
    {
      title: "Trust the repository's signing key",
      language: 'shell',
      code:
        repository.rclass === 'remote'
          ? [
              `# ${url} serves its upstream's Release files, signed by the upstream's key:`,
              `# install that key as ${keyring} (for Debian: the debian-archive-keyring package).`,
            ].join('\n')
          : [
              'sudo install -d -m 0755 /etc/apt/keyrings',
              `curl -fsSL -u ${user} ${url}/KEY.gpg | sudo tee ${keyring} > /dev/null`,
              `# armored: ${url}/KEY.asc (also ${baseUrl}/api/security/keypair/public/repositories/${repository.key})`,
            ].join('\n'),
    },
    {
      title: 'Credentials: /etc/apt/auth.conf.d/granary.conf',
      language: 'text',
      code: `# ${url}\nmachine ${machine}\nlogin ${user}\npassword <PASSWORD_OR_TOKEN>`,
    },
    {
      title: 'Add the repository: /etc/apt/sources.list.d/granary.list',
      language: 'text',
      code: [
        `deb [signed-by=${keyring}] ${url} <DISTRIBUTION> <COMPONENT>`,
        '# e.g. bookworm main; or the flat layout, every package of the repository:',
        `# deb [signed-by=${keyring}] ${url} flat/`,
      ].join('\n'),
    },
    {
      title: 'Install a package',
      language: 'shell',
      code: `# from ${url}\nsudo apt-get update\nsudo apt-get install <PACKAGE>`,
    },
  ];
  if (repository.rclass !== 'remote')
    snippets.push({
      title: 'Upload a package (.deb)',
      language: 'shell',
      code: [
        `curl -u ${user} -T <PACKAGE>_<VERSION>_<ARCH>.deb \\`,
        `  "${url}/pool/<COMPONENT>/<PACKAGE>_<VERSION>_<ARCH>.deb;deb.distribution=<DISTRIBUTION>;deb.component=<COMPONENT>;deb.architecture=<ARCH>"`,
        '# or: …/<PACKAGE>_<VERSION>_<ARCH>.deb?distribution=<DISTRIBUTION>&component=<COMPONENT>&architecture=<ARCH>',
        '# several distributions: deb.distribution=bookworm,trixie',
      ].join('\n'),
    });
  return snippets;
}
