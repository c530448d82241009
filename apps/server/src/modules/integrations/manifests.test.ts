import { describe, expect, it } from 'vitest';
import { isManifest, parseManifest } from './manifests.ts';

describe('dependency manifests read from git repositories (issue 18 "Manage Repositories")', () => {
  it('issue 18: the scanned manifests are package-lock.json, requirements*.txt, pyproject.toml, pom.xml and go.sum', () => {
    for (const f of [
      'package-lock.json',
      'requirements.txt',
      'requirements-dev.txt',
      'pyproject.toml',
      'pom.xml',
      'go.sum',
    ])
      expect(isManifest(f), f).toBe(true);
    for (const f of ['package.json', 'README.md', 'go.mod', 'setup.py']) expect(isManifest(f), f).toBe(false);
  });

  it('issue 18: package-lock.json v1 and v3 give npm components (nested and scoped) with their licences', () => {
    const v3 = parseManifest(
      'package-lock.json',
      JSON.stringify({
        lockfileVersion: 3,
        packages: {
          '': { name: 'app', version: '1.0.0' },
          'node_modules/@scope/a': { version: '2.0.0', license: 'Apache-2.0' },
          'node_modules/@scope/a/node_modules/b': { version: '1.0.0' },
          'node_modules/linked': { link: true },
        },
      }),
    );
    expect(v3.map((c) => [c.ecosystem, c.name, c.version, c.license])).toEqual([
      ['npm', '@scope/a', '2.0.0', 'Apache-2.0'],
      ['npm', 'b', '1.0.0', null],
    ]);
    const v1 = parseManifest(
      'package-lock.json',
      JSON.stringify({
        lockfileVersion: 1,
        dependencies: { qs: { version: '6.5.1', dependencies: { x: { version: '0.1.0' } } } },
      }),
    );
    expect(v1.map((c) => `${c.name}@${c.version}`)).toEqual(['qs@6.5.1', 'x@0.1.0']);
    expect(parseManifest('package-lock.json', '{ broken')).toEqual([]);
  });

  it('issue 18: requirements and pyproject pins, pom.xml dependencies and go.sum modules are read; ranges are not', () => {
    expect(
      parseManifest(
        'requirements.txt',
        'Django==4.0.1\nrequests[socks]==2.31.0  # pinned\nflask>=2\n# c\n',
      ).map((c) => `${c.name}@${c.version}`),
    ).toEqual(['Django@4.0.1', 'requests@2.31.0']);
    expect(
      parseManifest(
        'pyproject.toml',
        '[project]\nname = "x"\nversion = "1.0"\ndependencies = ["urllib3==1.26.5", "idna>=3"]\n',
      ).map((c) => `${c.ecosystem}:${c.name}@${c.version}`),
    ).toEqual(['PyPI:urllib3@1.26.5']);
    const pom = `<project><groupId>g</groupId><artifactId>a</artifactId><version>1</version>
      <properties><jackson.version>2.9.8</jackson.version></properties>
      <dependencies><dependency><groupId>com.fasterxml.jackson.core</groupId><artifactId>jackson-databind</artifactId><version>\${jackson.version}</version></dependency></dependencies></project>`;
    expect(parseManifest('pom.xml', pom).map((c) => `${c.ecosystem}:${c.name}@${c.version}`)).toEqual([
      'Maven:com.fasterxml.jackson.core:jackson-databind@2.9.8',
    ]);
    const sum = 'golang.org/x/text v0.3.7 h1:abc=\ngolang.org/x/text v0.3.7/go.mod h1:def=\n';
    expect(parseManifest('go.sum', sum).map((c) => `${c.ecosystem}:${c.name}@${c.version}`)).toEqual([
      'Go:golang.org/x/text@0.3.7',
    ]);
  });
});
