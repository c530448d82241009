export { DataChanges } from './data-changes.ts';
export {
  bootPglite,
  createScratchDatabase,
  type Database,
  type DatabaseOptions,
  DatabaseUnavailableError,
  type Db,
  DEFAULT_DATABASE_TIMEOUT_MS,
  isDatabaseUnavailable,
  MIGRATIONS_FOLDER,
  openDatabase,
  pingDatabase,
  queryRows,
} from './database.ts';
export type { NotifyChannel } from './notify-channel.ts';
export * as schema from './schema.ts';
