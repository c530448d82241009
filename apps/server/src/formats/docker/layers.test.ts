import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { FormatFile, RepositoryHandle } from '../sdk/format.ts';
import { dockerFormat } from './index.ts';
import { imageVersionDetails } from './layers.ts';
import { digestOf, testImage } from './oci-testing.ts';

/** A repository handle holding `files` (path → bytes): `stat` is all the layers hook reads. */
function handleWith(files: Record<string, Buffer>): RepositoryHandle {
  const stat = async (path: string) => {
    const bytes = files[path];
    if (!bytes) return null;
    return { path, size: bytes.length, open: async () => Readable.from([bytes]) } as unknown as FormatFile;
  };
  return { stat } as unknown as RepositoryHandle;
}

const hexOf = (digest: string) => digest.slice('sha256:'.length);

/** An image whose config has a build history: two commands that made layers, one that made none. */
function builtImage() {
  const image = testImage({ layerSizes: [300, 500] });
  const config = Buffer.from(
    JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      history: [
        { created_by: 'ADD rootfs.tar /' },
        { created_by: 'ENV PATH=/bin', empty_layer: true },
        { created_by: 'RUN make install' },
      ],
    }),
  );
  const digest = digestOf(config);
  const manifest = JSON.parse(image.manifest.toString('utf8'));
  manifest.config = { ...manifest.config, digest, size: config.length };
  return { image, config, configDigest: digest, manifest: Buffer.from(JSON.stringify(manifest)) };
}

describe('docker version details (issue 13 §3: the Layers tab read by the format)', () => {
  it('issue 13 §3: the docker format answers versionDetails with the tag’s layers, each with its history command (empty layers skipped), and the config', async () => {
    expect(dockerFormat.versionDetails).toBe(imageVersionDetails);
    const { image, config, configDigest, manifest } = builtImage();
    const repo = handleWith({
      'acme/app/1.0/manifest.json': manifest,
      [`acme/app/1.0/sha256__${hexOf(configDigest)}`]: config,
    });
    const details = await imageVersionDetails(repo, 'acme/app/1.0/manifest.json');
    expect(details).toEqual({
      layers: {
        layers: image.layers.map((l, index) => ({
          index,
          digest: l.digest,
          size: l.bytes.length,
          mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip',
          command: ['ADD rootfs.tar /', 'RUN make install'][index],
        })),
        totalSize: 300 + 500 + config.length,
        config: { digest: configDigest, size: config.length },
      },
    });
    // the tag's folder names the same version
    expect(await imageVersionDetails(repo, 'acme/app/1.0/')).toEqual(details);
  });

  it('issue 13 §3: a config kept only in the image’s _uploads is read there; without one the layers have no commands', async () => {
    const { config, configDigest, manifest } = builtImage();
    const uploads = handleWith({
      'acme/app/1.0/manifest.json': manifest,
      [`acme/app/_uploads/sha256__${hexOf(configDigest)}`]: config,
    });
    const commands = (await imageVersionDetails(uploads, 'acme/app/1.0'))?.layers?.layers.map(
      (l) => l.command,
    );
    expect(commands).toEqual(['ADD rootfs.tar /', 'RUN make install']);
    const bare = handleWith({ 'acme/app/1.0/manifest.json': manifest });
    const none = (await imageVersionDetails(bare, 'acme/app/1.0'))?.layers;
    expect(none?.layers.map((l) => l.command)).toEqual([null, null]);
    expect(none?.config?.digest).toBe(configDigest);
  });

  it('issue 13 §3: no manifest, one that is not JSON, or one over the manifest limit gives no details', async () => {
    expect(await imageVersionDetails(handleWith({}), 'acme/app/1.0')).toBeNull();
    const broken = handleWith({ 'acme/app/1.0/manifest.json': Buffer.from('{not json') });
    expect(await imageVersionDetails(broken, 'acme/app/1.0')).toBeNull();
    const huge = handleWith({ 'acme/app/1.0/manifest.json': Buffer.alloc(4 * 1024 * 1024 + 1, 0x20) });
    expect(await imageVersionDetails(huge, 'acme/app/1.0')).toBeNull();
  });
});
