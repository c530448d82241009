/** The server bundle that `npm start` runs (scripts/build-server.mjs). */
export const SERVER_BUNDLE: string;
/** Whether the bundle is missing or older than a source. */
export function serverBundleStale(): boolean;
/** Builds the bundle now. */
export function buildServer(): Promise<void>;
/** Builds the bundle when it is stale; answers whether it built. */
export function ensureServerBuilt(options?: { quiet?: boolean }): Promise<boolean>;
