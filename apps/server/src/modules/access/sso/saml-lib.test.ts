import { describe, expect, it } from 'vitest';
import { validateSamlSchema } from './saml-lib.ts';

const VALID =
  '<samlp:LogoutResponse xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_a" Version="2.0" IssueInstant="2026-01-01T00:00:00Z"><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status></samlp:LogoutResponse>';

describe('SAML schema validation (issue 20)', () => {
  it('issue 20: a message outside the SAML schema is refused, a valid one passes', async () => {
    await expect(validateSamlSchema(VALID)).resolves.toBe('SUCCESS_VALIDATE_XML');
    const invalid = VALID.replace('<samlp:Status>', '<samlp:Surprise/><samlp:Status>');
    await expect(validateSamlSchema(invalid)).rejects.toBe('ERR_EXCEPTION_VALIDATE_XML');
  });

  it('issue 20: validating leaves no process listeners behind (the emscripten build adds one per call)', async () => {
    const listeners = () =>
      process.listenerCount('uncaughtException') + process.stdout.listenerCount('drain');
    const before = listeners();
    for (let i = 0; i < 20; i += 1) await validateSamlSchema(VALID);
    expect(listeners()).toBe(before);
  });
});
