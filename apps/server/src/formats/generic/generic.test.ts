import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createFormatRegistry } from '../registry.ts';
import { describeFormatConformance } from '../sdk/conformance.ts';
import type { PackageFormat } from '../sdk/format.ts';
import { genericFormat } from './index.ts';

const file = (path: string, text: string) => ({
  path,
  size: text.length,
  sha256: '0'.repeat(64),
  open: async () => Readable.from([Buffer.from(text)]),
});

describeFormatConformance(genericFormat, [{ file: file('docs/readme.txt', 'hello'), expected: null }]);

describe('format registry', () => {
  it('finds a format by id and by the spec 001 §9 aliases, case-insensitively', () => {
    const go = { ...genericFormat, id: 'go', aliases: [] } satisfies PackageFormat;
    const registry = createFormatRegistry([genericFormat, go]);
    expect(registry.get('GENERIC')?.id).toBe('generic');
    expect(registry.get('golang')?.id).toBe('go');
    expect(registry.get('nope')).toBeUndefined();
  });

  it('refuses a duplicate id or alias at boot, naming both formats', () => {
    const clash = { ...genericFormat, id: 'other', aliases: ['generic'] } satisfies PackageFormat;
    expect(() => createFormatRegistry([genericFormat, clash])).toThrow(
      /"other" claims "generic", already taken by "generic"/,
    );
  });

  it('spec 001 §9: refuses the excluded package types dockerV1 and terraformBackend', () => {
    const excluded = { ...genericFormat, id: 'dockerV1', aliases: [] } satisfies PackageFormat;
    expect(() => createFormatRegistry([excluded])).toThrow(/excluded/);
  });
});
