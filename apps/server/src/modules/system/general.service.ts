import { Readable } from 'node:stream';
import {
  DATE_FORMATS,
  DEFAULT_SERVER_NAME,
  type Flavour,
  type GeneralConfig,
  type GeneralConfigUpdate,
  type LicenseType,
  LOGO_CONTENT_TYPES,
  LOGO_MAX_BYTES,
  LOGO_URL,
} from '@granary/contracts';
import type { BlobStore } from '../../platform/blobs/index.ts';
import type { Db } from '../../platform/db/index.ts';
import { InvalidError, NotFoundError, TooLargeError, UnsupportedTypeError } from '../../platform/errors.ts';
import { deleteSystemSetting, readSystemSetting, writeSystemSetting } from './system.queries.ts';

interface StoredGeneral {
  serverName: string;
  dateFormat: string;
  footerText: string;
  footerLogoUrl: string | null;
  helpLinksEnabled: boolean;
}
export interface StoredLogo {
  sha256: string;
  contentType: (typeof LOGO_CONTENT_TYPES)[number];
  size: number;
}

export const DEFAULT_GENERAL: StoredGeneral = {
  serverName: DEFAULT_SERVER_NAME,
  dateFormat: DATE_FORMATS[0],
  footerText: '',
  footerLogoUrl: null,
  helpLinksEnabled: true,
};

/** Magic bytes of each accepted image type: the bytes must be what the Content-Type says. */
function sniff(bytes: Buffer): StoredLogo['contentType'] | undefined {
  const starts = (sig: number[], at = 0) => sig.every((b, i) => bytes[at + i] === b);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (
    bytes
      .subarray(0, 6)
      .toString('latin1')
      .match(/^GIF8[79]a$/)
  )
    return 'image/gif';
  if (
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'image/webp';
  return undefined;
}

export class UnsupportedImageError extends UnsupportedTypeError {
  constructor(message: string) {
    super(message);
  }
}

/** Server name, footer, date format, help links and the custom logo (`system_settings` rows `general`, `logo`). */
export class GeneralSettings {
  constructor(
    private readonly db: Db,
    private readonly blobs: BlobStore,
    private readonly flavour: Flavour,
  ) {}

  private async stored(): Promise<StoredGeneral> {
    return {
      ...DEFAULT_GENERAL,
      ...((await readSystemSetting(this.db, 'general')) as Partial<StoredGeneral>),
    };
  }

  async logo(): Promise<StoredLogo | undefined> {
    return (await readSystemSetting(this.db, 'logo')) as StoredLogo | undefined;
  }

  /**
   * The console's general configuration. `full` (a signed-in caller, or anonymous access allowed)
   * adds the base URL and licence type; the login page gets only what it shows.
   */
  async get(opts: {
    full: boolean;
    anonymousAccessAllowed: boolean;
    baseUrl: string;
    licenseType: () => Promise<LicenseType>;
  }): Promise<GeneralConfig> {
    const [general, logo] = await Promise.all([this.stored(), this.logo()]);
    const config: GeneralConfig = {
      serverName: general.serverName,
      logoUrl: logo ? `${LOGO_URL}?v=${logo.sha256.slice(0, 12)}` : null,
      footer: { text: general.footerText, logoUrl: general.footerLogoUrl },
      helpLinksEnabled: general.helpLinksEnabled,
      anonymousAccessAllowed: opts.anonymousAccessAllowed,
      dateFormat: general.dateFormat,
      flavour: this.flavour,
    };
    if (opts.full) {
      config.baseUrl = opts.baseUrl;
      config.licenseType = await opts.licenseType();
    }
    return config;
  }

  async update(patch: GeneralConfigUpdate): Promise<void> {
    const current = await this.stored();
    const next: StoredGeneral = {
      serverName: patch.serverName ?? current.serverName,
      dateFormat: patch.dateFormat ?? current.dateFormat,
      footerText: patch.footerText ?? current.footerText,
      footerLogoUrl: patch.footerLogoUrl === undefined ? current.footerLogoUrl : patch.footerLogoUrl,
      helpLinksEnabled: patch.helpLinksEnabled ?? current.helpLinksEnabled,
    };
    await writeSystemSetting(this.db, 'general', next);
  }

  /** Stores an uploaded logo: an accepted image type whose bytes match it, at most LOGO_MAX_BYTES. */
  async setLogo(contentType: string, bytes: Buffer): Promise<StoredLogo> {
    const declared = contentType.split(';')[0]!.trim().toLowerCase();
    if (!(LOGO_CONTENT_TYPES as readonly string[]).includes(declared))
      throw new UnsupportedImageError(`A logo must be one of ${LOGO_CONTENT_TYPES.join(', ')}`);
    if (bytes.length === 0) throw new InvalidError('The logo is empty');
    if (bytes.length > LOGO_MAX_BYTES) throw new TooLargeError(`A logo is at most ${LOGO_MAX_BYTES} bytes`);
    const actual = sniff(bytes);
    if (actual !== declared) throw new UnsupportedImageError(`The file is not a ${declared} image`);
    // Blobs are content-addressed and shared: a replaced logo's blob is left for the collector.
    const info = await this.blobs.put(Readable.from([bytes]));
    const logo: StoredLogo = { sha256: info.sha256, contentType: actual, size: info.size };
    await writeSystemSetting(this.db, 'logo', logo);
    return logo;
  }

  async removeLogo(): Promise<void> {
    await deleteSystemSetting(this.db, 'logo');
  }

  async readLogo(): Promise<{ logo: StoredLogo; stream: NodeJS.ReadableStream }> {
    const logo = await this.logo();
    if (!logo) throw new NotFoundError('No custom logo is set');
    return { logo, stream: await this.blobs.get(logo.sha256) };
  }
}
