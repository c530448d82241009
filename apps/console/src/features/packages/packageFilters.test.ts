import { describe, expect, it } from 'vitest';
import {
  isDockerPackageType,
  listFilterFromParams,
  reposAfterTypeChange,
  repositoriesForTypes,
  shortDigest,
} from './packageRules.ts';

const REPOS = [
  { key: 'npm-local', packageType: 'npm' },
  { key: 'npm-all', packageType: 'npm' },
  { key: 'py-local', packageType: 'pypi' },
  { key: 'docker-local', packageType: 'docker' },
];

describe('packages list filters', () => {
  it('repositories filter: its choices follow the package type filter (all repositories when no type is chosen)', () => {
    expect(repositoriesForTypes(REPOS, []).map((r) => r.key)).toEqual(REPOS.map((r) => r.key));
    expect(repositoriesForTypes(REPOS, ['npm']).map((r) => r.key)).toEqual(['npm-local', 'npm-all']);
    // spec 001 §9 aliases apply to the chosen types
    expect(repositoriesForTypes([{ key: 'go-local', packageType: 'go' }], ['golang'])).toHaveLength(1);
  });
  it('switching the package type drops the chosen repositories of other types; the rest are kept', () => {
    expect(reposAfterTypeChange(['npm-all', 'py-local'], REPOS, ['pypi'])).toEqual(['py-local']);
    expect(reposAfterTypeChange(['npm-all', 'py-local'], REPOS, [])).toEqual(['npm-all', 'py-local']);
    expect(reposAfterTypeChange(['npm-all'], REPOS, ['docker'])).toEqual([]);
  });
  it('the repositories filter (repo=, virtual keys included) wins over repo: in the search text', () => {
    expect(listFilterFromParams(new URLSearchParams('repo=npm-all&q=lod repo:py-local')).repos).toEqual([
      'npm-all',
    ]);
    expect(listFilterFromParams(new URLSearchParams('q=lod repo:py-local')).repos).toEqual(['py-local']);
  });
  it('spec 001 §7 docker layers: only docker (and OCI) packages have a Docker Layers tab; digests shortened', () => {
    expect(isDockerPackageType('docker')).toBe(true);
    expect(isDockerPackageType('npm')).toBe(false);
    expect(shortDigest(`sha256:${'ab'.repeat(32)}`)).toBe('sha256:abababababab');
  });
});
