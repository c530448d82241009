import { buffer } from 'node:stream/consumers';
import type { Logger } from 'pino';
import type { RepositoryHandle } from '../sdk/format.ts';
import { MAX_MANIFEST_BYTES, sha256Hex, UPLOADS } from './oci.ts';
import { looksLikeManifest } from './store.ts';

export interface GcOptions {
  /** blobs younger than this are kept whatever references them (a push in progress uploads layers before its manifest) */
  graceMs: number;
  /** report what would be removed, remove nothing */
  dryRun: boolean;
  /** `{repoKey}/{image}` with a push in progress: nothing of theirs is removed */
  busy?: Set<string>;
  now?: number;
  log: Logger;
}

export interface GcReport {
  dryRun: boolean;
  repositories: number;
  images: number;
  blobsScanned: number;
  /** blobs no manifest references, old enough to go */
  removable: number;
  removed: number;
  bytes: number;
  /** `{repoKey}/{path}` of the removable blobs (first 1,000) */
  paths: string[];
}

const BLOB = new RegExp(`^(.+)/${UPLOADS}/sha256__([a-f0-9]{64})$`);
const TAG_FILE = /^(.+)\/([^/]+)\/(manifest\.json|list\.manifest\.json)$/;

/** The digests (hex) a manifest's bytes reference: config, layers, child manifests. */
function referencesOf(bytes: Buffer): string[] {
  try {
    const doc = JSON.parse(bytes.toString('utf8')) as {
      config?: { digest?: string };
      layers?: { digest?: string }[];
      manifests?: { digest?: string }[];
    };
    return [doc.config, ...(doc.layers ?? []), ...(doc.manifests ?? [])]
      .map((d) => (d?.digest ? sha256Hex(d.digest) : null))
      .filter((h): h is string => !!h);
  } catch {
    return [];
  }
}

/**
 * Garbage collection: in each repository, the blobs under `{image}/_uploads/` that no manifest of
 * the image references (tagged or pushed by digest) and that are older than the grace period are
 * removed (their bytes go when no artifact anywhere holds them). Manifests themselves are kept.
 */
export async function collectGarbage(contexts: RepositoryHandle[], opts: GcOptions): Promise<GcReport> {
  const now = opts.now ?? Date.now();
  const report: GcReport = {
    dryRun: opts.dryRun,
    repositories: 0,
    images: 0,
    blobsScanned: 0,
    removable: 0,
    removed: 0,
    bytes: 0,
    paths: [],
  };
  opts.log.info({ repositories: contexts.length, dryRun: opts.dryRun }, 'oci gc: started');
  for (const ctx of contexts) {
    if (ctx.repository.rclass === 'virtual') continue;
    report.repositories += 1;
    const files = await ctx.listFiles('');
    const referenced = new Map<string, Set<string>>();
    const blobs: { image: string; hex: string; file: (typeof files)[number] }[] = [];
    const refs = (image: string) => {
      const set = referenced.get(image) ?? new Set<string>();
      referenced.set(image, set);
      return set;
    };
    for (const file of files) {
      const blob = BLOB.exec(file.path);
      const tag = TAG_FILE.exec(file.path);
      const image = blob?.[1] ?? (tag && tag[2] !== UPLOADS ? tag[1] : undefined);
      if (!image) continue;
      if (tag) refs(image).add(file.sha256);
      if (file.size <= MAX_MANIFEST_BYTES) {
        const bytes = await buffer(await file.open());
        if (looksLikeManifest(bytes)) {
          for (const h of referencesOf(bytes)) refs(image).add(h);
          if (blob) refs(image).add(blob[2]!);
          continue;
        }
      }
      if (blob) blobs.push({ image, hex: blob[2]!, file });
    }
    report.images += new Set(blobs.map((b) => b.image).concat([...referenced.keys()])).size;
    report.blobsScanned += blobs.length;
    let removedHere = 0;
    for (const { image, hex, file } of blobs) {
      if (referenced.get(image)?.has(hex)) continue;
      if (opts.busy?.has(`${ctx.repository.key}/${image}`)) continue;
      if (now - file.createdAt.getTime() < opts.graceMs) continue;
      report.removable += 1;
      report.bytes += file.size;
      if (report.paths.length < 1000) report.paths.push(`${ctx.repository.key}/${file.path}`);
      if (opts.dryRun) continue;
      try {
        await ctx.delete(file.path, { permanent: true });
        report.removed += 1;
        removedHere += 1;
      } catch (err) {
        opts.log.warn(
          { repo: ctx.repository.key, path: file.path, err: (err as Error).message },
          'oci gc: not removed',
        );
      }
    }
    opts.log.info(
      { repo: ctx.repository.key, blobs: blobs.length, removed: removedHere, dryRun: opts.dryRun },
      'oci gc: repository done',
    );
  }
  opts.log.info({ ...report, paths: undefined }, 'oci gc: finished');
  return report;
}
