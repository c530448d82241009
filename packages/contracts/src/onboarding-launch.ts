import { z } from 'zod';

/**
 * spec 000 §4 onboarding: "Administrators on the free tier see the getting-started wizard once", and the cloud
 * trial's quick-start wizard initialises on its own at start-up. Whether the signed-in administrator was already
 * shown it, kept on the server so "once" holds across browsers and nodes.
 *
 * `GET ui/onboarding/gettingStarted`: {seen, seenAt}. `POST ui/onboarding/gettingStarted` claims the showing:
 * `claimed` is true for the one call that recorded it, false when it was already seen (another tab, browser or node).
 */
export const gettingStartedStateSchema = z.object({
  seen: z.boolean(),
  seenAt: z.string().nullable(),
});
export type GettingStartedState = z.infer<typeof gettingStartedStateSchema>;

export const gettingStartedClaimSchema = gettingStartedStateSchema.extend({ claimed: z.boolean() });
export type GettingStartedClaim = z.infer<typeof gettingStartedClaimSchema>;
