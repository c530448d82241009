export {
  bootPglite,
  createScratchDatabase,
  type Database,
  type DatabaseOptions,
  type Db,
  MIGRATIONS_FOLDER,
  openDatabase,
  pingDatabase,
  queryRows,
} from './database.ts';
export * as schema from './schema.ts';
