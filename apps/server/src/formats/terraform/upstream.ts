import { readAtMost } from '../../platform/archives/bounded-archive.ts';
import { UpstreamError } from '../../platform/errors.ts';
import type { RepositoryHandle } from '../sdk/format.ts';

/**
 * A remote repository's upstream registry (Terraform's remote service discovery): the upstream's
 * `.well-known/terraform.json` below the remote's URL (`https://registry.terraform.io/`, or another
 * Granary's `…/repository/{key}/`) names where its `modules.v1` and `providers.v1` APIs are; both must
 * be below the remote's URL, so every request goes to the upstream the remote names (cached, revalidated
 * after the retrieval cache period like every index document).
 */

export const DOC_BYTES = 8 * 1024 * 1024;
export const DISCOVERY = '.well-known/terraform.json';

export type Service = 'modules.v1' | 'providers.v1';

const base = (h: RepositoryHandle) => `${(h.repository.url ?? '').replace(/\/+$/, '')}/`;

/** A JSON document of the remote's upstream, through the remote's cache (null: the upstream has none). */
export async function upstreamJson(
  h: RepositoryHandle,
  path: string,
): Promise<Record<string, unknown> | null> {
  const file = await h.get(path);
  if (!file) return null;
  const bytes = await readAtMost(await file.open(), DOC_BYTES, path);
  try {
    const doc = JSON.parse(bytes.toString('utf8')) as unknown;
    if (doc && typeof doc === 'object' && !Array.isArray(doc)) return doc as Record<string, unknown>;
  } catch {
    // below
  }
  throw new UpstreamError(
    `The upstream of '${h.repository.key}' answered ${path} with something other than JSON`,
  );
}

/** The path (below the remote's URL) of an upstream service, from its discovery document. */
export async function servicePath(h: RepositoryHandle, service: Service): Promise<string> {
  const doc = await upstreamJson(h, DISCOVERY);
  const where = doc?.[service];
  if (typeof where !== 'string')
    throw new UpstreamError(`The upstream of '${h.repository.key}' offers no ${service} registry`);
  const url = new URL(where, `${base(h)}${DISCOVERY}`).toString();
  if (!url.startsWith(base(h)))
    throw new UpstreamError(
      `The upstream of '${h.repository.key}' puts its ${service} registry at ${url}, outside the remote's URL`,
    );
  return url.slice(base(h).length).replace(/\/?$/, '/');
}

/** A location an upstream answer gave, resolved against the URL it came from (credentials go only to the upstream's origin). */
export function upstreamUrl(h: RepositoryHandle, relativeTo: string, location: string): string {
  return new URL(location, new URL(relativeTo, base(h))).toString();
}
