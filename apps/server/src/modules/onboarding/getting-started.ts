import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { gettingStartedClaimSchema, gettingStartedStateSchema } from '@granary/contracts';
import { eq } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.ts';
import { onboardingGettingStarted } from './onboarding.schema.ts';

const tags = ['onboarding'];
const PATH = '/ui/api/v1/ui/onboarding/gettingStarted';

/** Whether `userName` was already shown the getting-started wizard on start-up. */
export async function gettingStartedState(db: Db, userName: string) {
  const [row] = await db
    .select()
    .from(onboardingGettingStarted)
    .where(eq(onboardingGettingStarted.userName, userName));
  return { seen: !!row, seenAt: row?.seenAt.toISOString() ?? null };
}

/**
 * Records that `userName` is shown the getting-started wizard now. One insert that does nothing on conflict: of two
 * browsers or nodes claiming at once, exactly one is told `claimed: true` (spec 000 §4 "once").
 */
export async function claimGettingStarted(db: Db, userName: string) {
  const inserted = await db
    .insert(onboardingGettingStarted)
    .values({ userName })
    .onConflictDoNothing()
    .returning();
  const row = inserted[0];
  if (row) return { claimed: true, seen: true, seenAt: row.seenAt.toISOString() };
  return { claimed: false, ...(await gettingStartedState(db, userName)) };
}

/**
 * spec 000 §4 onboarding, issue 17: the start-up's "show the getting-started wizard once" flag of the signed-in
 * administrator (spec 000 §6: quick setup is for admins, the default access of a route).
 */
export function gettingStartedRoutes(db: Db): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      PATH,
      {
        schema: {
          tags,
          summary: 'Whether the caller was already shown the getting-started wizard',
          response: { 200: gettingStartedStateSchema },
        },
      },
      (request) => gettingStartedState(db, request.principal!.name),
    );
    app.post(
      PATH,
      {
        schema: {
          tags,
          summary:
            'Record that the caller is shown the getting-started wizard; claimed is true only the first time',
          response: { 200: gettingStartedClaimSchema },
        },
      },
      (request) => claimGettingStarted(db, request.principal!.name),
    );
  };
}
