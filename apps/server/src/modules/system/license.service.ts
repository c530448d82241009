import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import {
  LICENSE_MESSAGES,
  type LicenseDetails,
  type LicensePayload,
  type LicenseType,
  licensePayloadSchema,
  licenseRank,
  NO_LICENSE,
} from '@granary/contracts';
import type { Db } from '../../platform/db/index.ts';
import { InvalidError } from '../../platform/errors.ts';
import { readSystemSetting, writeSystemSetting } from './system.queries.ts';

const KEY = 'license';
/** SPKI DER prefix of an Ed25519 public key; the raw 32 key bytes follow it. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * Granary's own licence-issuing public keys (base64, raw or SPKI). None is published yet: until one
 * is, licences are verified against the keys named in GRANARY_LICENSE_PUBLIC_KEYS only.
 */
export const BUILTIN_LICENSE_PUBLIC_KEYS: readonly string[] = [];

/** A fresh install's licence: every feature, no expiry. */
export const BUILTIN_LICENSE = {
  id: 'builtin',
  type: 'ENTERPRISE_PLUS',
  licensedTo: 'Granary',
  validThrough: null,
} as const;

export const LICENSE_ERROR_CODE = {
  malformed: 'LICENSE_MALFORMED',
  badSignature: 'LICENSE_BAD_SIGNATURE',
  noTrustedKey: 'LICENSE_NO_TRUSTED_KEY',
  expired: 'LICENSE_EXPIRED',
  disabled: 'LICENSE_DISABLED',
} as const;

export function ed25519PublicKey(base64: string): KeyObject {
  const bytes = Buffer.from(base64, 'base64');
  const der = bytes.length === 32 ? Buffer.concat([ED25519_SPKI_PREFIX, bytes]) : bytes;
  return createPublicKey({ key: der, format: 'der', type: 'spki' });
}

type Stored = { licenseKey: string } | { removed: true };

export class LicenseService {
  private readonly keys: KeyObject[];
  constructor(
    private readonly db: Db,
    private readonly opts: { mode: 'builtin' | 'none'; publicKeys: string[]; now?: () => Date },
  ) {
    this.keys = [...BUILTIN_LICENSE_PUBLIC_KEYS, ...opts.publicKeys].map(ed25519PublicKey);
  }

  private now(): Date {
    return this.opts.now?.() ?? new Date();
  }

  /** Verifies a key's signature against every trusted key and parses its payload; throws InvalidError. */
  verify(licenseKey: string): LicensePayload {
    const parts = licenseKey.trim().split('.');
    if (parts.length !== 2 || !parts[0] || !parts[1])
      throw new InvalidError(LICENSE_MESSAGES.malformed, LICENSE_ERROR_CODE.malformed);
    const [body, sig] = parts as [string, string];
    if (this.keys.length === 0)
      throw new InvalidError(LICENSE_MESSAGES.noTrustedKey, LICENSE_ERROR_CODE.noTrustedKey);
    const data = Buffer.from(body, 'utf8');
    const signature = Buffer.from(sig, 'base64url');
    if (!this.keys.some((key) => verify(null, data, key, signature)))
      throw new InvalidError(LICENSE_MESSAGES.badSignature, LICENSE_ERROR_CODE.badSignature);
    let payload: unknown;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      throw new InvalidError(LICENSE_MESSAGES.malformed, LICENSE_ERROR_CODE.malformed);
    }
    const parsed = licensePayloadSchema.safeParse(payload);
    if (!parsed.success) throw new InvalidError(LICENSE_MESSAGES.malformed, LICENSE_ERROR_CODE.malformed);
    return parsed.data;
  }

  private expired(validThrough: string | null): boolean {
    return validThrough !== null && Date.parse(validThrough) <= this.now().getTime();
  }

  async details(): Promise<LicenseDetails> {
    const none = (reason: string, expired = false, from?: LicensePayload): LicenseDetails => ({
      type: NO_LICENSE,
      rank: 0,
      source: 'none',
      licensedTo: from?.licensedTo ?? null,
      id: from?.id ?? null,
      validThrough: from?.validThrough ?? null,
      expired,
      reason,
    });
    if (this.opts.mode === 'none') return none(LICENSE_MESSAGES.disabledByConfig);
    const stored = (await readSystemSetting(this.db, KEY)) as Stored | undefined;
    if (!stored)
      return {
        ...BUILTIN_LICENSE,
        rank: licenseRank(BUILTIN_LICENSE.type),
        source: 'builtin',
        expired: false,
        reason: null,
      };
    if ('removed' in stored) return none(LICENSE_MESSAGES.removed);
    let payload: LicensePayload;
    try {
      payload = this.verify(stored.licenseKey);
    } catch (err) {
      // A key no longer trusted (its public key was dropped from the settings) counts as none.
      return none((err as Error).message);
    }
    if (this.expired(payload.validThrough)) return none(LICENSE_MESSAGES.expired, true, payload);
    return {
      type: payload.type,
      rank: licenseRank(payload.type),
      source: 'installed',
      licensedTo: payload.licensedTo,
      id: payload.id,
      validThrough: payload.validThrough,
      expired: false,
      reason: null,
    };
  }

  async type(): Promise<LicenseType> {
    return (await this.details()).type;
  }

  /** Installs a verified, unexpired key (admin). */
  async install(licenseKey: string): Promise<LicenseDetails> {
    if (this.opts.mode === 'none')
      throw new InvalidError(LICENSE_MESSAGES.disabledByConfig, LICENSE_ERROR_CODE.disabled);
    const payload = this.verify(licenseKey);
    if (this.expired(payload.validThrough))
      throw new InvalidError(LICENSE_MESSAGES.expired, LICENSE_ERROR_CODE.expired);
    await writeSystemSetting(this.db, KEY, { licenseKey: licenseKey.trim() } satisfies Stored);
    return this.details();
  }

  /** Removes the licence: the instance has none (N/A) until a key is installed. */
  async remove(): Promise<LicenseDetails> {
    await writeSystemSetting(this.db, KEY, { removed: true } satisfies Stored);
    return this.details();
  }
}
