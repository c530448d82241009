import { createSign, generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';

/**
 * A SAML signing key pair with a self-signed X.509 certificate (issue 20), made with node:crypto only:
 * the certificate is a small DER document (RFC 5280) signed with RSA-SHA256. SAML peers only compare
 * the certificate's key with the one in metadata, so nothing but the key, a name and a validity matters.
 */
export interface SigningKeyPair {
  /** PKCS#8 PEM; a secret (sealed at rest by its store). */
  privateKeyPem: string;
  certificatePem: string;
}

function der(tag: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const n = body.length;
  let len: Buffer;
  if (n < 0x80) len = Buffer.from([n]);
  else if (n < 0x100) len = Buffer.from([0x81, n]);
  else if (n < 0x10000) len = Buffer.from([0x82, n >> 8, n & 0xff]);
  else len = Buffer.from([0x83, n >> 16, (n >> 8) & 0xff, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), len, body]);
}
const seq = (...p: Buffer[]) => der(0x30, ...p);
const set = (...p: Buffer[]) => der(0x31, ...p);
const oid = (dotted: string) => {
  const ids = dotted.split('.').map(Number);
  const bytes = [40 * ids[0]! + ids[1]!];
  for (const id of ids.slice(2)) {
    const chunk = [id & 0x7f];
    for (let v = id >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
};
const utf8 = (s: string) => der(0x0c, Buffer.from(s, 'utf8'));
const time = (d: Date) => {
  const iso = d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return der(0x18, Buffer.from(`${iso}Z`, 'ascii'));
};

const SHA256_WITH_RSA = seq(oid('1.2.840.113549.1.1.11'), der(0x05));

/**
 * A positive serial number in minimal DER: the first byte in 0x40–0x7f. Only clearing the top bit let one
 * serial in 256 start 0x00 0x0…, a padded INTEGER that OpenSSL refuses, so one key pair in a hundred failed.
 */
export function certificateSerial(random: Buffer): Buffer {
  const serial = Buffer.from(random);
  serial[0] = (serial[0]! & 0x3f) | 0x40;
  return serial;
}

export function generateSigningKeyPair(
  commonName: string,
  years = 10,
  serialBytes = randomBytes(16),
): SigningKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const serial = certificateSerial(serialBytes);
  const name = seq(set(seq(oid('2.5.4.3'), utf8(commonName.slice(0, 64) || 'granary'))));
  const now = new Date();
  const notBefore = new Date(now.getTime() - 60_000);
  const notAfter = new Date(now.getTime());
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + years);
  const tbs = seq(
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, serial),
    SHA256_WITH_RSA,
    name,
    seq(time(notBefore), time(notAfter)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
  );
  const signature = createSign('sha256').update(tbs).sign(privateKey);
  const cert = seq(tbs, SHA256_WITH_RSA, der(0x03, Buffer.from([0]), signature));
  const certificatePem = new X509Certificate(cert).toString();
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    certificatePem,
  };
}

/** The certificate's base64 body, as SAML metadata carries it. */
export function certificateBody(pem: string): string {
  return pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
}
