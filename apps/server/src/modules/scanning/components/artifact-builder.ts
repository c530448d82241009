import type { Component, ExtractedArtifact } from '../model.ts';
import { ScanFailedError } from './scan-limits.ts';

/** Collects what an extraction finds: components unique by purl (at most `max`), and who depends on whom. */
export class ArtifactBuilder {
  private readonly found = new Map<string, Component>();
  private readonly edges = new Map<string, Set<string>>();

  constructor(
    readonly root: Component,
    private readonly max: number,
  ) {}

  /** Adds a component (a second one with the same purl adds only its licences); returns the kept one. */
  add(c: Component): Component {
    if (c.purl === this.root.purl) return this.root;
    const had = this.found.get(c.purl);
    if (had) {
      for (const l of c.licenses) if (!had.licenses.includes(l)) had.licenses.push(l);
      return had;
    }
    if (this.found.size >= this.max)
      throw new ScanFailedError(`the artifact holds more than ${this.max} components`, { limit: true });
    this.found.set(c.purl, c);
    return c;
  }

  has(purl: string): boolean {
    return this.found.has(purl);
  }

  /** `from` depends on `to` (both purls). */
  depend(from: string, to: string): void {
    if (from === to) return;
    const set = this.edges.get(from) ?? new Set<string>();
    this.edges.set(from, set);
    set.add(to);
  }

  build(): ExtractedArtifact {
    const dependencies: Record<string, string[]> = {};
    for (const [from, to] of this.edges) dependencies[from] = [...to].sort();
    return { root: this.root, components: [...this.found.values()], dependencies };
  }
}
