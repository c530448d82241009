import { sortDirection } from '@granary/contracts';
import { describe, expect, it } from 'vitest';
import {
  addRecentSearch,
  RECENT_SEARCHES_MAX,
  type RecentSearch,
  readRecentSearches,
  storeRecentSearch,
} from './recentSearches.ts';
import { meetsPackageSearchMinimum, parseSearchText, tokenize } from './searchSyntax.ts';
import {
  availableSearchTypes,
  effectiveSearchType,
  isReleaseBundlesPath,
  isSearchDisabled,
  type SearchContext,
  searchResultsPath,
} from './searchTypes.ts';

describe('spec 001 §5 search text syntax', () => {
  it('spec 001 §5: key:value tokens set the mapped filter fields (pkg → packageTypes, repo → repositories)', () => {
    expect(parseSearchText('name:lodash pkg:npm repo:npm-local version:4.17.21').filter).toEqual({
      name: 'lodash',
      packageTypes: ['npm'],
      repositories: ['npm-local'],
      version: '4.17.21',
    });
  });
  it('spec 001 §5: quoted values keep their spaces (double or single quotes, around the value or the token)', () => {
    expect(parseSearchText('description:"a tiny helper" name:\'my lib\'').filter).toEqual({
      description: 'a tiny helper',
      name: 'my lib',
    });
    expect(parseSearchText('"description:two words"').filter).toEqual({ description: 'two words' });
    expect(tokenize('  a  "b c"  d ')).toEqual(['a', 'b c', 'd']);
  });
  it('spec 001 §5: unknown keys are treated as name (the whole token is name text)', () => {
    expect(parseSearchText('nginx:latest').filter).toEqual({ name: 'nginx:latest' });
    expect(parseSearchText('colour:red lodash').filter).toEqual({ name: 'colour:red lodash' });
  });
  it('spec 001 §5: words without a key are the name', () => {
    expect(parseSearchText('lodash').filter).toEqual({ name: 'lodash' });
    expect(parseSearchText('').filter).toEqual({});
  });
  it('spec 001 §5: dates are yyyy-mm-dd (before, after); anything else is refused with a message', () => {
    expect(parseSearchText('before:2024-02-29 after:2023-01-01').filter).toEqual({
      before: '2024-02-29',
      after: '2023-01-01',
    });
    const bad = parseSearchText('before:29/02/2024 after:2024-13-01');
    expect(bad.filter).toEqual({});
    expect(bad.errors).toEqual([
      'before: dates are written yyyy-mm-dd',
      'after: dates are written yyyy-mm-dd',
    ]);
  });
  it('spec 001 §5: arrays are comma lists (empties dropped, repeated keys merged, duplicates once)', () => {
    expect(parseSearchText('tags:web,,cli licenses:MIT,ISC tags:cli,db severities:high').filter).toEqual({
      tags: ['web', 'cli', 'db'],
      licenses: ['MIT', 'ISC'],
      severities: ['high'],
    });
  });
  it('spec 001 §5 + §9: package types in pkg: are mapped through the type aliases (golang → go, gav → maven)', () => {
    expect(parseSearchText('pkg:golang,gav,NPM').filter.packageTypes).toEqual(['go', 'maven', 'npm']);
  });
  it('spec 001 §5: objects are key=value pairs (properties, packageQuery); a pair without = is refused', () => {
    const parsed = parseSearchText('properties:build=12,team=core packageQuery:scope=dev properties:odd');
    expect(parsed.filter).toEqual({
      properties: { build: '12', team: 'core' },
      packageQuery: { scope: 'dev' },
    });
    expect(parsed.errors).toEqual(['properties: pairs are written key=value']);
  });
  it('spec 001 §3: booleans isChecksum, searchClassOnly, excludeInnerClasses are true or false', () => {
    expect(parseSearchText('isChecksum:true searchClassOnly:false').filter).toEqual({
      isChecksum: true,
      searchClassOnly: false,
    });
    expect(parseSearchText('isChecksum:yes').errors).toEqual(['isChecksum: true or false']);
  });
  it('spec 001 §5 + §9: a package search term needs 3 characters once * and ? are removed', () => {
    expect(meetsPackageSearchMinimum('lod')).toBe(true);
    expect(meetsPackageSearchMinimum('lo*')).toBe(false);
    expect(meetsPackageSearchMinimum('*?l?o*')).toBe(false);
    expect(meetsPackageSearchMinimum('l*o*d')).toBe(true);
  });
  it('spec 001 §5: sort direction accepts asc, ascend, $asc and uppercase variants; anything else gives ASC', () => {
    for (const v of ['asc', 'ascend', '$asc', 'ASC', 'ASCEND', '$ASC', 'sideways', '', null])
      expect(sortDirection(v)).toBe('ASC');
    for (const v of ['desc', 'descend', '$desc', 'DESC', 'Descend', '$DESC'])
      expect(sortDirection(v)).toBe('DESC');
  });
});

const ctx = (over: Partial<SearchContext> = {}): SearchContext => ({
  lightweight: false,
  microservices: { artifactory: true },
  entitlements: {},
  features: { coldStorage: false, toolbarSearch: false },
  ...over,
});

