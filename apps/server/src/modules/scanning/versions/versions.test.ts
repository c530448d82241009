import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isValidApk } from './apk.ts';
import { compareVersions } from './index.ts';

/**
 * Conformance tables (issue 16 "Advisory database": the upstream comparators' vectors, 100 % must
 * pass). Each ecosystem's vectors come from its own project's tests, cited above each table.
 */

/** Asserts a strictly ascending list, every pair both ways (Maven's `checkVersionsOrder`). */
function expectAscending(ecosystem: string, versions: string[]): void {
  for (let i = 0; i < versions.length; i++)
    for (let j = i + 1; j < versions.length; j++) {
      expect(compareVersions(ecosystem, versions[i]!, versions[j]!), `${versions[i]} < ${versions[j]}`).toBe(
        -1,
      );
      expect(compareVersions(ecosystem, versions[j]!, versions[i]!), `${versions[j]} > ${versions[i]}`).toBe(
        1,
      );
    }
}

function expectEqual(ecosystem: string, a: string, b: string): void {
  expect(compareVersions(ecosystem, a, b), `${a} == ${b}`).toBe(0);
  expect(compareVersions(ecosystem, b, a), `${b} == ${a}`).toBe(0);
}

function expectOrder(ecosystem: string, a: string, b: string, want: number): void {
  expect(compareVersions(ecosystem, a, b), `${a} vs ${b}`).toBe(want);
  expect(compareVersions(ecosystem, b, a), `${b} vs ${a}`).toBe(want === 0 ? 0 : -want);
}

