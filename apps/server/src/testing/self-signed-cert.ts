import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * A self-signed certificate and its key, written by the machine's `openssl` into `dir` (`key.pem`,
 * `cert.pem`), for a TLS server a test starts: `name` is its common name, and an IP address also
 * becomes its subject alternative name (what clients check).
 */
export async function selfSignedCert(
  dir: string,
  name = '127.0.0.1',
): Promise<{ key: string; cert: string }> {
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  const san = /^[\d.]+$/.test(name) ? ['-addext', `subjectAltName=IP:${name}`] : [];
  await promisify(execFile)('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
    ...san,
    '-keyout',
    key,
    '-out',
    cert,
  ]);
  return { key, cert };
}
