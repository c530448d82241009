import { createHash } from 'node:crypto';
import semver from 'semver';
import type { StoredFile, UpstreamCheck, UpstreamCheckContext, UpstreamFile } from '../sdk/format.ts';
import { readBounded } from '../sdk/helpers.ts';
import { type Packument, remotePackument } from './index-builder.ts';
import { readTarball } from './metadata.ts';
import { isValidName, META_ROOT, parseNpmPath } from './names.ts';

/**
 * What a remote npm repository accepts from its upstream before caching it (issue 12 §4–§6): only
 * packuments (`.npm/{name}/package.json`, the upstream's `/{name}`) and the tarballs they list are
 * ever asked for. A packument must name the package asked for; a tarball must be a gzip whose
 * integrity and shasum are the ones the upstream's packument gives for it, and whose package.json
 * names that package and version.
 */

/** A packument larger than this is refused (the biggest public ones are tens of MB). */
const MAX_PACKUMENT_BYTES = 256 * 1024 * 1024;
const PACKUMENT_PATH = new RegExp(`^${META_ROOT.replace('.', '\\.')}/(.+)/package\\.json$`);
const SRI_ALGORITHMS = ['sha512', 'sha384', 'sha256', 'sha1'] as const;
type SriAlgorithm = (typeof SRI_ALGORITHMS)[number];

/** An answer that is not what was asked for: its message completes "answered '<path>' with …". */
class Mismatch extends Error {}

async function readJson(file: StoredFile, max: number): Promise<unknown> {
  const bytes = await readBounded(
    await file.open(),
    max,
    () => new Mismatch(`a packument larger than ${max} bytes`),
  );
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new Mismatch('a packument that is not JSON');
  }
}

/** `dist.integrity` as `{algorithm: [base64 digests]}` (Subresource Integrity: `alg-b64[?opts]`, space-separated). */
function parseIntegrity(value: unknown): Partial<Record<SriAlgorithm, string[]>> {
  const out: Partial<Record<SriAlgorithm, string[]>> = {};
  if (typeof value !== 'string') return out;
  for (const token of value.trim().split(/\s+/)) {
    const m = /^(sha512|sha384|sha256|sha1)-([A-Za-z0-9+/]+=*)(?:\?.*)?$/.exec(token);
    if (!m) continue;
    const algorithm = m[1] as SriAlgorithm;
    out[algorithm] = [...(out[algorithm] ?? []), m[2]!];
  }
  return out;
}

async function digestOf(file: UpstreamFile, algorithm: SriAlgorithm): Promise<string> {
  if (algorithm === 'sha1') return Buffer.from(file.sha1, 'hex').toString('base64');
  if (algorithm === 'sha256') return Buffer.from(file.sha256, 'hex').toString('base64');
  const hash = createHash(algorithm);
  for await (const chunk of await file.open()) hash.update(chunk as Buffer);
  return hash.digest('base64');
}

/** The version whose `dist.tarball` is `path` in a remote packument (tarball URLs made relative). */
function versionOf(p: Packument, path: string): string | undefined {
  return Object.keys(p.versions).find((v) => p.versions[v]!.dist?.tarball === path);
}

function packumentCheck(name: string): UpstreamCheck {
  return {
    kind: 'json',
    async verify(file) {
      const doc = await readJson(file, MAX_PACKUMENT_BYTES);
      if (!doc || typeof doc !== 'object' || Array.isArray(doc))
        throw new Mismatch('a packument that is not an object');
      const claimed = (doc as { name?: unknown }).name;
      if (claimed !== name)
        throw new Mismatch(`the packument of ${JSON.stringify(claimed ?? null)} where '${name}' was asked`);
    },
  };
}

function tarballCheck(name: string, version: string, dist: Record<string, unknown>): UpstreamCheck {
  const shasum = typeof dist.shasum === 'string' ? dist.shasum.toLowerCase() : undefined;
  const integrity = parseIntegrity(dist.integrity);
  return {
    kind: 'gzip',
    checksums: shasum ? { sha1: shasum } : {},
    async verify(file) {
      // npm checks the strongest algorithm the packument gives: so does the cache.
      const algorithm = SRI_ALGORITHMS.find((a) => integrity[a]?.length);
      if (algorithm) {
        const actual = await digestOf(file, algorithm);
        if (!integrity[algorithm]!.includes(actual))
          throw new Mismatch(
            `a tarball whose integrity ${algorithm}-${actual} is not the packument's ${algorithm}-${integrity[algorithm]![0]}`,
          );
      }
      const { manifest } = await readTarball(await file.open());
      const claimedVersion = typeof manifest.version === 'string' ? manifest.version : '';
      if (manifest.name !== name || (claimedVersion !== version && semver.clean(claimedVersion) !== version))
        throw new Mismatch(
          `a tarball of ${String(manifest.name)}@${claimedVersion} where ${name}@${version} was asked`,
        );
    },
  };
}

/** `PackageFormat.upstreamCheck` of npm. */
export async function npmUpstreamCheck(
  path: string,
  ctx: UpstreamCheckContext,
): Promise<UpstreamCheck | false | null> {
  const record = PACKUMENT_PATH.exec(path);
  if (record) return isValidName(record[1]!) ? packumentCheck(record[1]!) : false;
  const p = parseNpmPath(path);
  // Nothing but packuments and their tarballs is ever asked of the upstream (issue 12 §6).
  if (p.kind !== 'tarball' || p.rev) return false;
  let packument = await remotePackument(ctx, p.name);
  let version = packument && versionOf(packument, path);
  if (!version) {
    // A version published since the packument was cached: ask the upstream once more.
    packument = await remotePackument({ ...ctx, get: (at) => ctx.get(at, { refresh: true }) }, p.name);
    version = packument && versionOf(packument, path);
  }
  if (!packument || !version) return false;
  return tarballCheck(p.name, version, (packument.versions[version]!.dist ?? {}) as Record<string, unknown>);
}

/** `.npm/{name}/…` → `{name}/…`: patterns see a package's records under its name. */
export function npmPatternPath(path: string): string | null {
  return path.startsWith(`${META_ROOT}/`) ? path.slice(META_ROOT.length + 1) : null;
}

/** The folder of a package's tarballs (`{name}`) for a tarball or a record path. */
export function npmPackageFolder(path: string): string | null {
  const record = /^\.npm\/((?:@[^/]+\/)?[^/]+)(?:\/|$)/.exec(path);
  const name = record
    ? record[1]!
    : (() => {
        const p = parseNpmPath(path);
        return p.kind === 'packument' || p.kind === 'tarball' || p.kind === 'version' ? p.name : null;
      })();
  return name && isValidName(name) ? name : null;
}
