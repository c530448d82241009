/**
 * The builds module's public surface for other modules (distribution: release bundles from a build).
 * The plugin itself is `index.ts`, which only `app.ts` imports.
 */
export { getBuildRunFiles } from './linking.ts';
