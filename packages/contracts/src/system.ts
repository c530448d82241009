import { z } from 'zod';

/** `GET /api/system/ping` answers this body with 200 once the server serves. */
export const PING_BODY = 'OK';

export const versionSchema = z.object({
  version: z.string(),
  revision: z.string(),
});
export type Version = z.infer<typeof versionSchema>;
