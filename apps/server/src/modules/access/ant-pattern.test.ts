import { describe, expect, it } from 'vitest';
import { antMatch } from './ant-pattern.ts';

describe('Ant-style path patterns of permission targets', () => {
  it.each([
    ['**', 'a/b/c.jar', true],
    ['**', '', true],
    ['org/**', 'org/acme/x.jar', true],
    ['org/**', 'org', true],
    ['org/**', 'orgx/a', false],
    ['**/*.jar', 'a/b/c.jar', true],
    ['**/*.jar', 'c.jar', true],
    ['**/*.jar', 'a/b/c.pom', false],
    ['*.jar', 'a/c.jar', false],
    ['a/*/c', 'a/b/c', true],
    ['a/*/c', 'a/b/x/c', false],
    ['a/**/c', 'a/c', true],
    ['a/**/c', 'a/b/x/c', true],
    ['a?c', 'abc', true],
    ['a?c', 'a/c', false],
    ['secret/', 'secret/deep/file', true],
    ['/lib/**', 'lib/x', true],
    ['a.b', 'axb', false],
  ])('%s matches %s: %s', (pattern, path, expected) => {
    expect(antMatch(pattern, path)).toBe(expected);
  });
});
