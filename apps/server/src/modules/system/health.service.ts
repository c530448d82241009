import type { StorageCheck, StorageHealth } from '../../platform/blobs/index.ts';
import { type Db, pingDatabase } from '../../platform/db/index.ts';

/** A readiness check waits at most this long for the database, whatever GRANARY_DATABASE_TIMEOUT_MS says. */
const READINESS_TIMEOUT_MS = 3000;

export interface DatabaseCheck {
  healthy: boolean;
  message: string;
  latencyMs: number;
}

/**
 * What the health endpoints report (issue 12 §10, §12): whether the database answers (`select 1`
 * within a few seconds; concurrent checks share one query) and whether there is space to store
 * uploads (StorageHealth).
 */
export class HealthChecks {
  private pending: Promise<DatabaseCheck> | undefined;

  constructor(
    private readonly db: Db,
    private readonly databaseTimeoutMs: number,
    readonly storage: StorageHealth,
  ) {}

  database(): Promise<DatabaseCheck> {
    this.pending ??= this.checkDatabase().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async checkDatabase(): Promise<DatabaseCheck> {
    const started = Date.now();
    try {
      await pingDatabase(this.db, Math.min(this.databaseTimeoutMs, READINESS_TIMEOUT_MS));
      return { healthy: true, message: 'OK', latencyMs: Date.now() - started };
    } catch (error) {
      const cause =
        error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      return { healthy: false, message: `Database unavailable: ${cause}`, latencyMs: Date.now() - started };
    }
  }

  storageCheck(): Promise<StorageCheck> {
    return this.storage.check();
  }
}
