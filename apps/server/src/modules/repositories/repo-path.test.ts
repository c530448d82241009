import { describe, expect, it } from 'vitest';
import { InvalidError } from '../../platform/errors.ts';
import { RepoPath } from './repo-path.ts';

describe('canonical repository path', () => {
  it('normalises slashes and keeps the folder hint', () => {
    const p = RepoPath.parse('libs', '//org//acme/lib.jar');
    expect(p.path).toBe('org/acme/lib.jar');
    expect(p.toString()).toBe('libs/org/acme/lib.jar');
    expect(p.folderHint).toBe(false);
    expect(RepoPath.parse('libs', 'org/acme/').folderHint).toBe(true);
    expect(RepoPath.parse('libs', '').isRoot).toBe(true);
    expect(RepoPath.parse('libs', 'a/b').parent()?.path).toBe('a');
  });

  it.each([
    ['..', 'a plain parent segment'],
    ['a/../../etc/passwd', 'parent segments inside'],
    ['./a', 'a current-directory segment'],
    ['%2e%2e/etc/passwd', 'encoded once (as a raw, undecoded string)'],
    ['%252e%252e/etc/passwd', 'encoded twice'],
    ['a/%2E%2e/b', 'mixed-case encoding'],
    ['a\\..\\b', 'backslashes'],
    ['a/%5c..%5cb', 'encoded backslashes'],
    ['a/b%2f..%2fc', 'an encoded slash inside a segment'],
    ['a/\u0000/b', 'NUL'],
    ['a/b\u0000.txt', 'NUL inside a name'],
    ['a/%00/b', 'encoded NUL'],
    ['..;/etc/passwd', 'a path parameter before a slash (..;/)'],
    ['a;x=1/b', 'a path parameter in the middle'],
    ['.granary/uploads/x', 'the internal namespace'],
    ['a/\u001b[31m', 'control characters'],
  ])('refuses %s (%s) with the same error for permission and storage', (raw) => {
    expect(() => RepoPath.parse('libs', raw)).toThrow(InvalidError);
    expect(() => RepoPath.parse('libs', raw)).toThrow(expect.objectContaining({ code: 'INVALID_PATH' }));
  });

  it('refuses a repository key that is not a safe name', () => {
    for (const key of ['..', 'a/b', '', '-x', 'a..b', 'x'.repeat(65)]) {
      expect(() => RepoPath.parse(key, 'f')).toThrow(expect.objectContaining({ code: 'INVALID_PATH' }));
    }
  });

  it('treats visually identical Unicode names as one path (NFC)', () => {
    const composed = RepoPath.parse('libs', 'caf\u00e9.txt');
    const decomposed = RepoPath.parse('libs', 'cafe\u0301.txt');
    expect(decomposed.path).toBe(composed.path);
  });

  it('reads ;k=v matrix parameters after the last segment as deploy properties', () => {
    const matrix = new Map<string, string[]>();
    const p = RepoPath.parse('libs', 'a/b.jar;build.name=app;build.number=7;tags=x,y', matrix);
    expect(p.path).toBe('a/b.jar');
    expect(Object.fromEntries(matrix)).toEqual({
      'build.name': ['app'],
      'build.number': ['7'],
      tags: ['x', 'y'],
    });
  });

  it('keeps ordinary names with dots, percent signs and spaces', () => {
    expect(RepoPath.parse('libs', '.npmrc').path).toBe('.npmrc');
    expect(RepoPath.parse('libs', 'a/...').path).toBe('a/...');
    expect(RepoPath.parse('libs', 'a/100% done.txt').path).toBe('a/100% done.txt');
    expect(RepoPath.parse('libs', 'a/my file.tgz').name).toBe('my file.tgz');
  });
});
