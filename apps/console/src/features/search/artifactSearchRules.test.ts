import { describe, expect, it } from 'vitest';
import { artifactSearchFromText, effectiveArtifactSearchKind } from './artifactSearchRules.ts';
import { keepOnlyName } from './searchSyntax.ts';
import { isSearchDisabled, PROJECT_SEARCH_TYPES } from './searchTypes.ts';

describe('spec 001 §4/§5 artifact search from the toolbar text', () => {
  it('spec 001 §5: the name is a quick search; repo: narrows it', () => {
    expect(artifactSearchFromText('lodash-*.tgz repo:npm-local,npm-all')).toEqual({
      kind: 'quick',
      values: { query: 'lodash-*.tgz', repos: 'npm-local,npm-all' },
    });
  });
  it('spec 001 §3: checksum: and isChecksum:true are checksum searches', () => {
    expect(artifactSearchFromText('checksum:abc123')).toEqual({
      kind: 'checksum',
      values: { checksum: 'abc123' },
    });
    expect(artifactSearchFromText('abc123 isChecksum:true').values).toEqual({ checksum: 'abc123' });
  });
  it('spec 001 §5: properties:k=v is a property search; path, searchClassOnly, excludeInnerClasses an archive search', () => {
    expect(artifactSearchFromText('properties:build=42,env=prod')).toEqual({
      kind: 'property',
      values: { properties: 'build=42, env=prod' },
    });
    expect(artifactSearchFromText('Foo.class searchClassOnly:true path:com/acme')).toEqual({
      kind: 'archive',
      values: { query: 'Foo.class', path: 'com/acme', searchClassOnly: true },
    });
    expect(artifactSearchFromText('searchType:gavc demo-lib version:1.0').kind).toBe('gavc');
  });
  it('spec 001 §4: archive falls back to quick when archive indexing is not enabled', () => {
    expect(effectiveArtifactSearchKind('archive', false)).toBe('quick');
    expect(effectiveArtifactSearchKind('archive', true)).toBe('archive');
    expect(effectiveArtifactSearchKind('archive', undefined)).toBe('archive');
    expect(effectiveArtifactSearchKind('checksum', false)).toBe('checksum');
  });
});

describe('spec 001 §4 toolbar search model', () => {
  it('spec 001 §4: switching the type resets the model except the name', () => {
    expect(keepOnlyName('lodash pkg:npm repo:npm-local after:2024-01-01')).toBe('lodash');
    expect(keepOnlyName("'my widget' licenses:MIT")).toBe('"my widget"');
    expect(keepOnlyName('pkg:npm')).toBe('');
  });
  it('spec 001 §4: search is disabled for types without project support when a specific project is selected', () => {
    expect(isSearchDisabled('artifactoryRetention', 'lodash', false, true)).toBe(true);
    expect(isSearchDisabled('pipelines', 'lodash', false, true)).toBe(true);
    expect(isSearchDisabled('artifactoryRetention', 'lodash', false, false)).toBe(false);
    for (const t of PROJECT_SEARCH_TYPES) expect(isSearchDisabled(t, 'lodash', false, true)).toBe(false);
  });
});
