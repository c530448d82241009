import { describe, expect, it } from 'vitest';
import {
  canonicalPackageType,
  dropZeroCounts,
  isExcludedPackageType,
  packageIdOf,
  packageNamePattern,
  parsePackageId,
  sortDirection,
} from './packages.ts';

describe('package query rules', () => {
  it('spec 001 §5: package name filters get a trailing * unless present', () => {
    expect(packageNamePattern('react')).toBe('react*');
    expect(packageNamePattern('re*ct*')).toBe('re*ct*');
  });

  it('spec 001 §5: sort direction spellings (asc, ascend, $asc, any case → ASC; desc spellings → DESC; else ASC)', () => {
    expect(['asc', 'ASCEND', '$Asc', 'up', undefined, null].map(sortDirection)).toEqual(Array(6).fill('ASC'));
    expect(['desc', 'DESCEND', '$desc'].map(sortDirection)).toEqual(['DESC', 'DESC', 'DESC']);
  });

  it('spec 001 §9: type aliases map to type ids; dockerV1 and terraformBackend are excluded', () => {
    expect(
      ['golang', 'gav', 'deb', 'rubygems', 'terraform module', 'Terraform Provider', 'NPM'].map(
        canonicalPackageType,
      ),
    ).toEqual(['go', 'maven', 'debian', 'gems', 'terraform', 'terraform', 'npm']);
    expect(isExcludedPackageType('dockerv1')).toBe(true);
    expect(isExcludedPackageType('terraformBackend')).toBe(true);
    expect(isExcludedPackageType('docker')).toBe(false);
  });

  it('package ids are {type}://{name}; aliases accepted when read', () => {
    expect(packageIdOf('npm', '@scope/x')).toBe('npm://@scope/x');
    expect(parsePackageId('npm://@scope/x')).toEqual({ packageType: 'npm', name: '@scope/x' });
    expect(parsePackageId('golang://github.com/a/b')).toEqual({ packageType: 'go', name: 'github.com/a/b' });
    expect(parsePackageId('nonsense')).toBeNull();
  });

  it('spec 001 §3: zero vulnerability counts are dropped', () => {
    expect(dropZeroCounts({ critical: 0, high: 3, low: 0, info: 1, bogus: 5 })).toEqual({ high: 3, info: 1 });
    expect(dropZeroCounts(null)).toEqual({});
  });
});
