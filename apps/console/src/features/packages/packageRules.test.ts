import { describe, expect, it } from 'vitest';
import { listFilterFromParams, openingTab, PACKAGE_MESSAGES, scanState } from './packageRules.ts';

describe('packages screen rules', () => {
  it('spec 001 §2: version details open on readme for tgz, gz, zip, jar, war, nupkg, crate, apk, whl, egg, mod lead files', () => {
    for (const ext of ['tgz', 'gz', 'zip', 'jar', 'war', 'nupkg', 'crate', 'apk', 'whl', 'egg', 'mod'])
      expect(openingTab(`a/b/pkg-1.0.${ext}`)).toBe('readme');
    expect(openingTab('lodash/-/lodash-4.17.21.TGZ')).toBe('readme');
  });
  it('spec 001 §2: otherwise version details open on properties', () => {
    expect(openingTab('library/nginx/1.25/manifest.json')).toBe('properties');
    expect(openingTab('org/acme/core/1.0/core-1.0.pom')).toBe('properties');
    expect(openingTab('noextension')).toBe('properties');
    expect(openingTab(undefined)).toBe('properties');
  });
  it('spec 001 §8: "Xray is unavailable" when scanning is off, "Requires an Xray license", "Not Scanned"', () => {
    expect(scanState(null, { service: false, licensed: true })).toBe(PACKAGE_MESSAGES.xrayUnavailable);
    expect(scanState(null, { service: true, licensed: false })).toBe('Requires an Xray license');
    expect(scanState(null, { service: true, licensed: true })).toBe('Not Scanned');
    expect(scanState({ high: 2 }, { service: true, licensed: true })).toBeNull();
    expect(PACKAGE_MESSAGES.xrayUnavailable).toBe('Xray is unavailable');
    expect(PACKAGE_MESSAGES.noPackages).toBe('No packages found, please refine your search criteria');
  });
  it('spec 001 §9 + §5: the list sorts by name ascending by default; sort direction spellings map to asc/desc', () => {
    expect(listFilterFromParams(new URLSearchParams())).toEqual({ sort_by: 'name', sort_type: 'asc' });
    expect(listFilterFromParams(new URLSearchParams('sort=modified&order=$DESC'))).toMatchObject({
      sort_by: 'modified',
      sort_type: 'desc',
    });
    expect(listFilterFromParams(new URLSearchParams('order=upwards')).sort_type).toBe('asc');
  });
  it('spec 001 §5: the toolbar text (q) fills the list filter; the screen filters win over it', () => {
    expect(listFilterFromParams(new URLSearchParams({ q: 'lod pkg:npm tags:web after:2024-01-01' }))).toEqual(
      {
        name: 'lod',
        package_type: ['npm'],
        tags: ['web'],
        after: '2024-01-01',
        sort_by: 'name',
        sort_type: 'asc',
      },
    );
    expect(
      listFilterFromParams(
        new URLSearchParams([
          ['q', 'lod pkg:npm'],
          ['name', 'react'],
          ['type', 'pypi'],
        ]),
      ),
    ).toMatchObject({ name: 'react', package_type: ['pypi'] });
  });
});
