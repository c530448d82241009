import type { z } from 'zod';
import { ApiError, apiErrorFromResponse, ClientErrorCode } from './ApiError.ts';

/** The console's own API; each spec call path is mounted here with its leading slash dropped (DESIGN.md). */
export const CONSOLE_API_PREFIX = '/ui/api/v1/';
/** The server refuses state-changing console calls without this header (a CSRF defence). */
export const CSRF_HEADER = 'X-Granary-CSRF';

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
}

type Result<TSchema> = TSchema extends z.ZodType ? z.output<TSchema> : undefined;

const SAFE_METHODS: ReadonlySet<HttpMethod> = new Set(['GET', 'HEAD']);

/** `system/version` → `/ui/api/v1/system/version`; a spec path written with a leading slash is accepted too. */
export function consoleApiUrl(path: string, query?: RequestOptions<undefined>['query']): string {
  const url = CONSOLE_API_PREFIX + path.replace(/^\/+/, '');
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
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  if (!SAFE_METHODS.has(method)) headers[CSRF_HEADER] = '1';
  const hasBody = options.body !== undefined;
  if (hasBody) headers['Content-Type'] = 'application/json';

  let response: Response;
  try {
    response = await fetch(consoleApiUrl(path, options.query), {
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