describe('issue 16: each ecosystem version order passes its upstream project test vectors', () => {
  // apache/maven maven-artifact ComparableVersionTest
  it('issue 16: Maven ComparableVersion order (ComparableVersionTest)', () => {
    expectAscending('Maven', [
      '1-alpha2snapshot',
      '1-alpha2',
      '1-alpha-123',
      '1-beta-2',
      '1-beta123',
      '1-m2',
      '1-m11',
      '1-rc',
      '1-cr2',
      '1-rc123',
      '1-SNAPSHOT',
      '1',
      '1-sp',
      '1-sp2',
      '1-sp123',
      '1-abc',
      '1-def',
      '1-pom-1',
      '1-1-snapshot',
      '1-1',
      '1-2',
      '1-123',
    ]);
    expectAscending('Maven', [
      '2.0',
      '2-1',
      '2.0.a',
      '2.0.0.a',
      '2.0.2',
      '2.0.123',
      '2.1.0',
      '2.1-a',
      '2.1b',
      '2.1-c',
      '2.1-1',
      '2.1.0.1',
      '2.2',
      '2.123',
      '11.a2',
      '11.a11',
      '11.b2',
      '11.b11',
      '11.m2',
      '11.m11',
      '11',
      '11.a',
      '11b',
      '11c',
      '11m',
    ]);
    const equal: [string, string][] = [
      ['1', '1'],
      ['1', '1.0'],
      ['1', '1.0.0'],
      ['1.0', '1.0.0'],
      ['1', '1-0'],
      ['1', '1.0-0'],
      ['1.0', '1.0-0'],
      ['1a', '1-a'],
      ['1a', '1.0-a'],
      ['1a', '1.0.0-a'],
      ['1.0a', '1-a'],
      ['1.0.0a', '1-a'],
      ['1x', '1-x'],
      ['1x', '1.0-x'],
      ['1x', '1.0.0-x'],
      ['1.0x', '1-x'],
      ['1.0.0x', '1-x'],
      ['1ga', '1'],
      ['1release', '1'],
      ['1final', '1'],
      ['1cr', '1rc'],
      ['1a1', '1-alpha-1'],
      ['1b2', '1-beta-2'],
      ['1m3', '1-milestone-3'],
      ['1X', '1x'],
      ['1A', '1a'],
      ['1B', '1b'],
      ['1M', '1m'],
      ['1Ga', '1'],
      ['1GA', '1'],
      ['1RELEASE', '1'],
      ['1RELeaSE', '1'],
      ['1Final', '1'],
      ['1FinaL', '1'],
      ['1FINAL', '1'],
      ['1Cr', '1Rc'],
      ['1cR', '1rC'],
      ['1m3', '1Milestone3'],
      ['1m3', '1MileStone3'],
      ['1m3', '1MILESTONE3'],
      ['1-abcdefghijklmnopqrstuvwxyz', '1-ABCDEFGHIJKLMNOPQRSTUVWXYZ'],
    ];
    for (const [a, b] of equal) expectEqual('Maven', a, b);
    const ordered: [string, string][] = [
      ['1', '2'],
      ['1.5', '2'],
      ['1', '2.5'],
      ['1.0', '1.1'],
      ['1.1', '1.2'],
      ['1.0.0', '1.1'],
      ['1.0.1', '1.1'],
      ['1.1', '1.2.0'],
      ['1.0-alpha-1', '1.0'],
      ['1.0-alpha-1', '1.0-alpha-2'],
      ['1.0-alpha-1', '1.0-beta-1'],
      ['1.0-beta-1', '1.0-SNAPSHOT'],
      ['1.0-SNAPSHOT', '1.0'],
      ['1.0-alpha-1-SNAPSHOT', '1.0-alpha-1'],
      ['1.0', '1.0-1'],
      ['1.0-1', '1.0-2'],
      ['1.0.0', '1.0-1'],
      ['2.0-1', '2.0.1'],
      ['2.0.1-klm', '2.0.1-lmn'],
      ['2.0.1', '2.0.1-xyz'],
      ['2.0.1', '2.0.1-123'],
      ['2.0.1-xyz', '2.0.1-123'],
      // MNG-5568, MNG-6572, MNG-6964
      ['6.1.0rc3', '6.1.0'],
      ['6.1.0rc3', '6.1H.5-beta'],
      ['6.1.0', '6.1H.5-beta'],
      ['20190126.230843', '1234567890.12345'],
      ['1234567890.12345', '123456789012345.1H.5-beta'],
      ['123456789012345.1H.5-beta', '12345678901234567890.1H.5-beta'],
      ['1-0.alpha', '1'],
      ['1-0.beta', '1'],
      ['1-0.alpha', '1-0.beta'],
    ];
    for (const [a, b] of ordered) expectOrder('Maven', a, b, -1);
    const zeros = Array.from({ length: 19 }, (_, i) => `${'0'.repeat(18 - i)}1`);
    for (const z of zeros) expectEqual('Maven', z, '1');
    for (let i = 1; i <= 19; i++) expectEqual('Maven', '0'.repeat(i), '0');
  });

  // guillemj/dpkg lib/dpkg/t/t-version.c (test_version_compare, test_version_parse) and Debian Policy §5.6.12
  it('issue 16: dpkg version order (dpkg t-version.c, Debian Policy 5.6.12)', () => {
    const equal: [string, string][] = [
      ['0', '0'],
      ['0-0', '0-0'],
      ['0-00', '00-0'],
      ['1:2-3', '1:2-3'],
      ['0', '0:0'],
      ['0', '0:0-'],
      ['0:0-0', '0-0'],
      ['0:0.0-0.0', '0.0-0.0'],
      ['1:0', '1:0'],
      ['5:1', '5:1'],
      ['0:0-0-0', '0-0-0'],
      ['0:0:0-0', '0:0:0-0'],
      ['0:09azAZ.-+~:-0', '0:09azAZ.-+~:-0'],
      ['  \t0:0-1', '0:0-1'],
      ['0:0-1\t  ', '0-1'],
    ];
    for (const [a, b] of equal) expectEqual('Debian', a, b);
    const less: [string, string][] = [
      ['1:0', '2:0'],
      ['1-1', '2-1'],
      ['1-1', '1-2'],
      ['0-0', '1:0-0'],
      ['a-0', 'b-0'],
      ['0-a', '0-b'],
      // Debian Policy: ~~ < ~~a < ~ < (nothing) < a
      ['1~~', '1~~a'],
      ['1~~a', '1~'],
      ['1~', '1'],
      ['1', '1a'],
      ['1.0~rc1', '1.0'],
      ['1.0', '1.0-1'],
      ['2.0', '1:1.0'],
      ['1.2.3-1', '1.2.3-1+deb12u1'],
      ['3.0.11-1~deb12u1', '3.0.11-1~deb12u2'],
      ['3.0.11-1~deb12u2', '3.0.11-1'],
      ['1.9', '1.10'],
    ];
    for (const [a, b] of less) expectOrder('Debian', a, b, -1);
    expectOrder('Debian:12', '2.36-9+deb12u3', '2.36-9+deb12u4', -1);
  });

  // alpinelinux/apk-tools test/unit/version.data (comparison lines; `~` fuzzy matches are apk's dependency syntax, not an order)
  it('issue 16: apk version order (apk-tools version.data)', () => {
    const lines = readFileSync(path.join(import.meta.dirname, '__fixtures__/apk-version.data'), 'utf8').split(
      '\n',
    );
    let checked = 0;
    for (const raw of lines) {
      const line = raw.replace(/#.*/, '').trim();
      if (!line) continue;
      const parts = line.split(/\s+/);
      if (parts.length === 1) {
        const [v] = parts as [string];
        expect(isValidApk(v.replace(/^!/, '')), `validity of ${v}`).toBe(!v.startsWith('!'));
        checked++;
        continue;
      }
      const [a, op, b] = parts as [string, string, string];
      if (op.includes('~')) continue;
      const invert = op.startsWith('!');
      const want = op.replace('!', '');
      const got = compareVersions('Alpine', a, b);
      const holds =
        (want.includes('<') && got < 0) ||
        (want.includes('>') && got > 0) ||
        (want.includes('=') && got === 0);
      expect(invert ? !holds : holds, line).toBe(true);
      checked++;
    }
    expect(checked).toBeGreaterThan(700);
    expectOrder('Alpine:v3.18', '3.1.4-r5', '3.1.4-r6', -1);
  });

  // rubygems/rubygems test/rubygems/test_gem_version.rb (test_spaceship, test_semver, test_equals2)
  it('issue 16: RubyGems version order (test_gem_version.rb)', () => {
    const cases: [string, string, number][] = [
      ['1.0', '1.0.0', 0],
      ['1.0', '1.0.a', 1],
      ['1.8.2', '0.0.0', 1],
      ['1.8.2', '1.8.2.a', 1],
      ['1.8.2.b', '1.8.2.a', 1],
      ['1.8.2.a', '1.8.2', -1],
      ['1.8.2.a10', '1.8.2.a9', 1],
      ['', '0', 0],
      ['0.beta.1', '0.0.beta.1', 0],
      ['0.0.beta', '0.0.beta.1', -1],
      ['0.0.beta', '0.beta.1', -1],
      ['5.a', '5.0.0.rc2', -1],
      ['5.x', '5.0.0.rc2', 1],
      ['1.2', '1.2', 0],
      ['1.2', '1.3', -1],
      ['1.2.b1', '1.2.b.1', 0],
      ['1.0', ' 1.0 ', 0],
      ['1.0.0-alpha', '1.0.0-alpha.1', -1],
      ['1.0.0-alpha.1', '1.0.0-beta.2', -1],
      ['1.0.0-beta.2', '1.0.0-beta.11', -1],
      ['1.0.0-beta.11', '1.0.0-rc.1', -1],
      ['1.0.0-rc1', '1.0.0', -1],
      ['1.0.0-1', '1', -1],
    ];
    for (const [a, b, want] of cases) expectOrder('RubyGems', a, b, want);
  });

  // NuGet/NuGet.Client NuGet.Versioning.Test VersionComparerTests (default comparer) and SemVer 2.0.0 §11
  it('issue 16: NuGet version order (NuGet.Versioning VersionComparerTests)', () => {
    const equal: [string, string][] = [
      ['1.0.0', '1.0.0'],
      ['1.0.0-BETA', '1.0.0-beta'],
      ['1.0.0-BETA+AA', '1.0.0-beta+aa'],
      ['1.0.0-BETA.X.y.5.77.0+AA', '1.0.0-beta.x.y.5.77.0+aa'],
      ['1.0.0', '1.0.0+B'],
      ['1.0', '1.0.0.0'],
      ['1.0+test', '1.0.0.0'],
      ['1.0.0.1-1.2.A', '1.0.0.1-1.2.a+A'],
      ['1.0.01', '1.0.1.0'],
    ];
    for (const [a, b] of equal) expectEqual('NuGet', a, b);
    expectAscending('NuGet', [
      '0.0.0-alpha',
      '0.0.0',
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.0.1',
      '1.0.1',
      '1.1',
      '2.0.0-BETA',
      '2.0.0-beta.1',
      '2.0.0',
    ]);
  });

  it('issue 16: semver (npm, Go with its v prefix, crates.io) and PEP 440 (PyPI) orders', () => {
    expectAscending('npm', [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.2.3',
      '1.10.0',
    ]);
    expectEqual('npm', '1.0.0', '1.0.0+build.5');
    expectOrder('Go', 'v1.2.3', '1.10.0', -1);
    expectEqual('Go', 'v0.0.0-20210101000000-abcdefabcdef', '0.0.0-20210101000000-abcdefabcdef');
    expectOrder('Go', '0.0.0-20210101000000-abcdefabcdef', '0.0.0-20220101000000-abcdefabcdef', -1);
    expectOrder('crates.io', '0.9.9', '0.10.0', -1);
    expectOrder('npm', '1.2', '1.2.1', -1); // loose: a short version still compares
    expectAscending('PyPI', [
      '1.0.dev1',
      '1.0a1',
      '1.0a2.dev1',
      '1.0a2',
      '1.0b1',
      '1.0rc1',
      '1.0',
      '1.0.post1',
      '1.1',
      '2!0.1',
    ]);
    expectEqual('PyPI', '1.0', '1.0.0');
    expectEqual('PyPI', '1.0-RC1', '1.0rc1');
  });
});
