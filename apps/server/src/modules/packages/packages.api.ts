/**
 * The packages module's public surface: what another module (search) may use of the packages index.
 * It imports this file and nothing else of packages; the plugin itself is `index.ts`.
 */
export { archiveIndexingEnabled } from './archive-entries.ts';
export { type ArchiveEntryHit, type ArchiveEntryMatch, searchArchiveEntries } from './packages.queries.ts';
export {
  type LeadVersion,
  leadFilesAmong,
  leadPathOfVersion,
  leadPathsOfRepository,
  setVersionScanFacts,
  versionOfLeadFile,
} from './scan-facts.ts';
export { vulnerabilitiesOfLeadFile } from './version-vulnerabilities.ts';
