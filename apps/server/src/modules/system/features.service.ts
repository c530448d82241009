import {
  FEATURE_FLAG_DEFAULTS,
  type FeatureFlag,
  type FeaturesConfig,
  type FeaturesConfigPatch,
} from '@granary/contracts';
import type { Db } from '../../platform/db/index.ts';
import { listFeatureFlags, setFeatureFlags } from './system.queries.ts';

/** Feature flags: the defaults of the contracts, overridden by the rows of `feature_flags`. */
export class FeatureFlags {
  constructor(
    private readonly db: Db,
    /** Defaults this server changes (the archive store turns `coldStorage` on). */
    private readonly defaults: Partial<FeaturesConfig> = {},
  ) {}

  async get(): Promise<FeaturesConfig> {
    const out: FeaturesConfig = { ...FEATURE_FLAG_DEFAULTS, ...this.defaults };
    for (const row of await listFeatureFlags(this.db))
      if (Object.hasOwn(FEATURE_FLAG_DEFAULTS, row.name)) out[row.name as FeatureFlag] = row.enabled;
    return out;
  }

  /** PATCH sets the flags given; PUT (`replace`) also puts every other flag back to its default. */
  async set(flags: FeaturesConfigPatch, replace = false): Promise<FeaturesConfig> {
    const rows = Object.entries(flags)
      .filter(([, v]) => v !== undefined)
      .map(([name, enabled]) => ({ name, enabled: enabled as boolean }));
    await setFeatureFlags(this.db, rows, replace);
    return this.get();
  }
}
