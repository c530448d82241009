import { QUICK_START_DEFAULTS } from '@granary/contracts';
import type { Snippet, SnippetInput } from '../sdk/format.ts';

/** The registry host docker addresses (`host:port`, no scheme). */
export function registryHost(baseUrl: string): string {
  return new URL(baseUrl).host;
}

/**
 * Set Me Up (spec 000 quick start): docker login, pull, then tag and push, with the spec's
 * defaults (hello-world:latest to pull, hello-world:1.0.0 to push).
 */
export function dockerSnippets({
  baseUrl,
  repository,
  username,
  packageName,
  version,
}: SnippetInput): Snippet[] {
  const host = registryHost(baseUrl);
  const user = username ?? '<USERNAME>';
  const image = `${host}/${repository.key}`;
  const pull = {
    name: packageName ?? QUICK_START_DEFAULTS.docker.download.name,
    tag: version ?? QUICK_START_DEFAULTS.docker.download.version,
  };
  const push = {
    name: packageName ?? QUICK_START_DEFAULTS.docker.upload.name,
    tag: version ?? QUICK_START_DEFAULTS.docker.upload.version,
  };
  const note = `# registry ${baseUrl}/v2/ (images are ${host}/${repository.key}/<IMAGE>:<TAG>)`;
  const insecure = baseUrl.startsWith('http://')
    ? `\n# plain HTTP: add "${host}" to "insecure-registries" in /etc/docker/daemon.json`
    : '';
  return [
    {
      title: 'Login',
      language: 'shell',
      code: `${note}${insecure}\ndocker login -u ${user} ${host}\n# password: your password, or an access token (Identity Token)`,
    },
    {
      title: 'Pull',
      language: 'shell',
      code: `${note}\ndocker pull ${image}/${pull.name}:${pull.tag}`,
    },
    {
      title: 'Push',
      language: 'shell',
      code: `${note}\ndocker tag ${push.name} ${image}/${push.name}:${push.tag}\ndocker push ${image}/${push.name}:${push.tag}`,
    },
    {
      title: 'skopeo',
      language: 'shell',
      code: `${note}\nskopeo copy --dest-creds ${user} docker-archive:image.tar docker://${image}/${push.name}:${push.tag}`,
    },
  ];
}
