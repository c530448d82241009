import { hash, randomBytes } from 'node:crypto';
import type { Principal } from '../../platform/http/access-control.ts';

export interface CredentialCacheOptions {
  ttlMs?: number;
  maxEntries?: number;
  /** The clock (epoch ms); tests move it instead of sleeping past a lifetime. */
  now?: () => number;
}

/**
 * A short-lived cache of verified credentials under a salted hash of the header, so a client's
 * hundreds of requests cost one argon2 verification (DESIGN.md "Access model"). The salt is random
 * per process: nothing stored reveals a credential. An entry never outlives the token it holds
 * (`Principal.tokenExpiresAt`). `clear()` empties it whenever a password changes, a user is disabled
 * or deleted, a token is revoked or permissions change, and tells the other nodes to do the same
 * (`onClear`, wired to LISTEN/NOTIFY); their answer arrives through `clearLocal()`.
 */
export class CredentialCache {
  /** Random per process: the digests reveal nothing and cannot be looked up in a precomputed table. */
  private readonly salt = randomBytes(32).toString('base64');
  private readonly entries = new Map<string, { principal: Principal; expires: number }>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  readonly now: () => number;
  /** Tells the other nodes; set once at start. Must not reject. */
  onClear: (() => Promise<void>) | undefined;

  constructor(opts: CredentialCacheOptions = {}) {
    this.ttlMs = opts.ttlMs ?? 60_000;
    this.maxEntries = opts.maxEntries ?? 10_000;
    this.now = opts.now ?? Date.now;
  }

  /** The salted digest a credential is kept under (the response cache keys answers by it, never by the credential). */
  digestOf(credential: string): string {
    return this.digest(credential);
  }

  private digest(credential: string): string {
    // One-shot SHA-256 of salt and credential: an HMAC object per request cost 6 % of a token GET (issue 24).
    return hash('sha256', `${this.salt}\u0000${credential}`, 'base64url');
  }

  get(credential: string): Principal | undefined {
    return this.byDigest(this.digest(credential));
  }

  /** `get` of a credential already digested (`digestOf`). */
  byDigest(k: string): Principal | undefined {
    const hit = this.entries.get(k);
    if (!hit) return undefined;
    if (hit.expires <= this.now()) {
      this.entries.delete(k);
      return undefined;
    }
    return hit.principal;
  }

  set(credential: string, principal: Principal): void {
    const now = this.now();
    const expires = Math.min(now + this.ttlMs, principal.tokenExpiresAt ?? Number.POSITIVE_INFINITY);
    if (expires <= now) return;
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(this.digest(credential), { principal, expires });
  }

  /** Empties this node's cache at once and every other node's as soon as they hear; resolves once told. */
  clear(): Promise<void> {
    this.clearLocal();
    return this.onClear?.() ?? Promise.resolve();
  }

  /** Empties this node's cache only (another node said so). */
  clearLocal(): void {
    this.entries.clear();
  }
}
