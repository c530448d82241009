import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chunked,
  describeBlobStore,
  digests,
  expectBytes,
  readAll,
  tempEntries,
} from './blob-store-suite.ts';
import { createBlobStore } from './index.ts';

const PREFIX = 'granary/blobs/';
const CREDENTIAL_VARIABLES = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_PROFILE',
];

let server: ChildProcess;
let serverDirectory: string;
let endpoint: string;
let admin: S3Client;
let bucketCount = 0;
const savedEnvironment = new Map<string, string | undefined>();

beforeAll(async () => {
  for (const name of CREDENTIAL_VARIABLES) savedEnvironment.set(name, process.env[name]);
  // s3rver's fixed credentials, picked up by the SDK's default chain as in production.
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;

  serverDirectory = await mkdtemp(join(tmpdir(), 'granary-s3rver-'));
  // s3rver runs in a process of its own, so the memory test below measures only our client.
  const code = `const { default: S3rver } = await import(${JSON.stringify(import.meta.resolve('s3rver'))});
const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: process.env.S3RVER_DIR });
const { port } = await server.run();
process.stdout.write(port + '\\n');
process.on('SIGTERM', () => server.close().then(() => process.exit(0)));`;
  server = spawn(process.execPath, ['--input-type=module', '-e', code], {
    env: { ...process.env, S3RVER_DIR: serverDirectory },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [firstLine] = (await once(server.stdout!, 'data')) as [Buffer];
  endpoint = `http://127.0.0.1:${Number.parseInt(firstLine.toString(), 10)}`;
  admin = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
});

afterAll(async () => {
  admin?.destroy();
  if (server && server.exitCode === null) {
    const exited = once(server, 'exit');
    server.kill('SIGTERM');
    await exited;
  }
  if (serverDirectory) await rm(serverDirectory, { recursive: true, force: true });
  for (const [name, value] of savedEnvironment) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** A fresh bucket and home per test. */
async function freshStore(prefix = PREFIX) {
  bucketCount += 1;
  const bucket = `granary-test-${process.pid}-${bucketCount}`;
  await admin.send(new CreateBucketCommand({ Bucket: bucket }));
  const home = await mkdtemp(join(tmpdir(), 'granary-blobs-s3-'));
  const prefixParam = prefix ? `&prefix=${encodeURIComponent(prefix)}` : '';
  const url = `s3://${bucket}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1&forcePathStyle=true${prefixParam}`;
  const store = await createBlobStore({ home, url });
  async function storedObjects(): Promise<string[]> {
    const keys: string[] = [];
    let ContinuationToken: string | undefined;
    do {
      const page = await admin.send(
        new ListObjectsV2Command({ Bucket: bucket, ...(ContinuationToken ? { ContinuationToken } : {}) }),
      );
      for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return keys.sort();
  }
  return {
    bucket,
    store,
    home,
    storedObjects,
    objectName: (layoutPath: string) => prefix + layoutPath,
    cleanup: async () => {
      await store.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}

// The big write goes through a real multipart upload (5 MiB parts, 4 in flight, held in memory by
// lib-storage, plus the SDK's copies while signing and sending): tens of MiB in flight on a loaded
// machine, but never the 128 MiB written — buffering it whole would need at least that much.
describeBlobStore('s3', () => freshStore(), {
  bigWriteBytes: 128 * 1024 * 1024,
  maxGrowthBytes: 64 * 1024 * 1024,
});

describe('s3 blob store specifics', () => {
  it('is chosen by the url and keys objects as prefix + ab/cd/sha256', async () => {
    const f = await freshStore();
    try {
      expect(f.store.kind).toBe('s3');
      const bytes = Buffer.from('hello granary\n');
      const { sha256 } = await f.store.put(chunked(bytes));
      expect(await f.storedObjects()).toEqual([
        `granary/blobs/${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}`,
      ]);
      expect(sha256).toBe(digests(bytes).sha256);
    } finally {
      await f.cleanup();
    }
  });

  it('works without a prefix and lists only blob keys', async () => {
    const f = await freshStore('');
    try {
      const { sha256 } = await f.store.put(chunked(Buffer.from('x')));
      await admin.send(new PutObjectCommand({ Bucket: f.bucket, Key: 'README', Body: 'not a blob' }));
      await admin.send(
        new PutObjectCommand({ Bucket: f.bucket, Key: `zz/00/${'a'.repeat(64)}`, Body: 'stray' }),
      );
      const listed: string[] = [];
      for await (const sha of f.store.list()) listed.push(sha);
      expect(listed).toEqual([sha256]);
      expectBytes(await readAll(await f.store.get(sha256)), Buffer.from('x'));
    } finally {
      await f.cleanup();
    }
  });

  it('purgeTemp survives a server that cannot list or abort multipart uploads', async () => {
    const f = await freshStore();
    try {
      await admin.send(
        new CreateMultipartUploadCommand({ Bucket: f.bucket, Key: `${PREFIX}00/00/${'0'.repeat(64)}` }),
      );
      const { removed } = await f.store.purgeTemp();
      expect(removed).toBe(0);
      expect(await tempEntries(f.home)).toEqual([]);
      const listed: string[] = [];
      for await (const sha of f.store.list()) listed.push(sha);
      expect(listed).toEqual([]);
    } finally {
      await f.cleanup();
    }
  });

  it('fails a put when the bucket does not exist, leaving no temp file', async () => {
    const home = await mkdtemp(join(tmpdir(), 'granary-blobs-s3-'));
    const store = await createBlobStore({
      home,
      url: `s3://no-such-bucket-here?endpoint=${encodeURIComponent(endpoint)}&forcePathStyle=true`,
    });
    try {
      await expect(store.put(chunked(Buffer.from('data')))).rejects.toThrow();
      expect(await tempEntries(home)).toEqual([]);
    } finally {
      await store.close();
      await rm(home, { recursive: true, force: true });
    }
  });
});
