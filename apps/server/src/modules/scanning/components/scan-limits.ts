import type { ArchiveLimits } from '../../../platform/archives/bounded-archive.ts';

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

/**
 * How much of an artifact a scan reads (issue 16 "Scanning": bounded reads — sizes, entry counts,
 * ratios). Past one of them the scan stops with a ScanFailedError: the pipeline records 'scan failed'.
 */
export interface ScanLimits {
  /** a package archive (npm tarball, wheel, sdist, jar): its entries, inflated bytes and ratio */
  package: ArchiveLimits;
  /** a zip (wheel, jar) is read into memory to reach its central directory: its largest size */
  zipBytes: number;
  /** one image layer, streamed (never buffered whole) */
  layer: ArchiveLimits;
  /** layers of one image */
  layers: number;
  /** a jar inside an image layer is read (for its pom.properties) only up to this size */
  nestedJarBytes: number;
  /** components one artifact may list */
  components: number;
  /** a manifest or image config read whole */
  manifestBytes: number;
}

export const DEFAULT_SCAN_LIMITS: ScanLimits = {
  package: {
    entries: 100_000,
    entryBytes: 16 * MiB,
    totalBytes: 2 * GiB,
    ratio: 100,
    ratioFloor: 16 * MiB,
    entryRatio: 1000,
  },
  zipBytes: 256 * MiB,
  layer: {
    entries: 500_000,
    entryBytes: 32 * MiB,
    totalBytes: 16 * GiB,
    ratio: 100,
    ratioFloor: 64 * MiB,
  },
  layers: 256,
  nestedJarBytes: 16 * MiB,
  components: 100_000,
  manifestBytes: 4 * MiB,
};

/** `limits` with some of them changed (a deeper merge of the archive limits). */
export function scanLimits(overrides: Partial<ScanLimits> = {}): ScanLimits {
  return {
    ...DEFAULT_SCAN_LIMITS,
    ...overrides,
    package: { ...DEFAULT_SCAN_LIMITS.package, ...overrides.package },
    layer: { ...DEFAULT_SCAN_LIMITS.layer, ...overrides.layer },
  };
}

/**
 * A scan that could not finish: the artifact is over a limit (a decompression bomb, a huge entry, too
 * many entries) or unreadable. The pipeline records spec 001 §3's 'scan failed' with `message`.
 */
export class ScanFailedError extends Error {
  readonly code = 'SCAN_FAILED';
  /** true when a limit stopped the scan (a bomb, or simply too big), false for unreadable bytes */
  readonly limit: boolean;
  constructor(message: string, opts: { cause?: unknown; limit?: boolean } = {}) {
    super(message, { cause: opts.cause });
    this.name = 'ScanFailedError';
    this.limit = opts.limit ?? false;
  }
}
