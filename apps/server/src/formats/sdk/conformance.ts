import { describe, expect, it } from 'vitest';
import type { PackageFormat, StoredFile } from './format.ts';

export interface ConformanceFixture {
  /** A real sample file of the format (from `__fixtures__/`), and what extraction must find in it. */
  file: StoredFile;
  expected: { name: string; version: string } | null;
}

/**
 * The conformance kit every format runs: identity, metadata extraction on real sample files,
 * snippets and install commands that point at the repository, upstream mapping for remotes.
 */
export function describeFormatConformance(format: PackageFormat, fixtures: ConformanceFixture[]): void {
  describe(`format conformance: ${format.id}`, () => {
    it('has a lower-case id, a display name, an icon and at least one repository class', () => {
      expect(format.id).toMatch(/^[a-z][a-z0-9]*$/);
      expect(format.displayName.length).toBeGreaterThan(0);
      expect(format.icon.length).toBeGreaterThan(0);
      expect(format.classes.length).toBeGreaterThan(0);
      expect(new Set(format.aliases).size).toBe(format.aliases.length);
    });

    it('extracts the expected coordinates from each sample file, or none for non-package files', async () => {
      for (const fixture of fixtures) {
        const meta = await format.extractMetadata(fixture.file);
        if (fixture.expected === null) expect(meta).toBeNull();
        else expect(meta).toMatchObject(fixture.expected);
      }
    });

    it('gives Set Me Up snippets that name the repository URL', () => {
      const repository = { key: 'conformance-repo', rclass: 'local' as const, packageType: format.id };
      const snippets = format.snippets({ baseUrl: 'https://repo.example.com', repository });
      expect(snippets.length).toBeGreaterThan(0);
      for (const s of snippets) {
        expect(s.title.length).toBeGreaterThan(0);
        expect(s.code).toContain('https://repo.example.com');
      }
      expect(snippets.some((s) => s.code.includes('conformance-repo'))).toBe(true);
    });

    if (format.installCommand) {
      const installCommand = format.installCommand;
      it('issue 13 §3: the install command names the package, and its version when given', () => {
        const latest = installCommand({ name: 'conformance-pkg' });
        const versioned = installCommand({ name: 'conformance-pkg', version: '1.2.3' });
        expect(latest).toContain('conformance-pkg');
        expect(latest).not.toContain('1.2.3');
        expect(versioned).toContain('conformance-pkg');
        expect(versioned).toContain('1.2.3');
        expect(installCommand({ name: 'conformance-pkg', version: null })).toBe(latest);
      });
    }

    if (format.classes.includes('remote')) {
      it('maps a repository path to a URL under the upstream', () => {
        const url = format.upstreamUrl?.('https://upstream.example.com/base/', 'a/b/c.txt');
        expect(url?.startsWith('https://upstream.example.com/base/')).toBe(true);
      });
    }
  });
}
