import type { PackageMetadata } from '../../formats/sdk/format.ts';
import { NotFoundError } from '../../platform/errors.ts';
import type { Executor } from '../../platform/events/index.ts';

/** A file that is not there because it was archived (issue 21): a not-found that formats pass on to the client. */
export class ExpiredArtifactError extends NotFoundError {}

/** Downloads of a file: how many, the last one (epoch ms, 0: never) and by whom. */
export interface DownloadStatistics {
  downloadCount: number;
  lastDownloaded: number;
  lastDownloadedBy?: string;
}

/** A file of a repository, as an extension hears of it. */
export interface StoredArtifact {
  repositoryId: string;
  repositoryKey: string;
  /** the repository's package type */
  packageType: string;
  path: string;
  sha256: string;
  size: number;
}

/**
 * What a higher module (the packages index; later scanning, webhooks) does when artifacts change:
 * registered into the repositories module at boot (`ArtifactExtensionPoint.register`), so that
 * repositories never imports it (the module graph stays acyclic). Each call is optional.
 */
export interface ArtifactExtension {
  /** Names the extension; a second registration under the same id is refused at boot. */
  readonly id: string;
  /**
   * Before a file is stored, outside the storing transaction (the blob is in the store, its row not
   * yet): the place to read the bytes (an archive's entries). Must not throw for unreadable content.
   */
  beforeStore?(file: StoredArtifact): Promise<void>;
  /**
   * In the transaction that stores the file (deploy, remote cache, copy or move target), after its
   * format extracted `metadata` (null: none or unreadable). A throw aborts the store.
   */
  stored?(tx: Executor, file: StoredArtifact, metadata: PackageMetadata | null): Promise<void>;
  /**
   * In the transaction that removes these paths of a repository (delete, move source) or replaces
   * them (a new file at a stored path is removed, then stored, in one transaction).
   */
  removed?(tx: Executor, repositoryId: string, paths: string[]): Promise<void>;
  /** A client (`by`: its user name) downloaded the whole file (called on the serving path: must neither wait nor throw). */
  downloaded?(repositoryId: string, path: string, by?: string): void;
  /**
   * A read found nothing at `path` of a local repository: the message the client gets instead of a plain
   * not-found (issue 21: an archived file's 'Cannot download expired artifact'), or null.
   */
  missing?(repositoryId: string, path: string): Promise<string | null>;
  /** A file's download statistics (Artifactory's `?stats`), null when the extension keeps none. */
  stats?(repositoryId: string, path: string): Promise<DownloadStatistics | null>;
  /** Before a stored file is served (any client, any format): throws a ForbiddenError to refuse it (a policy blocks it). */
  beforeDownload?(file: { repositoryId: string; path: string; sha256: string }): Promise<void>;
  /**
   * A remote's file fetched for a download must be cached whole and pass `beforeDownload` before any
   * byte goes out (a policy blocks files not yet scanned), rather than stream through as it is cached.
   */
  holdsUpstreamFiles?(repositoryKey: string): Promise<boolean>;
}

/**
 * The extension point of the artifact lifecycle (Backstage's pattern): one per server, filled at boot
 * and called by the repositories services in the order extensions were registered.
 */
export class ArtifactExtensionPoint {
  private readonly extensions: ArtifactExtension[] = [];

  register(extension: ArtifactExtension): void {
    if (this.extensions.some((e) => e.id === extension.id))
      throw new Error(`An artifact extension "${extension.id}" is already registered`);
    this.extensions.push(extension);
  }

  async beforeStore(file: StoredArtifact): Promise<void> {
    for (const e of this.extensions) await e.beforeStore?.(file);
  }

  async stored(tx: Executor, file: StoredArtifact, metadata: PackageMetadata | null): Promise<void> {
    for (const e of this.extensions) await e.stored?.(tx, file, metadata);
  }

  async removed(tx: Executor, repositoryId: string, paths: string[]): Promise<void> {
    for (const e of this.extensions) await e.removed?.(tx, repositoryId, paths);
  }

  downloaded(repositoryId: string, path: string, by?: string): void {
    for (const e of this.extensions) e.downloaded?.(repositoryId, path, by);
  }

  async missing(repositoryId: string, path: string): Promise<string | null> {
    for (const e of this.extensions) {
      const message = await e.missing?.(repositoryId, path);
      if (message) throw new ExpiredArtifactError(message);
    }
    return null;
  }

  async stats(repositoryId: string, path: string): Promise<DownloadStatistics> {
    for (const e of this.extensions) {
      const found = await e.stats?.(repositoryId, path);
      if (found) return found;
    }
    return { downloadCount: 0, lastDownloaded: 0 };
  }

  async beforeDownload(file: { repositoryId: string; path: string; sha256: string }): Promise<void> {
    for (const e of this.extensions) await e.beforeDownload?.(file);
  }

  async holdsUpstreamFiles(repositoryKey: string): Promise<boolean> {
    for (const e of this.extensions) if (await e.holdsUpstreamFiles?.(repositoryKey)) return true;
    return false;
  }
}
