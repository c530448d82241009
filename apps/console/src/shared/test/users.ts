import type { UserData } from '@granary/contracts';

/** User data (spec 000 §3) as the server answers it, for tests. */
export function userData(overrides: Partial<UserData> = {}): UserData {
  return {
    name: 'admin',
    realm: 'internal',
    admin: true,
    mfaStatus: 'NONE',
    email: 'admin@example.com',
    anonymous: false,
    anonAccessEnabled: false,
    projectAdmin: false,
    groups: [],
    existsInDB: true,
    profileUpdatable: true,
    requireProfilePassword: false,
    requireProfileUnlock: false,
    ...overrides,
  };
}
