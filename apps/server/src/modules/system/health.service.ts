import type { StorageCheck, StorageHealth } from '../../platform/blobs/index.ts';
import { type Db, pingDatabase } from '../../platform/db/index.ts';

/** A readiness check waits at most this long for the database, whatever GRANARY_DATABASE_TIMEOUT_MS says. */
const READINESS_TIMEOUT_MS = 3000;
/** How long a database check's answer is reused. */
const FRESH_MS = 1000;

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
  private last: { at: number; check: DatabaseCheck } | undefined;

  constructor(
    private readonly db: Db,
    private readonly databaseTimeoutMs: number,
    readonly storage: StorageHealth,
  ) {}

  /** The last healthy answer while it is younger than FRESH_MS (a probe answers it without waiting). */
  freshDatabase(): DatabaseCheck | undefined {
    return this.last?.check.healthy && Date.now() - this.last.at < FRESH_MS ? this.last.check : undefined;
  }

  database(): Promise<DatabaseCheck> {
    // A load balancer probing every node many times a second costs one query a second: a healthy
    // answer younger than FRESH_MS is given again (an unhealthy one is checked anew each time).
    const fresh = this.freshDatabase();
    if (fresh) return Promise.resolve(fresh);
    this.pending ??= this.checkDatabase()
      .then((check) => {
        this.last = { at: Date.now(), check };
        return check;
      })
      .finally(() => {
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
