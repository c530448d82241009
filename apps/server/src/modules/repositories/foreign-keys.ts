import { repositories } from './repositories.schema.ts';

/**
 * For another module's table definition only: the column its `repository_id` references
 * (`.references(repositoryIdReference, { onDelete: 'cascade' })`), so that its rows go with their
 * repository. Never for reading or joining: those go through `repositories.api.ts`. A file of its own
 * because table definitions load before the services (`platform/db/schema.ts` gathers them).
 */
export const repositoryIdReference = () => repositories.id;
