import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { SpooledBytes } from '../sdk/format.ts';
import { SerialQueue } from '../sdk/helpers.ts';
import { OciError } from './oci.ts';

/** One blob upload in progress (spec "Pushing blobs": POST opens it, PATCH appends, PUT closes it). */
export interface UploadSession {
  uuid: string;
  /** `{repoKey}/{image}` the upload was opened for: it is only valid there. */
  name: string;
  /** Who opened it: nobody else may append to or close it. */
  owner: string;
  /** bytes received so far */
  size: number;
  /**
   * A first chunk streamed straight into the blob store (the usual case: skopeo and docker send a
   * blob in one PATCH), so closing the upload costs no second write and one database row: the
   * digest is checked against what the store computed. Only its digest and size are kept on disk;
   * after a restart the core hands the bytes out again (`RepositoryHandle.respool`).
   */
  partial?: { sha256: string; size: number };
  startedAt: number;
  touchedAt: number;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Uploads in progress, under `$GRANARY_HOME/tmp/oci-uploads/`: a session is `{uuid}.json` (who,
 * where, how far) and, once a second chunk came, `{uuid}.data` (the bytes so far). A partial blob is
 * never visible anywhere until PUT verifies its digest and deploys it. Sessions survive a restart
 * (a client continues with the upload URL it has, as the spec allows) and go when idle longer than
 * the expiry (`oci.uploads-expire`), their bytes with them.
 */
export class UploadSessions {
  private readonly sessions = new Map<string, UploadSession>();
  /** Live handles of partial blobs `spool` gave this process (after a restart they are asked for again). */
  private readonly spooled = new Map<string, SpooledBytes>();
  /** Operations on one session, one at a time. */
  private readonly queue = new SerialQueue();
  private loaded: Promise<void> | undefined;

  constructor(
    readonly dir: string,
    private readonly expiryMs: number,
    /** The clock (epoch ms) idle time is measured on; tests move it instead of sleeping. */
    private readonly now: () => number = Date.now,
  ) {}

  /** How long a session's first chunk is held in the blob store (issue 21): its idle expiry and an hour. */
  get holdSecs(): number {
    return Math.ceil(this.expiryMs / 1000) + 3600;
  }

  private jsonPath = (uuid: string) => path.join(this.dir, `${uuid}.json`);
  dataPath = (uuid: string) => path.join(this.dir, `${uuid}.data`);

  /** Reads the sessions a previous run left (once); unreadable ones and stray files are removed. */
  load(): Promise<void> {
    this.loaded ??= (async () => {
      await mkdir(this.dir, { recursive: true });
      const names = await readdir(this.dir);
      const kept = new Set<string>();
      for (const name of names) {
        const uuid = name.slice(0, -'.json'.length);
        if (!name.endsWith('.json') || !UUID_RE.test(uuid)) continue;
        try {
          const record = JSON.parse(await readFile(path.join(this.dir, name), 'utf8')) as UploadSession;
          if (record.uuid !== uuid || typeof record.name !== 'string' || typeof record.owner !== 'string')
            throw new Error('not a session');
          const session: UploadSession = {
            uuid,
            name: record.name,
            owner: record.owner,
            size: 0,
            startedAt: Number(record.startedAt) || this.now(),
            touchedAt: Number(record.touchedAt) || this.now(),
          };
          if (record.partial && /^[0-9a-f]{64}$/.test(record.partial.sha256)) {
            session.partial = { sha256: record.partial.sha256, size: Number(record.partial.size) || 0 };
            session.size = session.partial.size;
            // Bytes copied out of the partial blob by a chunk that never finished: the blob is the truth.
            await rm(this.dataPath(uuid), { force: true });
          } else {
            session.size = (await stat(this.dataPath(uuid)).catch(() => null))?.size ?? 0;
          }
          this.sessions.set(uuid, session);
          kept.add(uuid);
        } catch {
          // unreadable: dropped below with its bytes
        }
      }
      for (const name of names) {
        const uuid = name.replace(/\.(json|data|json\.tmp)$/, '');
        if (!kept.has(uuid)) await rm(path.join(this.dir, name), { recursive: true, force: true });
      }
    })();
    return this.loaded;
  }

