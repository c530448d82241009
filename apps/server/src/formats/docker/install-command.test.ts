import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { dockerInstallCommand } from './install-command.ts';
import { extractDockerMetadata } from './metadata.ts';

describe('issue 22: the docker version page', () => {
  it('issue 22: the install command names the registry host and the repository key (a bare name pulls from Docker Hub)', () => {
    const where = { baseUrl: 'https://repo.example.com:8443', repoKey: 'docker-local' };
    expect(dockerInstallCommand({ name: 'demo-image', version: '1.0.0', ...where })).toBe(
      'docker pull repo.example.com:8443/docker-local/demo-image:1.0.0',
    );
    expect(dockerInstallCommand({ name: 'team/app', ...where })).toBe(
      'docker pull repo.example.com:8443/docker-local/team/app',
    );
    // spec 001 §3's template alone, when nothing says where the image is
    expect(dockerInstallCommand({ name: 'demo-image', version: '1.0.0' })).toBe(
      'docker pull demo-image:1.0.0',
    );
  });

  it("issue 22: a tag's size is the image's (config and layers), not its manifest's", async () => {
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: 'sha256:c', size: 580 },
        layers: [
          { mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: 'sha256:l', size: 1050000 },
        ],
      }),
    );
    const meta = await extractDockerMetadata({
      path: 'demo-image/1.0.0/manifest.json',
      size: manifest.length,
      sha256: 'x',
      open: async () => Readable.from([manifest]),
    });
    expect(meta).toMatchObject({
      name: 'demo-image',
      version: '1.0.0',
      size: 1050580,
      description: '1 layer',
    });
  });
});
