import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect, tarGzBomb, zipBomb } from '../../../platform/archives/archive-bombs.ts';
import type { ExtractedArtifact, ExtractResult } from '../model.ts';
import { extractArtifact } from './extract-artifact.ts';
import { ScanFailedError } from './scan-limits.ts';
import { APK_INSTALLED, DPKG_STATUS, imageOf, storedFile, tarOf, zipOf } from './scan-testing.ts';

const scanned = (r: ExtractResult): ExtractedArtifact => {
  expect(r.status).toBe('scanned');
  return (r as { artifact: ExtractedArtifact }).artifact;
};
const purls = (a: ExtractedArtifact) => a.components.map((c) => c.purl).sort();
const byPurl = (a: ExtractedArtifact, purl: string) => a.components.find((c) => c.purl === purl);

const PROBE = `granary-h2-escape-probe-${process.pid}`;

describe('issue 16: what artifacts contain (components)', () => {
  it('issue 16 "Scanning": an npm tarball gives its package, licence, bundled dependencies with versions, and declared dependencies pinned to one version', async () => {
    const tgz = await tarOf([
      {
        name: 'package/package.json',
        content: JSON.stringify({
          name: '@acme/web',
          version: '2.1.0',
          license: 'MIT License',
          dependencies: { 'left-pad': '1.3.0', lodash: '^4.17.0', bundled: '^1.0.0' },
          bundleDependencies: ['bundled'],
        }),
      },
      {
        name: 'package/node_modules/bundled/package.json',
        content: JSON.stringify({
          name: 'bundled',
          version: '1.2.0',
          license: 'Apache 2.0',
          dependencies: { inner: '*' },
        }),
      },
      {
        name: 'package/node_modules/bundled/node_modules/inner/package.json',
        content: JSON.stringify({
          name: 'inner',
          version: '0.0.1',
          licenses: [{ type: 'MIT' }, { type: 'GPL-2.0' }],
        }),
      },
      { name: 'package/node_modules/bundled/lib/package.json', content: '{"name":"not-a-package"}' },
      // an entry named to escape the folder: names are matched, never used as paths
      { name: `../../${PROBE}`, content: 'x' },
    ]);
    const a = scanned(await extractArtifact(storedFile('@acme/web/-/web-2.1.0.tgz', tgz, 'npm')));
    expect(a.root).toMatchObject({
      purl: 'pkg:npm/%40acme/web@2.1.0',
      ecosystem: 'npm',
      name: '@acme/web',
      licenses: ['MIT'],
    });
    expect(purls(a)).toEqual(['pkg:npm/bundled@1.2.0', 'pkg:npm/inner@0.0.1', 'pkg:npm/left-pad@1.3.0']);
    expect(byPurl(a, 'pkg:npm/bundled@1.2.0')?.licenses).toEqual(['Apache-2.0']);
    expect(byPurl(a, 'pkg:npm/inner@0.0.1')?.licenses).toEqual(['MIT OR GPL-2.0']);
    // lodash ^4.17.0 names no version: left out
    expect(a.dependencies[a.root.purl]).toEqual(['pkg:npm/bundled@1.2.0', 'pkg:npm/left-pad@1.3.0']);
    expect(a.dependencies['pkg:npm/bundled@1.2.0']).toEqual(['pkg:npm/inner@0.0.1']);
    expect(existsSync(path.resolve(process.cwd(), '..', '..', PROBE))).toBe(false);
  });

  it('issue 16 "Scanning": a wheel gives its METADATA name, version, licence classifiers and pinned requirements; an sdist its PKG-INFO and License-Expression', async () => {
    const wheel = await zipOf([
      { name: 'demo/__init__.py', content: '' },
      {
        name: 'demo-1.0.0.dist-info/METADATA',
        content:
          'Metadata-Version: 2.1\nName: Demo_Pkg\nVersion: 1.0.0\nLicense: Permission is hereby granted,\n        free of charge...\nClassifier: License :: OSI Approved :: MIT License\nClassifier: Programming Language :: Python\nRequires-Dist: requests (==2.31.0)\nRequires-Dist: idna>=3\nRequires-Dist: pytest==8.0.0; extra == "test"\n\nLong description\n',
      },
    ]);
    const w = scanned(
      await extractArtifact(storedFile('demo/1.0.0/demo-1.0.0-py3-none-any.whl', wheel, 'pypi')),
    );
    expect(w.root).toMatchObject({
      purl: 'pkg:pypi/demo-pkg@1.0.0',
      ecosystem: 'PyPI',
      name: 'Demo_Pkg',
      licenses: ['MIT'],
    });
    expect(purls(w)).toEqual(['pkg:pypi/requests@2.31.0']);

    const sdist = await tarOf([
      {
        name: 'demo-2.0/PKG-INFO',
        content: 'Metadata-Version: 2.4\nName: demo\nVersion: 2.0\nLicense-Expression: Apache-2.0 OR MIT\n',
      },
      { name: 'demo-2.0/demo.egg-info/PKG-INFO', content: 'Name: other\nVersion: 9\n' },
    ]);
    const s = scanned(await extractArtifact(storedFile('demo/2.0/demo-2.0.tar.gz', sdist, 'pypi')));
    expect(s.root).toMatchObject({ purl: 'pkg:pypi/demo@2.0', licenses: ['Apache-2.0 OR MIT'] });
  });

  it('issue 16 "Scanning": a jar gives its GAV, shaded jars inside, and the POM beside it its licences and declared dependencies (project.version resolved, unresolvable left out)', async () => {
    const jar = await zipOf([
      { name: 'META-INF/MANIFEST.MF', content: 'Manifest-Version: 1.0\n' },
      {
        name: 'META-INF/maven/com.acme/app/pom.properties',
        content: '#Generated\ngroupId=com.acme\nartifactId=app\nversion=1.4.0\n',
      },
      {
        name: 'META-INF/maven/com.google.guava/guava/pom.properties',
        content: 'version=31.1-jre\ngroupId=com.google.guava\nartifactId=guava\n',
      },
      {
        name: 'META-INF/maven/com.google.guava/guava/pom.xml',
        content:
          '<project><modelVersion>4.0.0</modelVersion><groupId>com.google.guava</groupId><artifactId>guava</artifactId><version>31.1-jre</version><licenses><license><name>The Apache Software License, Version 2.0</name></license></licenses></project>',
      },
    ]);
    const pom = Buffer.from(`<?xml version="1.0"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent><groupId>com.acme</groupId><artifactId>parent</artifactId><version>1.4.0</version></parent>
  <artifactId>app</artifactId>
  <properties><jackson.version>2.15.2</jackson.version></properties>
  <licenses><license><name>Eclipse Public License - v 2.0</name></license></licenses>
  <dependencies>
    <dependency><groupId>com.acme</groupId><artifactId>core</artifactId><version>\${project.version}</version></dependency>
    <dependency><groupId>com.fasterxml.jackson.core</groupId><artifactId>jackson-databind</artifactId><version>\${jackson.version}</version></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId><version>\${unknown.version}</version></dependency>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency>
    <dependency><groupId>org.ranged</groupId><artifactId>r</artifactId><version>[1.0,2.0)</version></dependency>
  </dependencies>
</project>`);
    const j = scanned(
      await extractArtifact(
        storedFile('com/acme/app/1.4.0/app-1.4.0.jar', jar, 'maven', { 'app-1.4.0.pom': pom }),
      ),
    );
    expect(j.root).toMatchObject({
      purl: 'pkg:maven/com.acme/app@1.4.0',
      ecosystem: 'Maven',
      name: 'com.acme:app',
      licenses: ['EPL-2.0'],
    });
    expect(purls(j)).toEqual([
      'pkg:maven/com.acme/core@1.4.0',
      'pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.15.2',
      'pkg:maven/com.google.guava/guava@31.1-jre',
    ]);
    expect(byPurl(j, 'pkg:maven/com.google.guava/guava@31.1-jre')?.licenses).toEqual(['Apache-2.0']);
    expect(j.dependencies[j.root.purl]).toHaveLength(3);

    const p = scanned(await extractArtifact(storedFile('com/acme/app/1.4.0/app-1.4.0.pom', pom, 'maven')));
    expect(p.root.purl).toBe('pkg:maven/com.acme/app@1.4.0');
    expect(purls(p)).toEqual([
      'pkg:maven/com.acme/core@1.4.0',
      'pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.15.2',
    ]);
  });

  it('issue 16 "Scanning": an image gives its Debian packages (release from os-release), node_modules, site-packages and jars of its layers; a whiteout removes what an earlier layer had', async () => {
    const innerJar = await zipOf([
      {
        name: 'META-INF/maven/org.yaml/snakeyaml/pom.properties',
        content: 'groupId=org.yaml\nartifactId=snakeyaml\nversion=1.33\n',
      },
    ]);
    const base = await tarOf([
      { name: 'etc/', type: 'directory' },
      { name: 'etc/os-release', type: 'symlink', linkname: '../usr/lib/os-release' },
      {
        name: 'usr/lib/os-release',
        content: 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\n',
      },
      { name: 'var/lib/dpkg/status', content: DPKG_STATUS },
      {
        name: 'usr/share/doc/bash/copyright',
        content:
          'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\nFiles: *\nCopyright: FSF\nLicense: GPL-3+\n',
      },
    ]);
    const app = await tarOf(
      [
        {
          name: 'app/node_modules/express/package.json',
          content: '{"name":"express","version":"4.18.2","license":"MIT"}',
        },
        {
          name: 'app/node_modules/debug/package.json',
          content: '{"name":"debug","version":"2.6.9","license":"MIT"}',
        },
        {
          name: 'usr/lib/python3/dist-packages/six-1.16.0.dist-info/METADATA',
          content: 'Name: six\nVersion: 1.16.0\nLicense: MIT\n',
        },
        { name: 'opt/lib/snakeyaml.jar', content: innerJar },
      ],
      { gzip: false },
    );
    const top = await tarOf([{ name: 'app/node_modules/.wh.debug', content: '' }]);
    const img = imageOf([base, app, top]);
    const a = scanned(
      await extractArtifact(storedFile('team/web/1.0/manifest.json', img.manifest, 'docker', img.siblings)),
    );
    expect(a.root).toMatchObject({
      purl: `pkg:oci/web@${img.digest}?repository_url=team%2Fweb&tag=1.0`,
      name: 'team/web',
      version: img.digest,
    });
    expect(purls(a)).toEqual([
      'pkg:deb/debian/bash@5.2.15-2+b2?arch=amd64&distro=debian-12',
      'pkg:deb/debian/libssl3@3.0.11-1~deb12u2?arch=amd64&distro=debian-12&upstream=openssl',
      'pkg:maven/org.yaml/snakeyaml@1.33',
      'pkg:npm/express@4.18.2',
      'pkg:pypi/six@1.16.0',
    ]);
    const libssl = a.components.find((c) => c.name === 'libssl3')!;
    expect(libssl).toMatchObject({
      ecosystem: 'Debian:12',
      source: { name: 'openssl', version: '3.0.11-1~deb12u2' },
    });
    expect(libssl.location).toMatch(/^layer sha256:[0-9a-f]{12}…\/var\/lib\/dpkg\/status$/);
    expect(a.components.find((c) => c.name === 'bash')?.licenses).toEqual(['GPL-3.0-or-later']);
    expect(a.dependencies[a.root.purl]).toHaveLength(5);
  });

  it('issue 16 "Scanning": an Alpine image gives its apk packages with licences and `Alpine:v3.18`', async () => {
    const layer = await tarOf([
      { name: 'etc/alpine-release', content: '3.18.4\n' },
      { name: 'lib/apk/db/installed', content: APK_INSTALLED },
    ]);
    const img = imageOf([layer]);
    const a = scanned(
      await extractArtifact(storedFile('alpine/3.18/manifest.json', img.manifest, 'docker', img.siblings)),
    );
    expect(a.components.map((c) => [c.purl, c.ecosystem, c.licenses])).toEqual(
      expect.arrayContaining([
        ['pkg:apk/alpine/musl@1.2.4-r2?arch=x86_64&distro=alpine-3.18.4', 'Alpine:v3.18', ['MIT']],
        [
          'pkg:apk/alpine/libcrypto3@3.1.4-r0?arch=x86_64&distro=alpine-3.18.4&upstream=openssl',
          'Alpine:v3.18',
          ['Apache-2.0'],
        ],
      ]),
    );
    expect(a.components).toHaveLength(3);
  });

  it('issue 16 "Scanning": a generic file that is an npm tarball or a wheel is read by its bytes; what no extractor reads is not supported', async () => {
    const tgz = await tarOf([{ name: 'pkg/package.json', content: '{"name":"x","version":"1.0.0"}' }]);
    expect(scanned(await extractArtifact(storedFile('drops/x.bin', tgz, 'generic'))).root.purl).toBe(
      'pkg:npm/x@1.0.0',
    );
    expect(
      (await extractArtifact(storedFile('notes/readme.txt', Buffer.from('hello'), 'generic'))).status,
    ).toBe('not supported');
    expect(
      (await extractArtifact(storedFile('blobs/random.bin', Buffer.from('plain bytes'), 'generic'))).status,
    ).toBe('not supported');
    const zip = await zipOf([{ name: 'a.txt', content: 'a' }]);
    expect((await extractArtifact(storedFile('files/a.zip', zip, 'generic'))).status).toBe('not supported');
    // an image layer file or an index is no image manifest
    expect(
      (await extractArtifact(storedFile('app/1.0/sha256__00', Buffer.from('x'), 'docker', {}))).status,
    ).toBe('not supported');
  });
});

