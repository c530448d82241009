import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { QUICK_START_DEFAULTS } from '@granary/contracts';
import type { Logger } from 'pino';
import { pack } from 'tar-stream';
import { ZipFile } from 'yazl';
import { storeBlob, storeManifest } from '../../formats/docker/store.ts';
import type { OutboundClient } from '../../platform/outbound/index.ts';
import {
  createSystemHandle,
  findRepository,
  type RepositoriesContext,
} from '../repositories/repositories.api.ts';

/**
 * Granary's own trial content (issue 17): what the quick-start flows download, generated on the server (no fixture
 * files) and placed in the quick LOCAL repository when the format's upstream cannot be reached (or always / never,
 * `GRANARY_ONBOARDING_TRIAL_CONTENT`), so every download step works on an offline machine:
 * - npm: `jfrog-trial-sum-example` 1.0.0, a one-function package (`sum(a, b)`);
 * - docker: `hello-world:latest`, a one-layer OCI image (a text file) built in memory;
 * - maven: `junit:junit:4.11` (what archetype quickstart 1.4 depends on): a pom and a jar holding only a manifest.
 * PyPI gets none: its download package is the real `twine`, and a stand-in named twine would shadow the real tool
 * in the user's environment; offline, the PyPI flow's install step needs twine from the upstream or the machine.
 * Written through the repositories module's system handle and the format's own store functions (docker), then
 * the format's `afterChange` derives its indexes (npm packument, maven-metadata.xml) as for any stored file.
 */

export type TrialContentMode = 'auto' | 'always' | 'never';

/** Whether an upstream answers at all within 2 s (any HTTP status counts). */
export async function upstreamReachable(outbound: OutboundClient, url: string): Promise<boolean> {
  try {
    const res = await outbound.fetch(url, {
      method: 'HEAD',
      signal: AbortSignal.timeout(2000),
      redirect: 'manual',
    });
    await res.body?.cancel().catch(() => {});
    return true;
  } catch {
    return false;
  }
}

async function tarGz(entries: Record<string, string>): Promise<Buffer> {
  const p = pack();
  for (const [name, text] of Object.entries(entries))
    p.entry({ name, mode: 0o644, mtime: new Date(0) }, text);
  p.finalize();
  const chunks: Buffer[] = [];
  for await (const c of p) chunks.push(c as Buffer);
  return gzipSync(Buffer.concat(chunks));
}

async function zip(entries: Record<string, string>): Promise<Buffer> {
  const z = new ZipFile();
  for (const [name, text] of Object.entries(entries))
    z.addBuffer(Buffer.from(text), name, { mtime: new Date(0) });
  z.end();
  const chunks: Buffer[] = [];
  for await (const c of z.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** The npm trial package's tarball, as `npm pack` makes one. */
export function npmTrialTarball(): Promise<Buffer> {
  const name = QUICK_START_DEFAULTS.npm.download.name;
  return tarGz({
    'package/package.json': JSON.stringify(
      {
        name,
        version: '1.0.0',
        description: 'Granary quick start: adds two numbers',
        main: 'index.js',
        license: 'MIT',
      },
      null,
      2,
    ),
    'package/index.js': 'module.exports = function sum(a, b) {\n  return a + b;\n};\n',
    'package/README.md': `# ${name}\n\nGranary's quick-start package: \`require('${name}')(1, 2) === 3\`.\n`,
  });
}

/** A one-layer OCI image: layer, config and manifest bytes. */
export async function helloWorldImage() {
  const layer = await tarGz({ hello: 'Hello from Granary!\nThis image was built by your Granary server.\n' });
  const diffId = `sha256:${sha256(Buffer.from((await import('node:zlib')).gunzipSync(layer)))}`;
  const config = Buffer.from(
    JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      config: { Cmd: ['/hello'] },
      rootfs: { type: 'layers', diff_ids: [diffId] },
    }),
  );
  const mediaType = 'application/vnd.oci.image.manifest.v1+json';
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType,
      config: {
        mediaType: 'application/vnd.oci.image.config.v1+json',
        digest: `sha256:${sha256(config)}`,
        size: config.length,
      },
      layers: [
        {
          mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip',
          digest: `sha256:${sha256(layer)}`,
          size: layer.length,
        },
      ],
    }),
  );
  return { layer, config, manifest, mediaType };
}

const JUNIT_POM = `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>junit</groupId>
  <artifactId>junit</artifactId>
  <version>4.11</version>
  <packaging>jar</packaging>
  <description>Granary quick-start stand-in for junit 4.11 (offline server)</description>
</project>
`;

/** Places the trial content of `type` in `localKey`; failures are logged, never fail the wizard. */
export async function placeTrialContent(
  repos: RepositoriesContext,
  log: Logger,
  type: string,
  localKey: string,
): Promise<boolean> {
  const repo = await findRepository(repos.db, localKey);
  if (!repo) return false;
  const handle = createSystemHandle(repos, repo);
  try {
    if (type === 'npm') {
      const name = QUICK_START_DEFAULTS.npm.download.name;
      const path = `${name}/-/${name}-1.0.0.tgz`;
      await handle.deploy(path, await npmTrialTarball());
      await repos.afterFormatChange(repo, { added: [path] });
      return true;
    }
    if (type === 'docker') {
      const image = QUICK_START_DEFAULTS.docker.download.name;
      const img = await helloWorldImage();
      for (const blob of [img.layer, img.config])
        await storeBlob(handle, image, sha256(blob), Readable.from(blob));
      await storeManifest(
        handle,
        image,
        QUICK_START_DEFAULTS.docker.download.version,
        img.mediaType,
        img.manifest,
      );
      return true;
    }
    if (type === 'maven' || type === 'gradle') {
      const base = 'junit/junit/4.11';
      const jar = await zip({
        'META-INF/MANIFEST.MF': 'Manifest-Version: 1.0\r\nCreated-By: Granary\r\n\r\n',
      });
      await handle.deploy(`${base}/junit-4.11.pom`, Buffer.from(JUNIT_POM));
      await handle.deploy(`${base}/junit-4.11.jar`, jar);
      await repos.afterFormatChange(repo, { added: [`${base}/junit-4.11.pom`, `${base}/junit-4.11.jar`] });
      return true;
    }
  } catch (err) {
    log.warn({ err, type, repo: localKey }, 'quick setup: the trial content could not be placed');
  }
  return false;
}
