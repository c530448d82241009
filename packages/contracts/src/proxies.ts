import { z } from 'zod';

/**
 * Outbound forward proxies and the reverse proxy (web server) settings (issue 15; spec 000 §2
 * `proxies/configuration`, spec 001 §3 "Other", §9 default ports).
 */

/** A proxy key: a letter first, then letters, digits, `.`, `_` or `-` (at most 64). */
export const PROXY_KEY_PATTERN = /^[A-Za-z][A-Za-z0-9._-]{0,63}$/;
const HOST_LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/** A DNS host name (labels of letters, digits and inner hyphens), without a scheme or port. */
export const HOST_NAME_PATTERN = new RegExp(`^(?=.{1,253}$)${HOST_LABEL}(?:\\.${HOST_LABEL})*$`);
const IPV6 = /^[0-9A-Fa-f:.]+$/;

export const PROXY_MESSAGES = {
  key: 'A proxy key starts with a letter, then letters, digits, ".", "_" or "-"',
  host: 'Enter a host name or an IP address (no scheme, no port)',
  port: 'A port is a number from 1 to 65535',
  serverName: 'Enter a host name, e.g. repo.example.com',
  mandatory: 'This field is mandatory',
  duplicate: 'This name already exist',
  noListener: 'Use HTTP, HTTPS or both',
} as const;

/** A host as a proxy's address: a host name or an IP address. */
export function isProxyHost(value: string): boolean {
  return HOST_NAME_PATTERN.test(value) || (value.includes(':') && IPV6.test(value));
}

const port = z.number().int().min(1, PROXY_MESSAGES.port).max(65535, PROXY_MESSAGES.port);

/** What a client sends to create or replace a proxy (`password`: write-only; absent or `""` keeps the stored one, `null` removes it). */
export const proxyWriteSchema = z.object({
  key: z.string().optional(),
  host: z.string().trim().min(1, PROXY_MESSAGES.mandatory).refine(isProxyHost, PROXY_MESSAGES.host),
  port,
  username: z.string().max(256).optional(),
  password: z.string().max(1024).nullable().optional(),
  /** NTLM fields: stored and shown, not used (NTLM is not supported; Basic credentials are sent). */
  ntHost: z.string().max(256).optional(),
  domain: z.string().max(256).optional(),
  defaultProxy: z.boolean().optional(),
  /** Hosts a redirect may lead to with the request's credentials kept. */
  redirectToHosts: z.array(z.string().trim().min(1).max(253)).max(100).optional(),
});
export type ProxyWrite = z.infer<typeof proxyWriteSchema>;

/** A proxy as every answer shows it: the password never, only whether one is set. */
export const proxySchema = z.object({
  key: z.string(),
  host: z.string(),
  port: z.number(),
  username: z.string(),
  /** Always `""`. */
  password: z.literal(''),
  passwordSet: z.boolean(),
  ntHost: z.string(),
  domain: z.string(),
  defaultProxy: z.boolean(),
  redirectToHosts: z.array(z.string()),
});
export type ProxyInfo = z.infer<typeof proxySchema>;

/** Docker's reverse-proxy method (Artifactory's names): how an image host maps to a repository. */
export const DOCKER_REVERSE_PROXY_METHODS = ['repoPathPrefix', 'subDomain', 'portPerRepo'] as const;
export type DockerReverseProxyMethod = (typeof DOCKER_REVERSE_PROXY_METHODS)[number];

/** Spec 001 §9. */
export const DEFAULT_HTTP_PORT = 80;
export const DEFAULT_HTTPS_PORT = 443;

export const reverseProxyRepositorySchema = z.object({
  repoKey: z.string().min(1),
  /** portPerRepo: the port nginx listens on for this repository. */
  port: port.optional(),
});

export const reverseProxySettingsSchema = z
  .object({
    webServerType: z.literal('nginx').default('nginx'),
    serverName: z
      .string()
      .trim()
      .min(1, PROXY_MESSAGES.mandatory)
      .refine((v) => HOST_NAME_PATTERN.test(v), PROXY_MESSAGES.serverName),
    dockerReverseProxyMethod: z.enum(DOCKER_REVERSE_PROXY_METHODS).default('repoPathPrefix'),
    reverseProxyRepositories: z.array(reverseProxyRepositorySchema).max(500).default([]),
    useHttps: z.boolean().default(false),
    useHttp: z.boolean().default(true),
    httpsPort: port.default(DEFAULT_HTTPS_PORT),
    httpPort: port.default(DEFAULT_HTTP_PORT),
    sslCertificate: z.string().max(1024).default(''),
    sslKey: z.string().max(1024).default(''),
    /** Where nginx sends requests: this server's address as nginx reaches it. */
    upstreamUrl: z.string().max(1024).default(''),
  })
  .refine((v) => v.useHttp || v.useHttps, { message: PROXY_MESSAGES.noListener, path: ['useHttp'] });
export type ReverseProxySettings = z.infer<typeof reverseProxySettingsSchema>;

/** The reverse proxy settings as the server answers them (every field present). */
export const reverseProxyAnswerSchema = z.object({
  webServerType: z.literal('nginx'),
  serverName: z.string(),
  dockerReverseProxyMethod: z.enum(DOCKER_REVERSE_PROXY_METHODS),
  reverseProxyRepositories: z.array(reverseProxyRepositorySchema),
  useHttps: z.boolean(),
  useHttp: z.boolean(),
  httpsPort: z.number(),
  httpPort: z.number(),
  sslCertificate: z.string(),
  sslKey: z.string(),
  upstreamUrl: z.string(),
});
export type ReverseProxySettingsInput = z.input<typeof reverseProxySettingsSchema>;
