import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { SpooledBytes } from '../sdk/format.ts';
import { OciError } from './oci.ts';

/** One blob upload in progress (spec "Pushing blobs": POST opens it, PATCH appends, PUT closes it). */
export interface UploadSession {
  uuid: string;
  /** `{repoKey}/{image}` the upload was opened for: it is only valid there. */
  name: string;
  /** Who opened it: nobody else may append to or close it. */
  owner: string;
  file: string;
  /** bytes received so far */
  size: number;
  /**
   * A first chunk streamed straight into the blob store (the usual case: skopeo and docker send a
   * blob in one PATCH), so closing the upload costs no second write and one database row: the
   * digest is checked against what the store computed.
   */
  partial?: SpooledBytes;
  startedAt: number;
  touchedAt: number;
}

/** Sessions idle this long are dropped with their bytes. */
const SESSION_IDLE_MS = 24 * 60 * 60 * 1000;

/**
 * Uploads in progress live in a private temp folder, never as artifacts: a partial blob is not
 * visible anywhere until PUT verifies its digest and deploys it. Sessions are per node and do not
 * survive a restart (clients restart the upload, as the spec allows).
 */
export class UploadSessions {
  private readonly sessions = new Map<string, UploadSession>();
  private dir: Promise<string> | undefined;
  private readonly queues = new Map<string, Promise<unknown>>();

  private folder(): Promise<string> {
    this.dir ??= (async () => {
      const base = path.join(os.tmpdir(), 'granary-oci-uploads');
      await mkdir(base, { recursive: true });
      return mkdtemp(path.join(base, `${process.pid}-`));
    })();
    return this.dir;
  }

  async open(name: string, owner: string): Promise<UploadSession> {
    const uuid = randomUUID();
    const file = path.join(await this.folder(), uuid);
    await writeFile(file, '');
    const now = Date.now();
    const session = { uuid, name, owner, file, size: 0, startedAt: now, touchedAt: now };
    this.sessions.set(uuid, session);
    return session;
  }

  /** The session `uuid` opened for `name` by `owner`, else BLOB_UPLOAD_UNKNOWN. */
  get(uuid: string, name: string, owner: string): UploadSession {
    const session = this.sessions.get(uuid);
    if (!session || session.name !== name || session.owner !== owner)
      throw new OciError(404, 'BLOB_UPLOAD_UNKNOWN', `Upload '${uuid}' is unknown to ${name}`);
    return session;
  }

  /** Runs one operation on a session at a time (a PATCH and the closing PUT never interleave). */
  async serial<T>(uuid: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(uuid) ?? Promise.resolve();
    const run = previous.catch(() => {}).then(fn);
    const tail = run.catch(() => {});
    this.queues.set(uuid, tail);
    try {
      return await run;
    } finally {
      if (this.queues.get(uuid) === tail) this.queues.delete(uuid);
    }
  }

  /** Appends a chunk; `start` (from Content-Range) must be where the upload stands. */
  async append(session: UploadSession, body: Readable, start?: number, length?: number): Promise<void> {
    if (start !== undefined && start !== session.size) {
      body.resume();
      throw new OciError(
        416,
        'BLOB_UPLOAD_INVALID',
        `The chunk starts at ${start} but the upload holds ${session.size} bytes`,
        { range: `0-${Math.max(0, session.size - 1)}` },
      );
    }
    try {
      await pipeline(body, createWriteStream(session.file, { flags: 'a' }));
    } finally {
      session.size = (await stat(session.file)).size;
      session.touchedAt = Date.now();
    }
    if (length !== undefined && start !== undefined && session.size !== start + length) {
      await this.truncateTo(session, start);
      throw new OciError(400, 'BLOB_UPLOAD_INVALID', 'The chunk is shorter than its Content-Range says');
    }
  }

  private async truncateTo(session: UploadSession, size: number): Promise<void> {
    await truncate(session.file, size);
    session.size = size;
  }

  read(session: UploadSession): Readable {
    return createReadStream(session.file);
  }

  async close(session: UploadSession): Promise<void> {
    this.sessions.delete(session.uuid);
    await rm(session.file, { force: true });
  }

  /** Drops sessions idle for a day; the number dropped. */
  async expire(now = Date.now()): Promise<number> {
    let dropped = 0;
    for (const session of [...this.sessions.values()])
      if (now - session.touchedAt > SESSION_IDLE_MS) {
        await this.close(session);
        dropped += 1;
      }
    return dropped;
  }

  /** `{repoKey}/{image}` names with an upload in progress (garbage collection leaves them alone). */
  names(): Set<string> {
    return new Set([...this.sessions.values()].map((s) => s.name));
  }

  async dispose(): Promise<void> {
    this.sessions.clear();
    if (this.dir) await rm(await this.dir, { recursive: true, force: true });
  }
}
