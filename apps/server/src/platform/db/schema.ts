/**
 * The one pg-core schema: every module's tables, gathered for Drizzle and drizzle-kit.
 * A module owns its tables; other modules reach them only through its service.
 */
export * from '../../modules/access/access.schema.ts';
export * from '../../modules/access/sso/providers.schema.ts';
export * from '../../modules/applications/applications.schema.ts';
export * from '../../modules/builds/builds.schema.ts';
export * from '../../modules/distribution/distribution.schema.ts';
export * from '../../modules/integrations/integrations.schema.ts';
export * from '../../modules/onboarding/onboarding.schema.ts';
export * from '../../modules/packages/packages.schema.ts';
export * from '../../modules/proxies/proxies.schema.ts';
export * from '../../modules/repositories/repositories.schema.ts';
export * from '../../modules/repositories/storage.schema.ts';
export * from '../../modules/repositories/trash.schema.ts';
export * from '../../modules/retention/retention.schema.ts';
export * from '../../modules/scanning/advisories/advisories.schema.ts';
export * from '../../modules/scanning/policies/policies.schema.ts';
export * from '../../modules/scanning/scans/scans.schema.ts';
export * from '../../modules/system/support/support.schema.ts';
export * from '../../modules/system/system.schema.ts';
export * from '../../modules/webhooks/webhooks.schema.ts';
export * from '../blobs/blob-faults.schema.ts';
export * from '../blobs/blob-references.schema.ts';
export * from '../events/events.schema.ts';
export * from '../jobs/jobs.schema.ts';
export * from '../secrets/secrets.schema.ts';
