import type { Logger } from 'pino';
import type { BlobStore } from '../../platform/blobs/index.ts';
import type { Db } from '../../platform/db/index.ts';
import type { Jobs } from '../../platform/jobs/index.ts';
import type { OutboundClient } from '../../platform/outbound/index.ts';
import type { Authorizer } from '../access/index.ts';
import type { RepositoriesContext } from '../repositories/repositories.api.ts';

/** What the distribution module's services share. */
export interface DistributionContext {
  db: Db;
  blobs: BlobStore;
  outbound: OutboundClient;
  repositories: RepositoriesContext;
  authorizer: Authorizer;
  jobs: Jobs;
  log: Logger;
  now: () => number;
  /** `GRANARY_BASE_URL`, when set: where targets pull from. */
  baseUrl?: string;
  /** Target side: the most bytes per second pulled from a source (0: no cap). */
  pullRateBytesPerSec: number;
  /** The files of a build run (modules/builds, issue 19), for bundles made from builds; absent until wired. */
  buildFiles?: (
    name: string,
    number: string,
  ) => Promise<{ repoKey: string; path: string; sha256: string; size: number }[]>;
}

export function uniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e?.code === '23505' || e?.cause?.code === '23505';
}

/** Sorted keys, no spaces: the exact bytes a bundle's signature covers. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}
