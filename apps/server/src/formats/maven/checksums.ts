import { createHash } from 'node:crypto';
import type { FormatFile } from '../sdk/format.ts';
import type { ChecksumAlgorithm } from './layout.ts';

/**
 * Checksums of stored files for the `.sha1`/`.md5`/`.sha256`/`.sha512` paths. The core stores SHA-256,
 * SHA-1 and MD5 with every file; SHA-512 is computed from the bytes on first request and remembered by
 * content (a blob's checksums never change).
 */
const sha512ByContent = new Map<string, string>();
const MAX_REMEMBERED = 20_000;

export async function checksumOfFile(file: FormatFile, algorithm: ChecksumAlgorithm): Promise<string> {
  if (algorithm === 'sha1') return file.sha1;
  if (algorithm === 'md5') return file.md5;
  if (algorithm === 'sha256') return file.sha256;
  const known = sha512ByContent.get(file.sha256);
  if (known) return known;
  const hash = createHash('sha512');
  for await (const chunk of await file.open()) hash.update(chunk as Buffer);
  const digest = hash.digest('hex');
  if (sha512ByContent.size >= MAX_REMEMBERED) sha512ByContent.clear();
  sha512ByContent.set(file.sha256, digest);
  return digest;
}

export const checksumOfBytes = (bytes: Buffer, algorithm: ChecksumAlgorithm) =>
  createHash(algorithm).update(bytes).digest('hex');
