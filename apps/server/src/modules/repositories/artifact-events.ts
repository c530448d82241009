import { EVENT_CATALOG } from '@granary/contracts';
import type { FormatEvent } from '../../formats/sdk/format.ts';
import type { DomainEvent } from '../../platform/events/index.ts';

/**
 * The repositories module's domain events (issue 14 §Events): outbox type `${domain}.${event_type}` of
 * the event catalogue, payload exactly the delivery's `data` (snake_case), one event per thing that
 * happened. Artifacts carry `repo_key` (the repository where the bytes are), `path`, `name` (the file
 * name), `sha256`, `size`, `virtual_repo_key` when the request came through a virtual repository, and
 * `by` (who did it).
 */

/** A stored file as its events describe it. */
export interface ArtifactFacts {
  repoKey: string;
  path: string;
  sha256: string;
  size: number;
}

/** Who did it and through which virtual repository (none: the repository itself). */
export interface EventOrigin {
  by?: string;
  via?: string;
}

/** The last segment of a repository path. */
export const fileNameOf = (path: string) => path.slice(path.lastIndexOf('/') + 1);

function artifactData(file: ArtifactFacts, origin: EventOrigin = {}): Record<string, unknown> {
  return {
    repo_key: file.repoKey,
    path: file.path,
    name: fileNameOf(file.path),
    sha256: file.sha256,
    size: file.size,
    ...(origin.via ? { virtual_repo_key: origin.via } : {}),
    ...(origin.by ? { by: origin.by } : {}),
  };
}

/** `artifact.deployed` (a file stored), `artifact.deleted`, `artifact.cached` (a remote caching an upstream file). */
export function artifactEvent(
  eventType: 'deployed' | 'deleted' | 'cached',
  file: ArtifactFacts,
  origin: EventOrigin = {},
): DomainEvent {
  return { type: `artifact.${eventType}`, payload: artifactData(file, origin) };
}

/** `artifact.copied` / `artifact.moved`: `repo_key`/`path` are the target, the source beside it. */
export function transferEvent(
  mode: 'copy' | 'move',
  source: { repoKey: string; path: string },
  target: ArtifactFacts,
  by: string,
): DomainEvent {
  return {
    type: mode === 'copy' ? 'artifact.copied' : 'artifact.moved',
    payload: {
      ...artifactData(target, { by }),
      source_repo_key: source.repoKey,
      source_path: source.path,
      target_repo_key: target.repoKey,
      target_path: target.path,
    },
  };
}

const sameValues = (a: string[] | undefined, b: string[] | undefined) =>
  !!a && !!b && a.length === b.length && a.every((v, i) => v === b[i]);

/**
 * `artifact_property.added` for each key set to a new or other value, `artifact_property.deleted` for
 * each key removed, on one file: what changed from `before` to `after` (setting a value a key already
 * has changes nothing).
 */
export function propertyEvents(
  file: { repoKey: string; path: string },
  before: Record<string, string[]>,
  after: Record<string, string[]>,
  by: string,
): DomainEvent[] {
  const base = (key: string, values: string[]) => ({
    repo_key: file.repoKey,
    path: file.path,
    name: fileNameOf(file.path),
    property_key: key,
    property_values: values,
    by,
  });
  const events: DomainEvent[] = [];
  for (const [key, values] of Object.entries(after))
    if (!sameValues(before[key], values))
      events.push({ type: 'artifact_property.added', payload: base(key, values) });
  for (const [key, values] of Object.entries(before))
    if (!(key in after)) events.push({ type: 'artifact_property.deleted', payload: base(key, values) });
  return events;
}

/** Domains whose events only the core writes: a format never publishes them. */
const CORE_DOMAINS = new Set(['artifact', 'artifact_property', 'user', 'repository']);
const CATALOGUE_TYPES = new Set(
  EVENT_CATALOG.flatMap((d) => d.event_types.map((t) => `${d.domain}.${t.type}`)),
);

/**
 * A format's own events (`FormatEvent`: `docker.pushed`, …) as outbox rows of the change they ride on:
 * the core sets `repo_key`, `virtual_repo_key` and `by`. A type outside the catalogue, or of a core
 * domain, is a format's bug: refused before anything is written.
 */
export function formatEvents(
  events: readonly FormatEvent[] | undefined,
  repoKey: string,
  origin: EventOrigin,
): DomainEvent[] {
  return (events ?? []).map((e) => {
    const domain = e.type.slice(0, e.type.indexOf('.'));
    if (!CATALOGUE_TYPES.has(e.type) || CORE_DOMAINS.has(domain))
      throw new Error(`A format cannot publish '${e.type}': not a format's event of the catalogue`);
    const { repo_key: _r, virtual_repo_key: _v, by: _b, ...data } = e.data;
    return {
      type: e.type,
      payload: {
        ...data,
        repo_key: repoKey,
        ...(origin.via ? { virtual_repo_key: origin.via } : {}),
        ...(origin.by ? { by: origin.by } : {}),
      },
    };
  });
}
