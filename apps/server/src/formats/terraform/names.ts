import semver from 'semver';

/**
 * Terraform addresses and the paths files keep in a repository (Artifactory's layout, so a REST
 * deploy or a copy from Artifactory lands where the registry protocol finds it):
 * - a module version `{namespace}/{name}/{provider}/{version}.zip` (or `.tar.gz`);
 * - a provider package `{namespace}/{type}/{version}/terraform-provider-{type}_{version}_{os}_{arch}.zip`.
 */

/** The registry's namespace and module name rule (the module registry protocol). */
const NAME = /^[0-9A-Za-z](?:[0-9A-Za-z_-]{0,62}[0-9A-Za-z])?$/;
/** A module's target system ("provider" in the address): lower-case letters and digits. */
const SYSTEM = /^[0-9a-z]{1,64}$/;
/** A provider type: lower-case letters, digits and dashes. */
const TYPE = /^[0-9a-z](?:[0-9a-z-]{0,62}[0-9a-z])?$/;
const PLATFORM = /^[0-9a-z_]{1,32}$/;

export const isName = (s: string) => NAME.test(s);
export const isSystem = (s: string) => SYSTEM.test(s);
export const isType = (s: string) => TYPE.test(s);
export const isPlatformPart = (s: string) => PLATFORM.test(s);
/** A registry version: semantic, without a leading `v` (terraform's constraint syntax). */
export const isVersion = (s: string) => semver.valid(s) === s && !s.includes('+');

export interface ModuleAddress {
  namespace: string;
  name: string;
  system: string;
}

export interface ProviderAddress {
  namespace: string;
  type: string;
}

export type ArchiveKind = 'zip' | 'tar.gz';

export const moduleFolder = (m: ModuleAddress) => `${m.namespace}/${m.name}/${m.system}`;
export const moduleFile = (m: ModuleAddress, version: string, kind: ArchiveKind) =>
  `${moduleFolder(m)}/${version}.${kind}`;
export const moduleId = (m: ModuleAddress) => `${m.namespace}/${m.name}/${m.system}`;

export const providerFolder = (p: ProviderAddress) => `${p.namespace}/${p.type}`;
export const providerZipName = (type: string, version: string, os: string, arch: string) =>
  `terraform-provider-${type}_${version}_${os}_${arch}.zip`;
export const providerZip = (p: ProviderAddress, version: string, os: string, arch: string) =>
  `${providerFolder(p)}/${version}/${providerZipName(p.type, version, os, arch)}`;
export const shasumsName = (type: string, version: string) =>
  `terraform-provider-${type}_${version}_SHA256SUMS`;
export const providerId = (p: ProviderAddress) => `${p.namespace}/${p.type}`;

/** A stored module archive's coordinates, from its path. */
export function parseModulePath(
  path: string,
): (ModuleAddress & { version: string; kind: ArchiveKind }) | null {
  const m = /^([^/]+)\/([^/]+)\/([^/]+)\/([^/]+)\.(zip|tar\.gz)$/.exec(path);
  if (!m) return null;
  const [, namespace, name, system, version, kind] = m as unknown as string[];
  if (!isName(namespace!) || !isName(name!) || !isSystem(system!) || !isVersion(version!)) return null;
  return {
    namespace: namespace!,
    name: name!,
    system: system!,
    version: version!,
    kind: kind as ArchiveKind,
  };
}

/** A stored provider package's coordinates, from its path. */
export function parseProviderPath(
  path: string,
): (ProviderAddress & { version: string; os: string; arch: string; filename: string }) | null {
  const m = /^([^/]+)\/([^/]+)\/([^/]+)\/(terraform-provider-([^/]+)\.zip)$/.exec(path);
  if (!m) return null;
  const [, namespace, type, version, filename] = m as unknown as string[];
  const prefix = `terraform-provider-${type}_${version}_`;
  if (!isName(namespace!) || !isType(type!) || !isVersion(version!) || !filename!.startsWith(prefix))
    return null;
  const platform = filename!.slice(prefix.length, -'.zip'.length).split('_');
  // os_arch, where arch may itself hold no underscore but os never does (linux_amd64, windows_386)
  if (platform.length !== 2 || !platform.every(isPlatformPart)) return null;
  return {
    namespace: namespace!,
    type: type!,
    version: version!,
    os: platform[0]!,
    arch: platform[1]!,
    filename: filename!,
  };
}

/**
 * The namespace of the host-wide registry API (`/api/terraform/v1/…`): `{repoKey}__{namespace}`, as
 * Artifactory spells a repository in a module or provider source address. Null when it names none.
 */
export function splitRepoNamespace(s: string): { repoKey: string; namespace: string } | null {
  const at = s.indexOf('__');
  if (at <= 0 || at + 2 >= s.length) return null;
  return { repoKey: s.slice(0, at), namespace: s.slice(at + 2) };
}
