import { ArchiveError, type ArchiveLimits, zipEntries } from '../../platform/archives/bounded-archive.ts';
import { type ByteSource, readBounded } from '../sdk/helpers.ts';
import { GoError } from './respond.ts';

/**
 * A module zip as the go command makes and checks it (golang.org/x/mod/zip): every entry under
 * `{module}@{version}/`, no path escapes, no two files differing only in case, the go command's size
 * limits (500 MiB unpacked, go.mod and LICENSE 16 MiB each), go.mod only at the root.
 */
export const GO_LIMITS = {
  /** MaxZipFile: the zip, and the files it unpacks to */
  zipBytes: 500 * 1024 * 1024,
  /** MaxGoMod */
  goModBytes: 16 * 1024 * 1024,
  /** MaxLICENSE */
  licenseBytes: 16 * 1024 * 1024,
  /** a README kept for the packages index */
  readmeBytes: 1024 * 1024,
};

const LIMITS: ArchiveLimits = {
  entries: 200_000,
  entryBytes: GO_LIMITS.goModBytes,
  totalBytes: GO_LIMITS.zipBytes,
  ratio: 200,
  ratioFloor: 64 * 1024 * 1024,
};

/** A zip that is not a valid module zip: the message is what the uploader is told. */
export class ModuleZipError extends GoError {
  constructor(message: string) {
    super(400, message);
  }
}

export interface ModuleZip {
  goMod: Buffer | null;
  license: Buffer | null;
  readme: Buffer | null;
  files: number;
}

/** Characters module.CheckFilePath refuses in a file name (control characters are checked apart). */
const badChars = /["'*<>?`|:\\]/;
const hasControl = (s: string) => [...s].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

/** Checks a module zip held in memory and reads its go.mod, LICENSE and README. */
export async function readModuleZip(zip: Buffer, module: string, version: string): Promise<ModuleZip> {
  if (zip.length > GO_LIMITS.zipBytes)
    throw new ModuleZipError(
      `module zip is larger than the go command's limit of ${GO_LIMITS.zipBytes} bytes`,
    );
  const prefix = `${module}@${version}/`;
  const out: ModuleZip = { goMod: null, license: null, readme: null, files: 0 };
  const seen = new Set<string>();
  try {
    for await (const entry of zipEntries(zip, LIMITS)) {
      const name = entry.name;
      if (!name.startsWith(prefix))
        throw new ModuleZipError(`zip file contains ${name}, which is not in the module directory ${prefix}`);
      const rel = name.slice(prefix.length);
      const parts = rel.split('/');
      if (
        !rel ||
        parts.some((p) => p === '' || p === '.' || p === '..') ||
        badChars.test(rel) ||
        hasControl(rel)
      )
        throw new ModuleZipError(
          `zip file contains ${name}: malformed file path (a path escape or an invalid name)`,
        );
      const folded = rel.toLowerCase();
      if (seen.has(folded))
        throw new ModuleZipError(`zip file contains multiple files named "${rel}" (case-insensitively)`);
      seen.add(folded);
      out.files += 1;
      if (parts.length > 1 && parts.at(-1) === 'go.mod')
        throw new ModuleZipError(
          `zip file contains ${name}: a go.mod below the module root belongs to another module`,
        );
      if (rel === 'go.mod') out.goMod = await entry.read();
      else if (rel === 'LICENSE') out.license = await entry.read();
      else if (/^readme(\.md|\.txt)?$/i.test(rel) && !out.readme) {
        const bytes = await entry.read();
        out.readme = bytes.length <= GO_LIMITS.readmeBytes ? bytes : null;
      }
    }
  } catch (err) {
    if (err instanceof ArchiveError) throw new ModuleZipError(`invalid module zip: ${err.message}`);
    throw err;
  }
  if (out.files === 0) throw new ModuleZipError(`module zip has no files under ${prefix}`);
  return out;
}

/** Reads an upload whole, at most `max` bytes (the go command's limit): 413 before a byte when announced larger. */
export async function readUpload(
  source: ByteSource,
  max: number,
  what: string,
  announced?: string | string[],
): Promise<Buffer> {
  return readBounded(
    source,
    max,
    () => new GoError(413, `${what} is larger than the go command's limit of ${max} bytes`),
    {
      announced,
      rest: 'drain',
    },
  );
}
