import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  NODE_HEARTBEAT_INTERVAL_MS,
  NODE_OFFLINE_AFTER_MS,
  type NodeStatus,
  OFFLINE_NODE_STATUS,
  ONLINE_NODE_STATUS,
} from '@granary/contracts';
import type { Logger } from 'pino';
import type { Db } from '../../platform/db/index.ts';
import type { Jobs } from '../../platform/jobs/index.ts';
import { listNodes, touchNode, upsertNode } from './system.queries.ts';

/** This node's id: kept in `$GRANARY_HOME/node-id`, so a restarted node keeps its row. */
export function readNodeId(home: string): string {
  const file = path.join(home, 'node-id');
  if (existsSync(file)) {
    const id = readFileSync(file, 'utf8').trim();
    if (id) return id;
  }
  const id = `node-${randomUUID()}`;
  writeFileSync(file, `${id}\n`, { mode: 0o644 });
  return id;
}

/**
 * The nodes sharing this database. This node registers at start and beats every 10 s (a `node` job
 * of platform/jobs); a node silent for 30 s is Offline.
 */
export class NodeRegistry {
  readonly startedAt: Date;
  constructor(
    private readonly db: Db,
    private readonly self: { id: string; url: string; version: string; revision: string },
    private readonly log: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.startedAt = now();
  }

  async start(jobs: Jobs, intervalMs = NODE_HEARTBEAT_INTERVAL_MS): Promise<void> {
    await upsertNode(this.db, { ...this.self, startedAt: this.startedAt, lastHeartbeatAt: this.now() });
    jobs.recurring({
      name: 'system.node-heartbeat',
      scope: 'node',
      intervalMs,
      run: () =>
        this.beat().catch((err) => {
          this.log.warn({ err }, 'node heartbeat failed');
          throw err;
        }),
    });
  }

  beat(): Promise<void> {
    return touchNode(this.db, this.self.id, this.now());
  }

  async list(): Promise<NodeStatus[]> {
    const now = this.now().getTime();
    return (await listNodes(this.db)).map((n) => ({
      node_id: n.id,
      url: n.url,
      status:
        now - n.lastHeartbeatAt.getTime() > NODE_OFFLINE_AFTER_MS ? OFFLINE_NODE_STATUS : ONLINE_NODE_STATUS,
      version: n.version,
      revision: n.revision,
      start_time: n.startedAt.toISOString(),
      last_heartbeat: n.lastHeartbeatAt.toISOString(),
      uptime_seconds: Math.max(0, Math.floor((now - n.startedAt.getTime()) / 1000)),
      current: n.id === this.self.id,
    }));
  }
}
