import type * as OpenPgp from 'openpgp';

export type { OpenPgp };

let loading: Promise<typeof OpenPgp> | undefined;

/**
 * `openpgp`, loaded the first time something signs or reads a key rather than at start: 2.3 MB of
 * source and its tables stay resident once loaded, and most servers never sign (issue 24, idle memory).
 */
export function loadOpenpgp(): Promise<typeof OpenPgp> {
  loading ??= import('openpgp');
  return loading;
}
