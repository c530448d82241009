import { createRequire } from 'node:module';
import type { Component } from '../model.ts';

/** What an SBOM says about its making, besides the artifact. */
export interface SbomMeta {
  /** the document's name (default: the root's name and version) */
  name?: string;
  /** when it was made (default: now) */
  timestamp?: Date;
  /** Granary's version, for `tools` / `creators` */
  toolVersion?: string;
  /** a fixed serial number / namespace id (a UUID; default: a random one) */
  uuid?: string;
  /** the SHA-256 of the stored file the root is */
  sha256?: string;
  /** the server's public base URL, for the SPDX document namespace */
  baseUrl?: string;
}

const require = createRequire(import.meta.url);
/** SPDX licence ids (current and deprecated): a CycloneDX `license.id` must be one. */
export const SPDX_IDS: ReadonlySet<string> = new Set([
  ...(require('spdx-license-ids') as string[]),
  ...(require('spdx-license-ids/deprecated.json') as string[]),
]);

export const displayName = (c: Component) => c.name;
