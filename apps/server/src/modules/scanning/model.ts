/**
 * The scanning module's internal model (issue 16), shared by its three parts:
 * - `advisories/` + `versions/`: the OSV advisory database and each ecosystem's version order;
 * - `components/` + `sbom/`: what an artifact contains (components, licences, dependencies) and the
 *   SBOM documents made of it;
 * - the scan pipeline, policies, watches, violations and the APIs (`scans/`, `policies/`, routes).
 * Each part reaches another only through these types and the functions named here.
 */

/** An OSV ecosystem name as OSV spells it (`npm`, `PyPI`, `Maven`, `Go`, `crates.io`, `RubyGems`, `NuGet`, `Debian`, `Alpine`, …). */
export type Ecosystem = string;

/** A component: one package, at one version, of one ecosystem. */
export interface Component {
  /** package URL (packageurl-js), the component's identity: `pkg:npm/%40scope/name@1.0.0`, `pkg:deb/debian/openssl@3.0.11-1?distro=debian-12` */
  purl: string;
  /** OSV ecosystem of the component (`Debian`, or `Debian:12` when the release is known) */
  ecosystem: Ecosystem;
  /** name as the ecosystem spells it (npm `@scope/name`, Maven `group:artifact`, PyPI as published) */
  name: string;
  version: string;
  /** SPDX identifiers or expressions, normalised; unknown ones kept verbatim */
  licenses: string[];
  /** where it was found, for the impact path (`package.json`, `layer sha256:ab…/var/lib/dpkg/status`) */
  location?: string;
  /**
   * the source package an OS package was built from (dpkg `Source`, apk `o:`), when it differs:
   * Debian and Alpine advisories name source packages
   */
  source?: { name: string; version: string };
}

/** What an artifact contains, as one extraction found it. */
export interface ExtractedArtifact {
  /** the artifact itself as a component (the npm package, the jar's GAV, the image as `pkg:oci/…`) */
  root: Component;
  /** everything found inside or declared by it, without the root; unique by purl */
  components: Component[];
  /** purl → purls it depends on (the root's direct dependencies under the root's purl) */
  dependencies: Record<string, string[]>;
}

/**
 * Reads one stored file and says what it contains; 'not supported' for a file no extractor reads.
 * Bounded (sizes, entry counts, ratios through `platform/archives`); never writes entry names to disk.
 */
export type ExtractResult = { status: 'scanned'; artifact: ExtractedArtifact } | { status: 'not supported' };

/** A vulnerability of one component, from the advisory database. */
export interface Finding {
  /** OSV id */
  advisoryId: string;
  aliases: string[];
  summary: string;
  severity: 'Critical' | 'High' | 'Medium' | 'Low' | 'Unknown';
  cvssScore: number | null;
  cvssVector: string | null;
  /** fixed versions from the matching ranges (the component's ecosystem) */
  fixedVersions: string[];
  references: string[];
  /** the advisory's `modified` */
  modified: string;
}

/** A component as the matcher is asked about it. */
export interface ComponentQuery {
  ecosystem: Ecosystem;
  name: string;
  version: string;
}

/** One vulnerability of one component of a scanned artifact. */
export interface ComponentFinding {
  /** the component's purl */
  purl: string;
  finding: Finding;
}

/**
 * The scan of one stored artifact (a package version's lead file, an image's manifest): what the scan
 * pipeline (`scans/`) stores and hands to the policies (`policies/`) after each scan or re-match.
 */
export interface ScanRecord {
  repositoryId: string;
  repoKey: string;
  packageType: string;
  path: string;
  sha256: string;
  /** spec 001 §3 scan status strings */
  status: 'scan failed' | 'not supported' | 'in progress' | 'not scanned' | 'scanned';
  error: string | null;
  scannedAt: Date | null;
  /** the artifact as a component and what it contains; null until scanned */
  artifact: ExtractedArtifact | null;
  /** vulnerabilities of the root and of every component */
  findings: ComponentFinding[];
}

/** Called after a scan or a re-match stored its record (policies evaluate watches there). */
export type ScanListener = (scan: ScanRecord) => Promise<void>;
