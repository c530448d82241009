export { advisoriesRoutes } from './advisories.routes.ts';
export { AdvisoryDatabase, OSV_ARCHIVE_LIMITS, OSV_ARCHIVE_MAX_BYTES } from './advisory-database.ts';
export { isVulnerable, normaliseName, type OsvRecord, severityOf } from './osv.ts';
