import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): `webhook-signature` carries
 * `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`, one per secret, space
 * separated (during a rotation the old secret's too). The key is the secret's UTF-8 bytes, or, for a
 * secret in the standard's own form `whsec_<base64>`, the decoded bytes after the prefix.
 */
export function signingKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
}

export function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', signingKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** `X-JFrog-Event-Auth` as Artifactory sends it: the secret, or with `use_secret_for_signing` the hex HMAC-SHA256 of the body. */
export function jfrogEventAuth(secret: string, body: string, signPayload: boolean): string {
  return signPayload ? createHmac('sha256', secret).update(body).digest('hex') : secret;
}

/** The signing headers of one attempt: `secrets` are the current secret first, then a rotated-out one still in its grace period. */
export function signingHeaders(opts: {
  id: string;
  timestamp: number;
  body: string;
  secrets: string[];
  useSecretForSigning: boolean;
}): Record<string, string> {
  const headers: Record<string, string> = {
    'webhook-id': opts.id,
    'webhook-timestamp': String(opts.timestamp),
  };
  const [current] = opts.secrets;
  if (current) {
    headers['webhook-signature'] = opts.secrets
      .map((s) => standardSignature(s, opts.id, opts.timestamp, opts.body))
      .join(' ');
    headers['x-jfrog-event-auth'] = jfrogEventAuth(current, opts.body, opts.useSecretForSigning);
  }
  return headers;
}