describe('issue 16: hostile artifacts fail the scan, bounded', () => {
  const failure = async (p: Promise<unknown>) => {
    const err = await p.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ScanFailedError);
    return err as ScanFailedError;
  };

  it('issue 16 "bounded reads": a decompression-bomb layer (1 GiB of zeros) stops the scan as a limit, early', async () => {
    const bomb = await collect(tarGzBomb([{ name: 'var/lib/filler', zeros: 1024 * 1024 * 1024 }]));
    const img = imageOf([bomb]);
    const started = Date.now();
    const err = await failure(
      extractArtifact(storedFile('evil/1/manifest.json', img.manifest, 'docker', img.siblings)),
    );
    expect(err.limit).toBe(true);
    expect(err.message).toMatch(/decompression bomb/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('issue 16 "bounded reads": a huge dpkg status entry and too many entries stop the scan', async () => {
    const huge = await collect(tarGzBomb([{ name: 'var/lib/dpkg/status', zeros: 33 * 1024 * 1024 }]));
    const img = imageOf([huge]);
    const err = await failure(
      extractArtifact(storedFile('evil/2/manifest.json', img.manifest, 'docker', img.siblings)),
    );
    expect(err.message).toMatch(/var\/lib\/dpkg\/status is larger than/);

    const many = await tarOf(Array.from({ length: 60 }, (_, i) => ({ name: `f${i}`, content: 'x' })));
    const img2 = imageOf([many]);
    const err2 = await failure(
      extractArtifact(storedFile('evil/3/manifest.json', img2.manifest, 'docker', img2.siblings), {
        limits: {
          layer: { entries: 50, entryBytes: 1024, totalBytes: 1 << 20, ratio: 100, ratioFloor: 1 << 20 },
        },
      }),
    );
    expect(err2.message).toMatch(/more than 50 entries/);
  });

  it('issue 16 "bounded reads": a zip bomb wheel and a broken tarball fail the scan; nothing is thrown unhandled', async () => {
    const bomb = zipBomb([
      { name: 'x-1.dist-info/METADATA', content: 'Name: x\nVersion: 1\n' },
      { name: 'x/data.bin', zeros: 64 * 1024 * 1024 },
    ]);
    const err = await failure(extractArtifact(storedFile('x/1/x-1-py3-none-any.whl', bomb, 'pypi')));
    expect(err.limit).toBe(true);
    const broken = await failure(
      extractArtifact(storedFile('x/-/x-1.tgz', Buffer.from([0x1f, 0x8b, 1, 2, 3]), 'npm')),
    );
    expect(broken.limit).toBe(false);
  });
});
