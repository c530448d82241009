import { describe, expect, it } from 'vitest';
import { VerificationMemo } from './verify.ts';

describe('VerificationMemo (issue 24 S4: a blob verified whole is not re-hashed on every download)', () => {
  it('spares a blob only for the same file identity and within its window', () => {
    const memo = new VerificationMemo(1000, 10);
    memo.remember('a', 'dev:ino:1:mtime:ctime', 0);
    expect(memo.has('a', 'dev:ino:1:mtime:ctime', 999)).toBe(true);
    expect(memo.has('a', 'dev:ino:1:mtime:ctime', 1000)).toBe(false);
    expect(memo.has('a', 'dev:ino:1:mtime2:ctime2', 10)).toBe(false);
    expect(memo.has('b', 'dev:ino:1:mtime:ctime', 10)).toBe(false);
    memo.forget('a');
    expect(memo.has('a', 'dev:ino:1:mtime:ctime', 10)).toBe(false);
  });

  it('keeps a bounded number of blobs, dropping the least recently verified', () => {
    const memo = new VerificationMemo(60_000, 2);
    memo.remember('a', 'i', 0);
    memo.remember('b', 'i', 1);
    memo.remember('a', 'i', 2); // verified again: now the newest
    memo.remember('c', 'i', 3);
    expect(memo.has('a', 'i', 4)).toBe(true);
    expect(memo.has('b', 'i', 4)).toBe(false);
    expect(memo.has('c', 'i', 4)).toBe(true);
  });
});
