/** Where an S3-compatible blob store lives, parsed from `GRANARY_BLOBSTORE_URL`. */
export interface S3Location {
  bucket: string;
  /** e.g. `http://127.0.0.1:9000`; absent means AWS itself */
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  /** '' or a key prefix ending in `/` (`some/prefix/`) */
  prefix: string;
}

const SETTING = 'GRANARY_BLOBSTORE_URL';
const FORM =
  's3://bucket?endpoint=http://host:port&region=us-east-1[&forcePathStyle=true][&prefix=some/prefix]';
const KNOWN_PARAMETERS = new Set(['endpoint', 'region', 'forcePathStyle', 'prefix']);
const BUCKET_PATTERN = /^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$/;
const REGION_PATTERN = /^[a-z0-9-]+$/;
const PREFIX_SEGMENT_PATTERN = /^[A-Za-z0-9._-]+$/;

function invalid(reason: string): Error {
  return new Error(`${SETTING} is invalid: ${reason} (expected ${FORM})`);
}

function parseEndpoint(value: string): string {
  let endpoint: URL;
  try {
    endpoint = new URL(value);
  } catch {
    throw invalid('endpoint is not a URL');
  }
  if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') {
    throw invalid('endpoint must be an http:// or https:// URL');
  }
  if (endpoint.username || endpoint.password) {
    throw invalid('endpoint must not carry credentials (use the AWS environment variables)');
  }
  if (endpoint.search || endpoint.hash) throw invalid('endpoint must not have a query or fragment');
  return endpoint.href.replace(/\/$/, '');
}

function parsePrefix(value: string): string {
  const trimmed = value.replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return '';
  const segments = trimmed.split('/');
  for (const segment of segments) {
    if (!PREFIX_SEGMENT_PATTERN.test(segment) || segment === '.' || segment === '..') {
      throw invalid(`prefix segment ${JSON.stringify(segment)} is not allowed`);
    }
  }
  return `${segments.join('/')}/`;
}

function parseBoolean(name: string, value: string): boolean {
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw invalid(`${name} must be true or false`);
}

/**
 * Parses `s3://bucket?endpoint=…&region=…[&forcePathStyle=true][&prefix=…]`. Credentials come from the
 * SDK's default chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, profiles, instance roles), never the URL.
 * Path-style addressing defaults to on when a custom endpoint is given (MinIO, Ceph, …), off for AWS.
 */
export function parseBlobStoreUrl(value: string, env: NodeJS.ProcessEnv = process.env): S3Location {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw invalid('not a URL');
  }
  if (url.protocol !== 's3:') throw invalid(`unsupported scheme ${JSON.stringify(url.protocol)}`);
  if (url.username || url.password) {
    throw invalid('credentials do not belong in the URL (use the AWS environment variables)');
  }
  if (url.port) throw invalid('the bucket must not have a port (put the port in endpoint=)');
  if (url.pathname !== '' && url.pathname !== '/') throw invalid('no path after the bucket (use prefix=)');
  if (url.hash) throw invalid('no fragment allowed');
  const bucket = url.hostname;
  if (!BUCKET_PATTERN.test(bucket)) throw invalid(`bucket name ${JSON.stringify(bucket)} is not valid`);

  const params = new Map<string, string>();
  for (const [name, paramValue] of url.searchParams) {
    if (!KNOWN_PARAMETERS.has(name)) throw invalid(`unknown parameter ${JSON.stringify(name)}`);
    if (params.has(name)) throw invalid(`parameter ${name} given twice`);
    params.set(name, paramValue);
  }

  const endpointParam = params.get('endpoint');
  const endpoint = endpointParam === undefined ? undefined : parseEndpoint(endpointParam);
  const region = params.get('region') || env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1';
  if (!REGION_PATTERN.test(region)) throw invalid(`region ${JSON.stringify(region)} is not valid`);
  const forcePathStyleParam = params.get('forcePathStyle');
  const forcePathStyle =
    forcePathStyleParam === undefined
      ? endpoint !== undefined
      : parseBoolean('forcePathStyle', forcePathStyleParam);
  const prefix = parsePrefix(params.get('prefix') ?? '');

  return { bucket, ...(endpoint === undefined ? {} : { endpoint }), region, forcePathStyle, prefix };
}
