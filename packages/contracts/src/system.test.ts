import { describe, expect, it } from 'vitest';
import {
  entitlementsFor,
  FEATURE_FLAG_DEFAULTS,
  featuresConfigPatchSchema,
  LICENSE_RANKS,
  licenseRank,
  NO_LICENSE,
} from './system.ts';

describe('system contracts', () => {
  it('spec 000 §3: licence kinds and ranks; N/A means no licence (rank 0)', () => {
    expect(LICENSE_RANKS).toEqual({
      OSS: 1,
      CONAN: 1,
      JCR: 1,
      COMMERCIAL: 2,
      COMMERCIAL_X: 2,
      TRIAL: 3,
      EDGE: 4,
      EDGE_TRIAL: 4,
      ENTERPRISE: 4,
      ENTERPRISE_X: 4,
      ENTERPRISE_PLUS_TRIAL: 5,
      ENTERPRISE_PLUS: 5,
    });
    expect(licenseRank(NO_LICENSE)).toBe(0);
    expect(licenseRank('none')).toBe(0);
    expect(licenseRank('toString')).toBe(0);
  });

  it('spec 001 §2: Xray search needs commercial, trial, edge or enterprise; release bundles need edge or enterprise-plus kinds', () => {
    expect(entitlementsFor('OSS').scanning).toBe(false);
    expect(entitlementsFor('COMMERCIAL').scanning).toBe(true);
    expect(entitlementsFor('TRIAL').scanning).toBe(true);
    expect(entitlementsFor('ENTERPRISE').distribution).toBe(false);
    expect(entitlementsFor('EDGE_TRIAL').distribution).toBe(true);
    expect(entitlementsFor('ENTERPRISE_PLUS_TRIAL').releaseBundleSource).toBe(true);
    expect(Object.values(entitlementsFor(NO_LICENSE)).some(Boolean)).toBe(false);
  });

  it('feature flags: known flags only', () => {
    expect(featuresConfigPatchSchema.safeParse({ demo: true }).success).toBe(true);
    expect(featuresConfigPatchSchema.safeParse({ nope: true }).success).toBe(false);
    expect(Object.keys(FEATURE_FLAG_DEFAULTS)).toContain('navigationSwitching');
  });
});
