import { createHmac, randomBytes } from 'node:crypto';
import type { Principal } from '../../platform/http/access-control.ts';

/**
 * A short-lived cache of verified credentials under a keyed hash of the header, so a client's
 * hundreds of requests cost one argon2 verification (DESIGN.md "Access model"). The key is random
 * per process: nothing stored reveals a credential. Cleared on this node whenever a password
 * changes, a user is disabled or deleted, or a token is revoked; other nodes notice within `ttlMs`.
 */
export class CredentialCache {
  private readonly key = randomBytes(32);
  private readonly entries = new Map<string, { principal: Principal; expires: number }>();

  constructor(
    private readonly ttlMs = 60_000,
    private readonly maxEntries = 10_000,
  ) {}

  private digest(credential: string): string {
    return createHmac('sha256', this.key).update(credential).digest('base64url');
  }

  get(credential: string): Principal | undefined {
    const k = this.digest(credential);
    const hit = this.entries.get(k);
    if (!hit) return undefined;
    if (hit.expires < Date.now()) {
      this.entries.delete(k);
      return undefined;
    }
    return hit.principal;
  }

  set(credential: string, principal: Principal): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(this.digest(credential), { principal, expires: Date.now() + this.ttlMs });
  }

  clear(): void {
    this.entries.clear();
  }
}
