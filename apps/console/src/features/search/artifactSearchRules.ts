import { ARTIFACT_SEARCH_KINDS, type ArtifactSearchKind } from '@granary/contracts';
import { parseSearchText } from './searchSyntax.ts';

/** The artifact search form's values, as the page keeps them in its address. */
export type ArtifactSearchValues = Record<string, string | boolean | undefined>;

const isKind = (value: string | undefined): value is ArtifactSearchKind =>
  (ARTIFACT_SEARCH_KINDS as readonly string[]).includes(value ?? '');

/**
 * The toolbar's artifacts search text (spec 001 §5 syntax, §3 search filter fields) as an artifact search:
 * `searchType:` names the kind; a `checksum:` (or `isChecksum:true` with the name as the checksum) is a
 * checksum search; `properties:k=v` a property search; `path:`, `searchClassOnly:`, `excludeInnerClasses:`
 * an archive search; otherwise the name is a quick search. `repo:` narrows every kind.
 */
export function artifactSearchFromText(text: string): {
  kind: ArtifactSearchKind;
  values: ArtifactSearchValues;
} {
  const { filter } = parseSearchText(text);
  const values: ArtifactSearchValues = {};
  const requested = filter.searchType?.toLowerCase();
  let kind: ArtifactSearchKind = 'quick';
  if (isKind(requested)) kind = requested;
  else if (filter.checksum || filter.isChecksum) kind = 'checksum';
  else if (filter.properties) kind = 'property';
  else if (filter.path || filter.searchClassOnly || filter.excludeInnerClasses) kind = 'archive';

  if (kind === 'checksum') {
    const checksum = filter.checksum ?? filter.name;
    if (checksum) values.checksum = checksum;
  } else if (kind === 'property') {
    const pairs = Object.entries(filter.properties ?? {}).map(([k, v]) => (v ? `${k}=${v}` : k));
    if (pairs.length > 0) values.properties = pairs.join(', ');
  } else if (kind === 'gavc') {
    if (filter.name) values.artifactId = filter.name;
    if (filter.version) values.version = filter.version;
  } else {
    if (filter.name) values.query = filter.name;
    if (kind === 'archive') {
      if (filter.path) values.path = filter.path;
      if (filter.searchClassOnly) values.searchClassOnly = true;
      if (filter.excludeInnerClasses) values.excludeInnerClasses = true;
    }
  }
  if (filter.repositories?.length) values.repos = filter.repositories.join(',');
  return { kind, values };
}

/** spec 001 §4: archive search falls back to quick search when archive indexing is not enabled. */
export function effectiveArtifactSearchKind(
  kind: ArtifactSearchKind,
  archiveIndexing: boolean | undefined,
): ArtifactSearchKind {
  return kind === 'archive' && archiveIndexing === false ? 'quick' : kind;
}
