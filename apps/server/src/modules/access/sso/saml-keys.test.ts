import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { certificateBody, generateSigningKeyPair } from './saml-keys.ts';

describe('SAML signing keys (issue 20)', () => {
  it('issue 20: a serial whose random bytes start with zeros still makes a certificate (one in a hundred failed)', () => {
    for (const start of [
      [0x00, 0x00],
      [0x80, 0x05],
      [0x00, 0x7f],
    ]) {
      const random = Buffer.alloc(16, 0x11);
      random.set(start);
      const pair = generateSigningKeyPair('Granary SAML SP test', 10, random);
      const cert = new X509Certificate(pair.certificatePem);
      expect(cert.subject).toBe('CN=Granary SAML SP test');
      // A positive serial in minimal DER: 16 bytes, the first without a padding zero.
      expect(cert.serialNumber).toMatch(/^[4-7][0-9A-F]{31}$/);
      expect(certificateBody(pair.certificatePem)).toMatch(/^[A-Za-z0-9+/=]{200,}$/);
    }
  });
});