describe('spec 001 §2 toolbar search types', () => {
  it('spec 001 §2: a self-hosted instance offers packages, artifacts and builds only', () => {
    expect(availableSearchTypes(ctx())).toEqual(['packages', 'artifacts', 'builds']);
  });
  it('spec 001 §2: packages needs a non-lightweight instance', () => {
    expect(availableSearchTypes(ctx({ lightweight: true }))).not.toContain('packages');
  });
  it('spec 001 §2: release bundles need the distribution service and an edge or enterprise-plus licence', () => {
    expect(availableSearchTypes(ctx({ microservices: { distribution: true } }))).not.toContain(
      'releaseBundles',
    );
    expect(
      availableSearchTypes(
        ctx({ microservices: { distribution: true }, entitlements: { distribution: true } }),
      ),
    ).toContain('releaseBundles');
  });
  it('spec 001 §2: Xray needs the xray service and a scanning licence; Archive the cold-storage feature and (§4 retention is admin-only) an administrator; pipelines the service and the toolbar search feature', () => {
    expect(availableSearchTypes(ctx({ microservices: { xray: true } }))).not.toContain('xray');
    expect(
      availableSearchTypes(ctx({ microservices: { xray: true }, entitlements: { scanning: true } })),
    ).toContain('xray');
    expect(
      availableSearchTypes(ctx({ admin: true, features: { coldStorage: true, toolbarSearch: false } })),
    ).toContain('artifactoryRetention');
    expect(
      availableSearchTypes(ctx({ admin: false, features: { coldStorage: true, toolbarSearch: false } })),
    ).not.toContain('artifactoryRetention');
    expect(availableSearchTypes(ctx({ microservices: { pipelines: true } }))).not.toContain('pipelines');
    expect(
      availableSearchTypes(
        ctx({ microservices: { pipelines: true }, features: { coldStorage: false, toolbarSearch: true } }),
      ),
    ).toContain('pipelines');
  });
  it('spec 001 §2: when a type is disabled, search falls back to packages', () => {
    expect(effectiveSearchType('releaseBundles', ctx())).toBe('packages');
    expect(effectiveSearchType('artifacts', ctx())).toBe('artifacts');
    expect(effectiveSearchType('artifacts', ctx({ microservices: {} }))).toBe('packages');
  });
  it('spec 001 §4: search is disabled on empty text; packages under 3 characters (ignoring * and ?) unless a context is chosen', () => {
    expect(isSearchDisabled('artifacts', '  ')).toBe(true);
    expect(isSearchDisabled('packages', 'lo*')).toBe(true);
    expect(isSearchDisabled('packages', 'lo*', true)).toBe(false);
    expect(isSearchDisabled('packages', 'lod')).toBe(false);
    expect(isSearchDisabled('artifacts', 'a')).toBe(false);
  });
  it('spec 001 §2: each type navigates to its results route', () => {
    expect(searchResultsPath('artifacts', 'a b')).toBe('/artifactSearchResults?q=a+b');
    expect(searchResultsPath('builds', 'x')).toBe('/builds?q=x');
    expect(searchResultsPath('releaseBundles', 'x')).toBe('/bundles/source?q=x');
    expect(searchResultsPath('artifactoryRetention', 'x')).toBe('/artifactoryRetention/search?q=x');
    expect(searchResultsPath('pipelines', 'x')).toBe('/pipelinesSearchResults?q=x');
    expect(searchResultsPath('packages', 'lodash')).toBe('/packages?q=lodash');
    expect(searchResultsPath('xray', 'GHSA-x')).toBe('/xraySearchResults?q=GHSA-x');
  });
  it('spec 001 §2: a release-bundles path switches the toolbar type to release bundles', () => {
    expect(isReleaseBundlesPath('/bundles/source')).toBe(true);
    expect(isReleaseBundlesPath('/release-bundles')).toBe(true);
    expect(isReleaseBundlesPath('/packages')).toBe(false);
  });
});

const entry = (queryString: string, type: RecentSearch['type'] = 'packages'): RecentSearch => ({
  id: `${type}:${queryString}`,
  type,
  queryString,
});

describe('spec 001 §3/§4 recent searches', () => {
  it('spec 001 §4: most recent first', () => {
    const list = addRecentSearch(addRecentSearch([], entry('one')), entry('two'));
    expect(list.map((r) => r.queryString)).toEqual(['two', 'one']);
  });
  it('spec 001 §4: duplicates by text and type removed (same text, other type kept)', () => {
    let list = [entry('lodash'), entry('lodash', 'artifacts'), entry('react')];
    list = addRecentSearch(list, entry(' lodash '));
    expect(list.map((r) => `${r.type}:${r.queryString}`)).toEqual([
      'packages:lodash',
      'artifacts:lodash',
      'packages:react',
    ]);
  });
  it('spec 001 §4: capped and empty ignored', () => {
    let list: RecentSearch[] = [];
    for (let i = 0; i < RECENT_SEARCHES_MAX + 5; i++) list = addRecentSearch(list, entry(`term-${i}`));
    expect(list).toHaveLength(RECENT_SEARCHES_MAX);
    expect(list[0]?.queryString).toBe(`term-${RECENT_SEARCHES_MAX + 4}`);
    expect(addRecentSearch(list, entry('   '))).toEqual(list);
  });
  it('spec 001 §3: kept per username, or anonymous, in browser storage', () => {
    localStorage.clear();
    storeRecentSearch(localStorage, 'alice', entry('alpha'));
    storeRecentSearch(localStorage, null, entry('anon'));
    expect(readRecentSearches(localStorage, 'alice').map((r) => r.queryString)).toEqual(['alpha']);
    expect(readRecentSearches(localStorage, 'bob')).toEqual([]);
    expect(readRecentSearches(localStorage, undefined).map((r) => r.queryString)).toEqual(['anon']);
    localStorage.setItem('granary.recentSearches.bob', '{not json');
    expect(readRecentSearches(localStorage, 'bob')).toEqual([]);
  });
});
