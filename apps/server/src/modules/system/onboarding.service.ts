import type { Onboarding } from '@granary/contracts';
import type { Db } from '../../platform/db/index.ts';
import { readSystemSetting, writeSystemSetting } from './system.queries.ts';

/** Whether the instance's onboarding was completed (`system_settings` row `onboarding`); false on a fresh install. */
export class OnboardingState {
  constructor(private readonly db: Db) {}

  async get(): Promise<Onboarding> {
    const stored = (await readSystemSetting(this.db, 'onboarding')) as Onboarding | undefined;
    return stored ?? { completed: false, completedAt: null };
  }

  async set(completed: boolean, now = new Date()): Promise<Onboarding> {
    const value: Onboarding = { completed, completedAt: completed ? now.toISOString() : null };
    await writeSystemSetting(this.db, 'onboarding', value);
    return value;
  }
}
