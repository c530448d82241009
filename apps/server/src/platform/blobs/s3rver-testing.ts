import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';

const CREDENTIAL_VARIABLES = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_PROFILE',
];

/** A throw-away S3-compatible server (s3rver, in a process of its own) on loopback, for tests. */
export interface TestS3 {
  endpoint: string;
  /** A client with s3rver's fixed credentials, to look at or change objects behind a store's back. */
  admin: S3Client;
  /** Creates a bucket and answers a `GRANARY_BLOBSTORE_URL` for it. */
  bucketUrl(prefix?: string): Promise<{ bucket: string; url: string }>;
  stop(): Promise<void>;
}

let buckets = 0;

/**
 * Starts s3rver and points the AWS SDK's default credential chain at its fixed credentials (as
 * production reads the usual AWS variables); `stop` restores the environment.
 */
export async function startTestS3(): Promise<TestS3> {
  const saved = new Map(CREDENTIAL_VARIABLES.map((name) => [name, process.env[name]]));
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
  const dir = await mkdtemp(join(tmpdir(), 'granary-s3rver-'));
  const code = `const { default: S3rver } = await import(${JSON.stringify(import.meta.resolve('s3rver'))});
const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: process.env.S3RVER_DIR });
const { port } = await server.run();
process.stdout.write(port + '\\n');
process.on('SIGTERM', () => server.close().then(() => process.exit(0)));`;
  const child: ChildProcess = spawn(process.execPath, ['--input-type=module', '-e', code], {
    env: { ...process.env, S3RVER_DIR: dir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  const endpoint = `http://127.0.0.1:${Number.parseInt(line.toString(), 10)}`;
  const admin = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  return {
    endpoint,
    admin,
    async bucketUrl(prefix = '') {
      buckets += 1;
      const bucket = `granary-test-${process.pid}-${buckets}`;
      await admin.send(new CreateBucketCommand({ Bucket: bucket }));
      const prefixParam = prefix ? `&prefix=${encodeURIComponent(prefix)}` : '';
      return {
        bucket,
        url: `s3://${bucket}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1&forcePathStyle=true${prefixParam}`,
      };
    },
    async stop() {
      admin.destroy();
      if (child.exitCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
      for (const [name, value] of saved) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    },
  };
}
