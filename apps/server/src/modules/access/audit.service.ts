import { desc } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Db } from '../../platform/db/index.ts';
import { auditEvents } from './access.schema.ts';
import type { RequestMeta } from './context.ts';

export type AuditResult = 'success' | 'failure' | 'denied';

export interface AuditEntry {
  action: string;
  result: AuditResult;
  actor?: string | null;
  target?: string | null;
  ip?: string | null;
  requestId?: string | null;
  details?: Record<string, unknown>;
}

/** Who made a request and from where, as an audit entry records it (spread into `Audit.record`). */
export function auditOf(meta: RequestMeta) {
  return { actor: meta.principal?.name ?? null, ip: meta.ip, requestId: meta.requestId };
}

/** Every security event goes to security.log and to the audit table: who, what, from where, result, request id. */
export class Audit {
  constructor(
    private readonly db: Db,
    private readonly log: Logger,
  ) {}

  async record(entry: AuditEntry): Promise<void> {
    const line = {
      event: entry.action,
      result: entry.result,
      actor: entry.actor ?? null,
      target: entry.target ?? null,
      ip: entry.ip ?? null,
      reqId: entry.requestId ?? null,
      ...entry.details,
    };
    if (entry.result === 'success') this.log.info(line);
    else this.log.warn(line);
    await this.db.insert(auditEvents).values({
      action: entry.action,
      result: entry.result,
      actor: entry.actor ?? null,
      target: entry.target ?? null,
      ip: entry.ip ?? null,
      requestId: entry.requestId ?? null,
      details: entry.details ?? null,
    });
  }

  async recent(limit: number) {
    return this.db.select().from(auditEvents).orderBy(desc(auditEvents.id)).limit(limit);
  }
}
