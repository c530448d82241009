import { InvalidError } from '../../platform/errors.ts';

/**
 * The one canonical form of "a path in a repository". Every route that names an artifact parses
 * its input here once, and both the permission check and the storage location use the result,
 * so they can never disagree about which artifact a request means.
 *
 * Refused: `.` and `..` segments (also when they arrive percent-encoded once or twice), backslashes,
 * NUL and other control characters, `;` path parameters anywhere but after the last segment
 * (the `..;/` smuggling trick), and the internal `.granary` namespace. Repeated slashes collapse,
 * names are normalised to Unicode NFC so visually identical names are one artifact.
 */
export class RepoPath {
  private constructor(
    readonly repoKey: string,
    /** Segments of the path inside the repository; empty for the repository root. */
    readonly segments: readonly string[],
    /** The request named a folder (trailing slash). */
    readonly folderHint: boolean,
  ) {}

  /** `a/b/c.txt`, no leading or trailing slash; `''` for the root. */
  get path(): string {
    return this.segments.join('/');
  }

  get isRoot(): boolean {
    return this.segments.length === 0;
  }

  get name(): string {
    return this.segments.at(-1) ?? '';
  }

  parent(): RepoPath | null {
    return this.isRoot ? null : new RepoPath(this.repoKey, this.segments.slice(0, -1), true);
  }

  child(name: string): RepoPath {
    return new RepoPath(this.repoKey, [...this.segments, checkSegment(name)], false);
  }

  /** `repo/a/b/c.txt` */
  toString(): string {
    return this.isRoot ? this.repoKey : `${this.repoKey}/${this.path}`;
  }

  /**
   * Parses a path as routes receive it (already percent-decoded once by the router).
   * `matrix` collects `;k=v` parameters found after the last segment (Artifactory's deploy properties).
   */
  static parse(repoKey: string, rawPath: string, matrix?: Map<string, string[]>): RepoPath {
    checkRepoKey(repoKey);
    if (rawPath.length > MAX_PATH_LENGTH)
      throw new InvalidError(`Path is longer than ${MAX_PATH_LENGTH} characters`, INVALID_PATH);
    let raw = rawPath.replace(/^\/+/, '');
    const semicolon = raw.indexOf(';');
    if (semicolon >= 0) {
      if (raw.indexOf('/', semicolon) >= 0)
        throw new InvalidError('Path parameters are only allowed after the file name', INVALID_PATH);
      const params = raw.slice(semicolon + 1);
      raw = raw.slice(0, semicolon);
      parseMatrix(params, matrix);
    }
    const folderHint = raw.endsWith('/') || raw === '';
    const segments = raw
      .split('/')
      .filter((s) => s !== '')
      .map(checkSegment);
    if (segments[0]?.toLowerCase() === INTERNAL_NAMESPACE) {
      throw new InvalidError(`"${INTERNAL_NAMESPACE}" is reserved`, INVALID_PATH);
    }
    return new RepoPath(repoKey, segments, folderHint);
  }
}

export const INVALID_PATH = 'INVALID_PATH';
export const MAX_PATH_LENGTH = 1024;
const MAX_SEGMENT_BYTES = 255;
const INTERNAL_NAMESPACE = '.granary';
const REPO_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function checkRepoKey(key: string): void {
  if (!REPO_KEY.test(key) || key.includes('..'))
    throw new InvalidError(`Invalid repository key "${key}"`, INVALID_PATH);
}

/** Decodes percent-escapes repeatedly (at most a few rounds) to see what a segment could become. */
function fullyDecoded(segment: string): string {
  let current = segment;
  for (let i = 0; i < 3 && /%[0-9a-f]{2}/i.test(current); i++) {
    try {
      current = decodeURIComponent(current);
    } catch {
      break;
    }
  }
  return current;
}

function checkSegment(segment: string): string {
  const name = segment.normalize('NFC');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f\\]/.test(name))
    throw new InvalidError('Path contains a backslash or control character', INVALID_PATH);
  const decoded = fullyDecoded(name);
  if (decoded === '.' || decoded === '..' || /[\\/]/.test(decoded) || decoded.includes('\u0000')) {
    throw new InvalidError('Path contains a relative or encoded segment', INVALID_PATH);
  }
  if (Buffer.byteLength(name) > MAX_SEGMENT_BYTES)
    throw new InvalidError(`A path segment is longer than ${MAX_SEGMENT_BYTES} bytes`, INVALID_PATH);
  return name;
}

function parseMatrix(params: string, into?: Map<string, string[]>): void {
  for (const pair of params.split(';')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const key = (eq < 0 ? pair : pair.slice(0, eq)).trim();
    if (!key || /[/\\]/.test(key)) throw new InvalidError(`Invalid path parameter "${pair}"`, INVALID_PATH);
    const values = eq < 0 ? [] : pair.slice(eq + 1).split(',');
    if (into) into.set(key, [...(into.get(key) ?? []), ...values]);
  }
}
