import { HOST_NAME_PATTERN, type ReverseProxySettings, reverseProxySettingsSchema } from '@granary/contracts';
import type { Db } from '../../platform/db/index.ts';
import { InvalidError } from '../../platform/errors.ts';
import { readReverseProxyRow, writeReverseProxyRow } from './proxies.queries.ts';

export interface ReverseProxyContext {
  db: Db;
  /** This server as nginx reaches it by default (`http://127.0.0.1:{GRANARY_PORT}`). */
  defaultUpstream: string;
  /** The public host name when GRANARY_BASE_URL names one. */
  defaultServerName?: string;
  /** Docker repository keys, for the subdomain method's servers. */
  dockerRepositories: () => Promise<string[]>;
}

/** A path nginx reads (certificate, key): absolute, nothing that would end or open a directive. */
const CONFIG_PATH = /^\/[A-Za-z0-9._/@+-]*$/;
/** A repository key nginx may see in a server name or a rewrite. */
const NGINX_SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** The stored settings, or the defaults (HTTP on 80, HTTPS on 443 when turned on: spec 001 §9). */
export async function getReverseProxy(ctx: ReverseProxyContext): Promise<ReverseProxySettings> {
  const stored = await readReverseProxyRow(ctx.db);
  const parsed = reverseProxySettingsSchema.safeParse({
    serverName: ctx.defaultServerName ?? 'localhost',
    ...(typeof stored === 'object' && stored !== null ? stored : {}),
  });
  const settings = parsed.success
    ? parsed.data
    : reverseProxySettingsSchema.parse({ serverName: ctx.defaultServerName ?? 'localhost' });
  return { ...settings, upstreamUrl: settings.upstreamUrl || ctx.defaultUpstream };
}

export async function saveReverseProxy(
  ctx: ReverseProxyContext,
  body: unknown,
): Promise<ReverseProxySettings> {
  const parsed = reverseProxySettingsSchema.safeParse(body);
  if (!parsed.success)
    throw new InvalidError(
      parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '),
    );
  const s = parsed.data;
  for (const [field, value] of [
    ['sslCertificate', s.sslCertificate],
    ['sslKey', s.sslKey],
  ] as const)
    if (value && !CONFIG_PATH.test(value))
      throw new InvalidError(`${field}: an absolute file path (letters, digits, . _ / @ + -)`);
  if (s.upstreamUrl) upstreamOf(s.upstreamUrl);
  const seenKeys = new Set<string>();
  const seenPorts = new Set<number>();
  for (const r of s.reverseProxyRepositories) {
    if (!NGINX_SAFE_KEY.test(r.repoKey))
      throw new InvalidError(`reverseProxyRepositories: "${r.repoKey}" is not a repository key`);
    if (seenKeys.has(r.repoKey))
      throw new InvalidError(`reverseProxyRepositories: ${r.repoKey} is listed twice`);
    seenKeys.add(r.repoKey);
    if (s.dockerReverseProxyMethod === 'portPerRepo') {
      if (r.port === undefined)
        throw new InvalidError(`reverseProxyRepositories: ${r.repoKey} needs a port (port per repository)`);
      if (
        seenPorts.has(r.port) ||
        (s.useHttp && r.port === s.httpPort) ||
        (s.useHttps && r.port === s.httpsPort)
      )
        throw new InvalidError(`reverseProxyRepositories: port ${r.port} is used twice`);
      seenPorts.add(r.port);
    }
  }
  if (s.useHttp && s.useHttps && s.httpPort === s.httpsPort)
    throw new InvalidError('httpsPort: HTTP and HTTPS cannot share a port');
  await writeReverseProxyRow(ctx.db, s);
  return getReverseProxy(ctx);
}

function upstreamOf(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidError(`upstreamUrl: "${url}" is not a URL`);
  }
  if (
    (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') ||
    parsed.username ||
    parsed.password ||
    (parsed.pathname !== '/' && parsed.pathname !== '') ||
    parsed.search
  )
    throw new InvalidError('upstreamUrl: http(s)://host:port, nothing after it');
  return parsed;
}

/**
 * A ready nginx configuration for these settings (http-level blocks: put it in
 * /etc/nginx/conf.d/). Uploads stream (no size cap, no request buffering), responses are not
 * buffered, and the X-Forwarded-* headers let Granary build its links (set GRANARY_TRUST_PROXY to
 * nginx's address). Docker: `repoPathPrefix` needs nothing more (images are HOST/{repoKey}/{image});
 * `subDomain` adds a server per docker repository ({repoKey}.{serverName}); `portPerRepo` a
 * server per listed repository on its port.
 */
