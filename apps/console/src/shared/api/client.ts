import { CSRF_HEADER } from '@granary/contracts';
import type { z } from 'zod';
import { ApiError, apiErrorFromResponse, ClientErrorCode } from './ApiError.ts';

/** The console's own API; each spec call path is mounted here with its leading slash dropped (DESIGN.md). */
export const CONSOLE_API_PREFIX = '/ui/api/v1/';
/** The server refuses state-changing console calls without this header (a CSRF defence; named in contracts). */
export { CSRF_HEADER };
/** The public REST API (DESIGN.md URL map): the console uses it where the spec names no console call. */
export const REST_API_PREFIX = '/api/';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions<TSchema extends z.ZodType | undefined> {
  method?: HttpMethod;
  /** Sent as JSON. */
  body?: unknown;
  /** Added to the URL; null and undefined values are left out. */
  query?: Readonly<Record<string, QueryValue | readonly QueryValue[]>>;
  /** Validates the answer; without one the body is ignored and the call resolves to undefined. */
  schema?: TSchema;
  signal?: AbortSignal;
  headers?: Readonly<Record<string, string>>;
  /** Where `path` is mounted; the console API unless told (the public REST API is `REST_API_PREFIX`). */
  base?: string;
}

type Result<TSchema> = TSchema extends z.ZodType ? z.output<TSchema> : undefined;

const SAFE_METHODS: ReadonlySet<HttpMethod> = new Set(['GET', 'HEAD']);

/** `system/version` → `/ui/api/v1/system/version`; a spec path written with a leading slash is accepted too. */
export function consoleApiUrl(
  path: string,
  query?: RequestOptions<undefined>['query'],
  base: string = CONSOLE_API_PREFIX,
): string {
  const url = base + path.replace(/^\/+/, '');
  if (!query) return url;
  const params = new URLSearchParams();
  for (const [key, raw] of Object.entries(query)) {
    const values = Array.isArray(raw) ? raw : [raw];
    for (const value of values) {
      if (value !== null && value !== undefined) params.append(key, String(value));
    }
  }
  const search = params.toString();
  if (search === '') return url;
  return `${url}${url.includes('?') ? '&' : '?'}${search}`;
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

/** Calls the console API: JSON in and out, the session cookie, the CSRF header on state-changing calls. */
export async function apiRequest<TSchema extends z.ZodType | undefined = undefined>(
  path: string,
  options: RequestOptions<TSchema> = {},
): Promise<Result<TSchema>> {
  const method = options.method ?? 'GET';
  // X-Requested-With: the server then answers 401 without a Basic challenge, so the browser never
  // pops up its own sign-in dialog over the console.
  const headers: Record<string, string> = {
    Accept: 'application/json',
    'X-Requested-With': 'XMLHttpRequest',
    ...options.headers,
  };
  if (!SAFE_METHODS.has(method)) headers[CSRF_HEADER] = '1';
  const hasBody = options.body !== undefined;
  if (hasBody) headers['Content-Type'] = 'application/json';

  let response: Response;
  try {
    response = await fetch(consoleApiUrl(path, options.query, options.base), {
      method,
      headers,
      body: hasBody ? JSON.stringify(options.body) : undefined,
      credentials: 'same-origin',
      signal: options.signal,
    });
  } catch (error) {
    if (isAbort(error) || options.signal?.aborted) throw error;
    throw new ApiError(
      [{ status: 0, code: ClientErrorCode.Network, message: 'The server could not be reached' }],
      {
        cause: error,
      },
    );
  }

  const bodyText = method === 'HEAD' ? '' : await response.text();
  if (!response.ok) {
    throw apiErrorFromResponse(
      response.status,
      response.statusText,
      response.headers.get('content-type'),
      bodyText,
    );
  }

  const schema = options.schema;
  if (!schema) return undefined as Result<TSchema>;

  const invalid = (detail: string, cause?: unknown) =>
    new ApiError(
      [
        {
          status: response.status,
          code: ClientErrorCode.InvalidResponse,
          message: `Unexpected answer from the server: ${detail}`,
        },
      ],
      { cause },
    );
  let json: unknown;
  try {
    json = bodyText === '' ? undefined : JSON.parse(bodyText);
  } catch (error) {
    throw invalid('the body is not JSON', error);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    throw invalid(`${where}${issue?.message ?? 'invalid shape'}`, parsed.error);
  }
  return parsed.data as Result<TSchema>;
}

type Options<TSchema extends z.ZodType | undefined> = Omit<
  RequestOptions<TSchema>,
  'method' | 'body' | 'schema'
>;

/** Shorthands: `api.get('system/version', versionSchema)`. */
export const api = {
  get: <TSchema extends z.ZodType>(path: string, schema: TSchema, options?: Options<TSchema>) =>
    apiRequest(path, { ...options, method: 'GET', schema }),
  post: <TSchema extends z.ZodType | undefined = undefined>(
    path: string,
    body?: unknown,
    schema?: TSchema,
    options?: Options<TSchema>,
  ) => apiRequest(path, { ...options, method: 'POST', body, schema }),
  put: <TSchema extends z.ZodType | undefined = undefined>(
    path: string,
    body?: unknown,
    schema?: TSchema,
    options?: Options<TSchema>,
  ) => apiRequest(path, { ...options, method: 'PUT', body, schema }),
  patch: <TSchema extends z.ZodType | undefined = undefined>(
    path: string,
    body?: unknown,
    schema?: TSchema,
    options?: Options<TSchema>,
  ) => apiRequest(path, { ...options, method: 'PATCH', body, schema }),
  delete: <TSchema extends z.ZodType | undefined = undefined>(
    path: string,
    schema?: TSchema,
    options?: Options<TSchema>,
  ) => apiRequest(path, { ...options, method: 'DELETE', schema }),
};

const withBase = <T extends { base?: string }>(options: T | undefined): T =>
  ({ ...options, base: REST_API_PREFIX }) as T;

/** The same shorthands for the public REST API (`/api/…`), with the session cookie and the CSRF header. */
export const restApi = {
  get: <TSchema extends z.ZodType>(path: string, schema: TSchema, options?: Options<TSchema>) =>
    api.get(path, schema, withBase(options)),
  post: <TSchema extends z.ZodType | undefined = undefined>(
    path: string,
    body?: unknown,
    schema?: TSchema,
    options?: Options<TSchema>,
  ) => api.post(path, body, schema, withBase(options)),
  put: <TSchema extends z.ZodType | undefined = undefined>(
    path: string,
    body?: unknown,
    schema?: TSchema,
    options?: Options<TSchema>,
  ) => api.put(path, body, schema, withBase(options)),
  delete: <TSchema extends z.ZodType | undefined = undefined>(
    path: string,
    schema?: TSchema,
    options?: Options<TSchema>,
  ) => api.delete(path, schema, withBase(options)),
};
