import type { PackageFormat } from '../sdk/format.ts';

/**
 * Generic files: any bytes at any path, no package semantics. Every other format builds on the
 * same storage; this one adds nothing but Set Me Up snippets for curl.
 */
export const genericFormat: PackageFormat = {
  id: 'generic',
  aliases: [],
  displayName: 'Generic',
  icon: 'generic',
  classes: ['local', 'remote', 'virtual'],
  async extractMetadata() {
    return null;
  },
  snippets({ baseUrl, repository, username }) {
    const url = `${baseUrl}/repository/${repository.key}`;
    const user = username ?? '<USERNAME>';
    return [
      {
        title: 'Deploy a file',
        language: 'shell',
        code: `curl -u ${user} -T <PATH_TO_FILE> "${url}/<TARGET_PATH>"`,
      },
      {
        title: 'Download a file',
        language: 'shell',
        code: `curl -u ${user} -O "${url}/<FILE_PATH>"`,
      },
    ];
  },
  upstreamUrl(remoteUrl, path) {
    return `${remoteUrl.replace(/\/+$/, '')}/${path}`;
  },
};
