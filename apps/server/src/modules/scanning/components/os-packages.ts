import { normaliseLicense } from './licenses.ts';

/** An OS package as an image's package database lists it. */
export interface OsPackage {
  name: string;
  version: string;
  arch?: string;
  /** the source package (dpkg `Source`, apk `o:`) when it differs from the binary's */
  source?: { name: string; version: string };
  licenses: string[];
}

/** Paragraphs of a deb822 file (dpkg status, copyright): blank-line separated `Field: value` blocks. */
function paragraphs(text: string): Map<string, string>[] {
  const out: Map<string, string>[] = [];
  let current = new Map<string, string>();
  let last: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') {
      if (current.size > 0) out.push(current);
      current = new Map();
      last = undefined;
      continue;
    }
    if (/^[ \t]/.test(line)) {
      if (last) current.set(last, `${current.get(last)}\n${line.trim()}`);
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    last = line.slice(0, colon).trim().toLowerCase();
    current.set(last, line.slice(colon + 1).trim());
  }
  if (current.size > 0) out.push(current);
  return out;
}

/**
 * `var/lib/dpkg/status` (or one file of `status.d/`): the installed packages (`Status: … installed`,
 * or no Status at all as distroless images write them).
 */
export function parseDpkgStatus(bytes: Buffer): OsPackage[] {
  const out: OsPackage[] = [];
  for (const p of paragraphs(bytes.toString('utf8'))) {
    const name = p.get('package');
    const version = p.get('version');
    const status = p.get('status');
    if (!name || !version || (status !== undefined && !/\binstalled$/.test(status))) continue;
    const pkg: OsPackage = { name, version, licenses: [] };
    const arch = p.get('architecture');
    if (arch) pkg.arch = arch;
    // `Source: openssl` or `Source: openssl (3.0.11-1)` (a source version other than the binary's)
    const source = /^(\S+)(?:\s+\(([^)]+)\))?/.exec(p.get('source') ?? '');
    if (source && (source[1] !== name || (source[2] && source[2] !== version)))
      pkg.source = { name: source[1]!, version: source[2] ?? version };
    out.push(pkg);
  }
  return out;
}

/** `lib/apk/db/installed`: `P:` name, `V:` version, `A:` arch, `L:` licence, `o:` origin, one block a package. */
export function parseApkInstalled(bytes: Buffer): OsPackage[] {
  const out: OsPackage[] = [];
  for (const block of bytes.toString('utf8').split(/\r?\n\r?\n/)) {
    const f = new Map<string, string>();
    for (const line of block.split(/\r?\n/)) if (line[1] === ':') f.set(line[0]!, line.slice(2).trim());
    const name = f.get('P');
    const version = f.get('V');
    if (!name || !version) continue;
    const license = f.get('L');
    const pkg: OsPackage = {
      name,
      version,
      // apk writes `MIT BSD-2-Clause` for "and", `MIT OR Apache-2.0` as such
      licenses: license ? [normaliseApkLicense(license)] : [],
    };
    const arch = f.get('A');
    if (arch) pkg.arch = arch;
    const origin = f.get('o');
    if (origin && origin !== name) pkg.source = { name: origin, version };
    out.push(pkg);
  }
  return out;
}

function normaliseApkLicense(raw: string): string {
  const direct = normaliseLicense(raw);
  if (direct && direct !== raw.trim()) return direct;
  const parts = raw.trim().split(/\s+/);
  if (parts.length > 1 && !/\b(AND|OR|WITH)\b/.test(raw)) {
    const joined = normaliseLicense(parts.join(' AND '));
    if (joined) return joined;
  }
  return direct ?? raw.trim();
}

/** `etc/os-release`: `ID` and `VERSION_ID` (quotes removed). */
export function parseOsRelease(bytes: Buffer): { id?: string; versionId?: string } {
  const out: { id?: string; versionId?: string } = {};
  for (const line of bytes.toString('utf8').split(/\r?\n/)) {
    const m = /^(ID|VERSION_ID)=(.*)$/.exec(line.trim());
    if (!m) continue;
    const value = m[2]!.replace(/^["']|["']$/g, '');
    if (m[1] === 'ID') out.id = value;
    else out.versionId = value;
  }
  return out;
}

/**
 * A machine-readable `usr/share/doc/{package}/copyright` (DEP-5): the licence of its `Files: *`
 * paragraph (else the first `License:`); null when it is free text.
 */
export function parseDebianCopyright(bytes: Buffer): string | null {
  const all = paragraphs(bytes.toString('utf8'));
  if (!all[0]?.has('format')) return null;
  const main =
    all.find((p) => p.get('files')?.trim() === '*' && p.has('license')) ?? all.find((p) => p.has('license'));
  const first = main?.get('license')?.split('\n')[0]?.trim();
  if (!first) return null;
  // DEP-5 names: `GPL-2+`, `BSD-3-clause`, `Expat`; `or`/`and` joined
  const spdx = first
    .split(/\s+(or|and)\s+/i)
    .map((part) =>
      /^(or|and)$/i.test(part)
        ? part.toUpperCase()
        : part === 'Expat'
          ? 'MIT'
          : /^(L?GPL|AGPL)-(\d(?:\.\d)?)\+$/.exec(part)
            ? part.replace(
                /^(L?GPL|AGPL)-(\d)(?:\.(\d))?\+$/,
                (_w, n, a, b) => `${n}-${a}.${b ?? '0'}-or-later`,
              )
            : /^(L?GPL|AGPL)-(\d(?:\.\d)?)$/.test(part)
              ? part.replace(/^(L?GPL|AGPL)-(\d)(?:\.(\d))?$/, (_w, n, a, b) => `${n}-${a}.${b ?? '0'}-only`)
              : part,
    )
    .join(' ');
  return normaliseLicense(spdx);
}
