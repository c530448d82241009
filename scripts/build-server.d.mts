/** The server bundle that `npm start` runs (scripts/build-server.mjs). */
export const SERVER_BUNDLE: string;
/** The newest modification time under a file or folder; 0 when it is missing. */
export function newest(p: string): number;
/** Whether the bundle is missing or older than a source. */
export function serverBundleStale(): boolean;
/** Builds the bundle now. */
export function buildServer(): Promise<void>;
/** Builds the bundle when it is stale; answers whether it built. */
export function ensureServerBuilt(options?: { quiet?: boolean }): Promise<boolean>;