  private async save(session: UploadSession): Promise<void> {
    const record: UploadSession = { ...session };
    const temp = `${this.jsonPath(session.uuid)}.tmp`;
    await writeFile(temp, JSON.stringify(record));
    await rename(temp, this.jsonPath(session.uuid));
  }

  async open(name: string, owner: string): Promise<UploadSession> {
    await this.load();
    const now = this.now();
    const session: UploadSession = {
      uuid: randomUUID(),
      name,
      owner,
      size: 0,
      startedAt: now,
      touchedAt: now,
    };
    await this.save(session);
    this.sessions.set(session.uuid, session);
    return session;
  }

  /** The session `uuid` opened for `name` by `owner`, else BLOB_UPLOAD_UNKNOWN. */
  async get(uuid: string, name: string, owner: string): Promise<UploadSession> {
    await this.load();
    const session = this.sessions.get(uuid);
    if (!session || session.name !== name || session.owner !== owner)
      throw new OciError(404, 'BLOB_UPLOAD_UNKNOWN', `Upload '${uuid}' is unknown to ${name}`);
    return session;
  }

  /** Runs one operation on a session at a time (a PATCH and the closing PUT never interleave). */
  serial<T>(uuid: string, fn: () => Promise<T>): Promise<T> {
    return this.queue.run(uuid, fn);
  }

  /** A first chunk the core spooled into the blob store: the session's bytes so far. */
  async setPartial(session: UploadSession, spooled: SpooledBytes): Promise<void> {
    session.partial = { sha256: spooled.sha256, size: spooled.size };
    session.size = spooled.size;
    session.touchedAt = this.now();
    this.spooled.set(session.uuid, spooled);
    await this.save(session);
  }

  /** The live handle of the session's partial blob, when this process spooled it. */
  spooledOf(session: UploadSession): SpooledBytes | undefined {
    return this.spooled.get(session.uuid);
  }

  /** The partial blob's bytes become the start of `{uuid}.data` (a second chunk is coming). */
  async materialize(session: UploadSession, bytes: Readable): Promise<void> {
    const data = this.dataPath(session.uuid);
    await rm(data, { force: true });
    await pipeline(bytes, createWriteStream(data, { flags: 'wx' }));
    session.partial = undefined;
    session.size = (await stat(data)).size;
    await this.spooled.get(session.uuid)?.release();
    this.spooled.delete(session.uuid);
    await this.save(session);
  }

  /**
   * Appends a chunk; `start` (from Content-Range) must be where the upload stands. A chunk that
   * fails (cut, short, a client gone) leaves nothing: the data goes back to where it stood.
   */
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
    const data = this.dataPath(session.uuid);
    const before = session.size;
    try {
      await pipeline(body, createWriteStream(data, { flags: 'a' }));
      const size = (await stat(data)).size;
      if (length !== undefined && start !== undefined && size !== start + length)
        throw new OciError(400, 'BLOB_UPLOAD_INVALID', 'The chunk is shorter than its Content-Range says');
      session.size = size;
    } catch (err) {
      await truncate(data, before).catch(() => {});
      throw err;
    } finally {
      session.touchedAt = this.now();
      await this.save(session).catch(() => {});
    }
  }

  read(session: UploadSession): Readable {
    return createReadStream(this.dataPath(session.uuid));
  }

  async close(session: UploadSession): Promise<void> {
    this.sessions.delete(session.uuid);
    // issue 21: the first chunk's hold goes; deployed, its artifact holds the bytes, else the GC takes them
    await this.spooled
      .get(session.uuid)
      ?.release()
      .catch(() => {});
    this.spooled.delete(session.uuid);
    await rm(this.jsonPath(session.uuid), { force: true });
    await rm(this.dataPath(session.uuid), { force: true });
  }

  /** Drops sessions idle longer than the expiry, with their bytes; the number dropped. */
  async expire(now = this.now()): Promise<{ expired: number; bytes: number }> {
    await this.load();
    let expired = 0;
    let bytes = 0;
    for (const session of [...this.sessions.values()])
      if (now - session.touchedAt > this.expiryMs && !this.queue.busy(session.uuid)) {
        bytes += session.partial ? 0 : session.size;
        await this.close(session);
        expired += 1;
      }
    return { expired, bytes };
  }

  /** `{repoKey}/{image}` names with an upload in progress (garbage collection leaves them alone). */
  names(): Set<string> {
    return new Set([...this.sessions.values()].map((s) => s.name));
  }
}
