import { z } from 'zod';
import { GIT_VENDOR_NAMES, repositoryScanSchema } from './integrations.ts';

/**
 * `GET /ui/api/v1/integrations/scans` (admin; issue 18 "Products per integration": scan results of the chosen
 * git repositories are shown on the integration and in Security & Compliance): the latest scan of every selected
 * repository of every integration, with the integration it belongs to.
 */
export const integrationRepositoryScanSchema = repositoryScanSchema.extend({
  integrationKey: z.string(),
  integrationName: z.string(),
  vendorName: z.enum(GIT_VENDOR_NAMES),
});
export type IntegrationRepositoryScan = z.infer<typeof integrationRepositoryScanSchema>;
