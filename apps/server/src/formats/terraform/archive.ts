import {
  ArchiveError,
  type ArchiveLimits,
  archiveLimitOf,
  escapesFolder,
  tarGzEntries,
  zipEntries,
} from '../../platform/archives/bounded-archive.ts';
import type { ArchiveKind } from './names.ts';

/** The largest module archive or provider zip accepted (uploads and upstream files alike). */
export const MAX_ARCHIVE_BYTES = 512 * 1024 * 1024;
const README_BYTES = 1024 * 1024;
const TF_BYTES = 1024 * 1024;

const LIMITS: ArchiveLimits = {
  entries: 100_000,
  entryBytes: Math.max(README_BYTES, TF_BYTES),
  totalBytes: 2 * 1024 * 1024 * 1024,
  ratio: 200,
  ratioFloor: 64 * 1024 * 1024,
};

/** Not an archive terraform would unpack safely (the message is what the uploader is told). */
export class TerraformArchiveError extends ArchiveError {}

export interface ModuleArchive {
  /** the one top-level folder holding the module, when the archive has one */
  root?: string;
  readme?: string;
  /** the root `.tf` files' text (bounded), for the module's dependencies */
  rootTf: string[];
  tfFiles: number;
}

/** The kind of archive the bytes are (zip "PK", gzip 1f 8b), or null. */
export function sniffArchive(bytes: Buffer): ArchiveKind | null {
  if (bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b) return 'zip';
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) return 'tar.gz';
  return null;
}

async function* entriesOf(bytes: Buffer, kind: ArchiveKind) {
  if (kind === 'zip') {
    for await (const e of zipEntries(bytes, LIMITS)) yield { name: e.name, file: true, read: e.read };
  } else {
    for await (const e of tarGzEntries(bytes, LIMITS)) {
      if (e.type === 'directory') continue;
      if (e.type !== 'file')
        throw new TerraformArchiveError(`the archive holds '${e.name}', a ${e.type}: only files are allowed`);
      yield { name: e.name, file: true, read: e.read };
    }
  }
}

/**
 * Checks a module archive (a zip or a gzipped tar) as terraform will unpack it — no path that climbs
 * out, no link, within the size limits, at least one `.tf` file — and reads its README.md and root
 * `.tf` files. The module's root is the archive's, or its one top-level folder when every entry is in
 * it (a GitHub tarball `{repo}-{ref}/`): `root` names that folder, for the `//{root}` terraform is told.
 */
export async function readModuleArchive(bytes: Buffer, kind: ArchiveKind): Promise<ModuleArchive> {
  if (sniffArchive(bytes) !== kind)
    throw new TerraformArchiveError(
      `the module archive is not a ${kind === 'zip' ? 'zip' : 'gzipped tar'} file`,
    );
  let tfFiles = 0;
  const tops = new Set<string>();
  let rootFiles = false;
  // files at the archive's root and one folder down: the module root is one of the two
  const near = new Map<string, Buffer>();
  try {
    for await (const entry of entriesOf(bytes, kind)) {
      const name = entry.name.replace(/^\.\//, '');
      if (escapesFolder(name))
        throw new TerraformArchiveError(
          `the module archive holds a path outside its folder: '${entry.name}'`,
        );
      const parts = name.split('/');
      if (parts.length === 1) rootFiles = true;
      else tops.add(parts[0]!);
      const leaf = parts.at(-1)!;
      if (/\.tf(\.json)?$/.test(leaf)) tfFiles += 1;
      if (parts.length <= 2 && near.size < 100 && (/\.tf$/.test(leaf) || /^readme(\.md)?$/i.test(leaf))) {
        const text = await entry.read().catch(() => null);
        if (text) near.set(name, text);
      }
    }
  } catch (err) {
    if (err instanceof TerraformArchiveError || archiveLimitOf(err)) throw err;
    if (err instanceof ArchiveError)
      throw new TerraformArchiveError(`the module archive cannot be read: ${err.message}`);
    throw err;
  }
  if (tfFiles === 0)
    throw new TerraformArchiveError('the archive is not a Terraform module: it holds no .tf file');
  const root = !rootFiles && tops.size === 1 ? [...tops][0]! : undefined;
  const out: ModuleArchive = { rootTf: [], tfFiles, ...(root ? { root } : {}) };
  for (const [name, text] of near) {
    const rel = root ? (name.startsWith(`${root}/`) ? name.slice(root.length + 1) : null) : name;
    if (rel === null || rel.includes('/')) continue;
    if (rel.endsWith('.tf')) out.rootTf.push(text.toString('utf8'));
    else out.readme ??= text.toString('utf8');
  }
  return out;
}

/** Checks a provider package: a zip whose root holds the `terraform-provider-{type}…` executable, no path escapes. */
export async function checkProviderZip(bytes: Buffer, type: string): Promise<void> {
  if (sniffArchive(bytes) !== 'zip')
    throw new TerraformArchiveError('the provider package is not a zip file');
  let found = false;
  try {
    for await (const entry of zipEntries(bytes, LIMITS)) {
      if (escapesFolder(entry.name))
        throw new TerraformArchiveError(
          `the provider package holds a path outside its folder: '${entry.name}'`,
        );
      if (!entry.name.includes('/') && entry.name.startsWith(`terraform-provider-${type}`)) found = true;
    }
  } catch (err) {
    if (err instanceof TerraformArchiveError || archiveLimitOf(err)) throw err;
    if (err instanceof ArchiveError)
      throw new TerraformArchiveError(`the provider package cannot be read: ${err.message}`);
    throw err;
  }
  if (!found)
    throw new TerraformArchiveError(
      `the provider package has no terraform-provider-${type} executable at its root`,
    );
}

/** The body of the first `{…}` block after `at` (balanced braces; strings skipped). */
function blockAt(text: string, at: number): string | null {
  const open = text.indexOf('{', at);
  if (open < 0) return null;
  let depth = 0;
  let inString = false;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(open + 1, i);
  }
  return null;
}

const attr = (block: string, key: string) =>
  new RegExp(`(?:^|\\n)\\s*${key}\\s*=\\s*"([^"\\n]*)"`).exec(block)?.[1];

/**
 * A module's dependencies from its root `.tf` files: the providers of `required_providers` (scope
 * `provider`) and the registry modules it calls (scope `module`), with their version constraints.
 */
export function moduleDependencies(rootTf: string[]): { name: string; range?: string; scope: string }[] {
  const deps: { name: string; range?: string; scope: string }[] = [];
  for (const text of rootTf) {
    for (const m of text.matchAll(/required_providers\s*\{/g)) {
      const block = blockAt(text, m.index);
      if (!block) continue;
      for (const p of block.matchAll(/([A-Za-z][\w-]*)\s*=\s*\{([^{}]*)\}/g)) {
        const source = attr(`\n${p[2]}`, 'source') ?? `hashicorp/${p[1]}`;
        const range = attr(`\n${p[2]}`, 'version');
        deps.push({ name: source, ...(range ? { range } : {}), scope: 'provider' });
      }
    }
    for (const m of text.matchAll(/(?:^|\n)\s*module\s+"[^"]*"\s*\{/g)) {
      const block = blockAt(text, m.index);
      const source = block && attr(`\n${block}`, 'source');
      if (!source || source.startsWith('.')) continue;
      const range = attr(`\n${block}`, 'version');
      deps.push({ name: source, ...(range ? { range } : {}), scope: 'module' });
    }
  }
  return deps;
}