export async function nginxSnippet(ctx: ReverseProxyContext, s: ReverseProxySettings): Promise<string> {
  const upstream = upstreamOf(s.upstreamUrl || ctx.defaultUpstream);
  const upstreamPort = upstream.port || (upstream.protocol === 'https:' ? '443' : '80');
  const pass = `${upstream.protocol}//granary`;
  const serverName = HOST_NAME_PATTERN.test(s.serverName) ? s.serverName : 'localhost';
  const cert = s.sslCertificate || `/etc/nginx/ssl/${serverName}.crt`;
  const key = s.sslKey || `/etc/nginx/ssl/${serverName}.key`;
  const out: string[] = [];
  const line = (indent: number, text: string) => out.push(`${'    '.repeat(indent)}${text}`);

  const listens = (ports: { http?: number; https?: number }) => {
    if (ports.http !== undefined) line(1, `listen ${ports.http};`);
    if (ports.https !== undefined) line(1, `listen ${ports.https} ssl;`);
    if (ports.https !== undefined) {
      line(1, `ssl_certificate ${cert};`);
      line(1, `ssl_certificate_key ${key};`);
      line(1, 'ssl_protocols TLSv1.2 TLSv1.3;');
      line(1, 'ssl_session_cache shared:granary_ssl:10m;');
    }
  };
  const common = () => {
    line(1, '# Artifacts of any size; uploads and downloads stream through.');
    line(1, 'client_max_body_size 0;');
    line(1, 'proxy_request_buffering off;');
    line(1, 'proxy_buffering off;');
    line(1, 'proxy_http_version 1.1;');
    line(1, 'proxy_read_timeout 900s;');
    line(1, 'proxy_send_timeout 900s;');
    line(1, 'proxy_set_header Connection "";');
    line(1, 'proxy_set_header Host $http_host;');
    line(1, 'proxy_set_header X-Real-IP $remote_addr;');
    line(1, 'proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;');
    line(1, 'proxy_set_header X-Forwarded-Proto $scheme;');
    line(1, 'proxy_set_header X-Forwarded-Host $host;');
    line(1, 'proxy_set_header X-Forwarded-Port $server_port;');
  };
  const dockerRewrite = (repoKey: string) => {
    line(1, '# The registry base and token endpoints stay as they are; image paths gain the repository key.');
    line(1, 'location = /v2/ {');
    line(2, `proxy_pass ${pass};`);
    line(1, '}');
    line(1, 'location = /v2/token {');
    line(2, `proxy_pass ${pass};`);
    line(1, '}');
    line(1, 'location /v2/ {');
    line(2, `rewrite ^/v2/(.*)$ /v2/${repoKey}/$1 break;`);
    line(2, `proxy_pass ${pass};`);
    line(1, '}');
    line(1, 'location / {');
    line(2, `proxy_pass ${pass};`);
    line(1, '}');
  };
  const mainPorts = {
    ...(s.useHttp ? { http: s.httpPort } : {}),
    ...(s.useHttps ? { https: s.httpsPort } : {}),
  };

  line(0, `# Granary behind nginx: ${serverName} (generated; docker method ${s.dockerReverseProxyMethod}).`);
  line(0, '# Put this file in /etc/nginx/conf.d/, check with `nginx -t`, reload nginx, and start');
  line(0, '# Granary with GRANARY_TRUST_PROXY set to the address nginx connects from.');
  line(0, 'upstream granary {');
  line(1, `server ${upstream.hostname}:${upstreamPort};`);
  line(1, 'keepalive 32;');
  line(0, '}');
  line(0, '');
  line(0, 'server {');
  listens(mainPorts);
  line(1, `server_name ${serverName};`);
  common();
  line(1, 'location / {');
  line(2, `proxy_pass ${pass};`);
  line(1, '}');
  line(0, '}');

  if (s.dockerReverseProxyMethod === 'subDomain') {
    const listed = s.reverseProxyRepositories.map((r) => r.repoKey);
    const keys = (listed.length > 0 ? listed : await ctx.dockerRepositories()).filter((k) =>
      HOST_NAME_PATTERN.test(`${k}.${serverName}`),
    );
    if (keys.length === 0) line(0, '# No docker repository to serve on a subdomain yet.');
    for (const repoKey of keys) {
      line(0, '');
      line(0, `# docker: ${repoKey}.${serverName} is the registry of ${repoKey}`);
      line(0, 'server {');
      listens(mainPorts);
      line(1, `server_name ${repoKey.toLowerCase()}.${serverName};`);
      common();
      dockerRewrite(repoKey);
      line(0, '}');
    }
  }
  if (s.dockerReverseProxyMethod === 'portPerRepo') {
    for (const r of s.reverseProxyRepositories) {
      if (r.port === undefined || !NGINX_SAFE_KEY.test(r.repoKey)) continue;
      line(0, '');
      line(0, `# docker: ${serverName}:${r.port} is the registry of ${r.repoKey}`);
      line(0, 'server {');
      listens(s.useHttps ? { https: r.port } : { http: r.port });
      line(1, `server_name ${serverName};`);
      common();
      dockerRewrite(r.repoKey);
      line(0, '}');
    }
  }
  return `${out.join('\n')}\n`;
}
