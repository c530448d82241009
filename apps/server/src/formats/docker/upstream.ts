import type { RepositoryHandle, UpstreamResponse } from '../sdk/format.ts';
import { OciError } from './oci.ts';

/** Bearer tokens an upstream registry handed out, per remote repository and scope, until they expire. */
const tokens = new Map<string, { token: string; until: number }>();
const MAX_TOKENS = 1000;

/**
 * Where a remote repository's images are on its upstream: the URL's origin is the registry, and a
 * path on it is a name prefix (`http://other:8080/docker-local` → `/v2/docker-local/{image}/…`, the
 * way another Granary or Artifactory addresses repositories). Docker Hub's single-segment names are
 * `library/…`.
 */
export function upstreamName(remoteUrl: string, image: string): { origin: string; name: string } {
  const url = new URL(remoteUrl);
  const prefix = url.pathname
    .replace(/^\/+|\/+$/g, '')
    .replace(/(^|\/)v2$/, '')
    .replace(/\/+$/, '');
  const hub = /(^|\.)docker\.io$/.test(url.hostname);
  const name = prefix ? `${prefix}/${image}` : hub && !image.includes('/') ? `library/${image}` : image;
  return { origin: url.origin, name };
}

/** `Bearer realm="…",service="…",scope="…"` → its parameters. */
export function parseChallenge(header: string | null): Record<string, string> | null {
  if (!header || !/^Bearer\s/i.test(header)) return null;
  const params: Record<string, string> = {};
  for (const m of header.slice(7).matchAll(/([a-zA-Z_]+)="([^"]*)"/g)) params[m[1]!.toLowerCase()] = m[2]!;
  return params.realm ? params : null;
}

async function fetchToken(ctx: RepositoryHandle, challenge: Record<string, string>, scope: string) {
  const url = new URL(challenge.realm!);
  if (challenge.service) url.searchParams.set('service', challenge.service);
  url.searchParams.set('scope', challenge.scope ?? scope);
  const res = await ctx.upstream(url.toString(), { maxBytes: 1024 * 1024 });
  if (res.status !== 200) return null;
  try {
    const doc = JSON.parse(res.body.toString('utf8')) as {
      token?: string;
      access_token?: string;
      expires_in?: number;
    };
    const token = doc.token || doc.access_token;
    if (!token) return null;
    return { token, until: Date.now() + Math.max(30, (doc.expires_in ?? 60) - 10) * 1000 };
  } catch {
    return null;
  }
}

/**
 * GET `/v2/{name}/{tail}` on a remote repository's upstream registry. A 401 with a Bearer challenge
 * is answered the way docker does: ask the challenge's realm for a pull token (with the remote's
 * credentials when the realm is on the upstream's origin) and retry with it.
 */
export async function upstreamGet(
  ctx: RepositoryHandle,
  image: string,
  tail: string,
  opts: { accept?: string; maxBytes?: number; stream?: boolean } = {},
): Promise<UpstreamResponse> {
  const remoteUrl = ctx.repository.remote?.url;
  if (!remoteUrl) throw new OciError(500, 'UNKNOWN', `'${ctx.repository.key}' is not a remote repository`);
  const { origin, name } = upstreamName(remoteUrl, image);
  const url = `${origin}/v2/${name}/${tail}`;
  const scope = `repository:${name}:pull`;
  const key = `${ctx.repository.key}\u0000${scope}`;
  const headers: Record<string, string> = {};
  if (opts.accept) headers.accept = opts.accept;
  const held = tokens.get(key);
  if (held && held.until > Date.now()) headers.authorization = `Bearer ${held.token}`;
  let res = await ctx.upstream(url, { headers, maxBytes: opts.maxBytes, stream: opts.stream });
  if (res.status === 401) {
    const challenge = parseChallenge(res.headers.get('www-authenticate'));
    const fresh = challenge && (await fetchToken(ctx, challenge, scope));
    if (fresh) {
      res.stream?.destroy();
      if (tokens.size >= MAX_TOKENS) tokens.clear();
      tokens.set(key, fresh);
      res = await ctx.upstream(url, {
        headers: { ...headers, authorization: `Bearer ${fresh.token}` },
        maxBytes: opts.maxBytes,
        stream: opts.stream,
      });
    }
  }
  return res;
}
