import {
  type ArtifactBuildsAnswer,
  type BuildArtifact,
  type BuildDependency,
  type BuildDiffAnswer,
  type BuildInfo,
  type BuildNameItem,
  type BuildRunDetails,
  type BuildRunItem,
  type BuildStatus,
  IN_TOTO_STATEMENT_TYPE,
  type ProvenanceStatement,
  SLSA_PROVENANCE_TYPE,
} from '@granary/contracts';
import { NotFoundError } from '../../platform/errors.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { vulnerabilitiesOfLeadFile } from '../packages/packages.api.ts';
import { authorize, findArtifact, findRepository } from '../repositories/repositories.api.ts';
import type { BuildRunRow } from './builds.queries.ts';
import { itemsByChecksum, listLatestRuns, listRuns } from './builds.queries.ts';
import { type BuildsContext, buildInfoOf, checkBuildName, findRun, mayOnBuild } from './builds.service.ts';
import { Linker } from './linking.ts';

const enc = encodeURIComponent;

export function runItem(run: BuildRunRow): BuildRunItem {
  return {
    name: run.name,
    number: run.number,
    started: run.started,
    startedAt: run.startedAt.toISOString(),
    durationMillis: run.durationMillis ?? null,
    agent: run.agent ?? null,
    url: run.url ?? null,
    status: run.status ?? null,
    modules: run.modules,
    artifacts: run.artifacts,
    dependencies: run.dependencies,
    uploadedBy: run.createdBy,
  };
}

/** `*` and `?` wildcards, else a case-insensitive substring. */
function nameFilter(search: string | undefined): (name: string) => boolean {
  const s = search?.trim();
  if (!s) return () => true;
  if (/[*?]/.test(s)) {
    const re = new RegExp(
      `^${s
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.')}$`,
      'i',
    );
    return (n) => re.test(n);
  }
  const lower = s.toLowerCase();
  return (n) => n.toLowerCase().includes(lower);
}

/** Every build the caller may read (newest run first), optionally filtered by name. */
export async function listBuilds(
  ctx: BuildsContext,
  principal: Principal | null,
  search?: string,
): Promise<BuildNameItem[]> {
  const keep = nameFilter(search);
  const out: BuildNameItem[] = [];
  for (const run of await listLatestRuns(ctx.db)) {
    if (!keep(run.name) || !(await mayOnBuild(ctx, principal, 'read', run.name))) continue;
    out.push({
      name: run.name,
      lastBuildNumber: run.number,
      lastStarted: run.started,
      lastStartedAt: run.startedAt.toISOString(),
      status: run.status ?? null,
      runs: run.runCount,
    });
  }
  return out.sort((a, b) => b.lastStartedAt.localeCompare(a.lastStartedAt) || a.name.localeCompare(b.name));
}

/** `GET /api/build`. */
export async function restBuildList(ctx: BuildsContext, principal: Principal | null, base: string) {
  const builds = await listBuilds(ctx, principal);
  if (builds.length === 0) throw new NotFoundError('No builds were found');
  return {
    uri: `${base}/api/build`,
    builds: builds.map((b) => ({ uri: `/${enc(b.name)}`, lastStarted: b.lastStarted })),
  };
}

/** The runs of a build the caller may read, newest first (404 when none, or not readable). */
export async function runsOf(
  ctx: BuildsContext,
  principal: Principal | null,
  name: string,
): Promise<BuildRunRow[]> {
  checkBuildName(name);
  const runs = (await mayOnBuild(ctx, principal, 'read', name)) ? await listRuns(ctx.db, name) : [];
  if (runs.length === 0) throw new NotFoundError(`Build '${name}' not found`);
  return runs;
}

/** `GET /api/build/{name}`. */
export async function restBuildRuns(
  ctx: BuildsContext,
  principal: Principal | null,
  name: string,
  base: string,
) {
  const runs = await runsOf(ctx, principal, name);
  return {
    uri: `${base}/api/build/${enc(name)}`,
    buildsNumbers: runs.map((r) => ({ uri: `/${enc(r.number)}`, started: r.started })),
  };
}

const keyOfArtifact = (a: BuildArtifact) => `${a.path ?? ''}|${a.name ?? ''}`;
const sumOf = (x: { sha256?: string; sha1?: string; md5?: string }) =>
  (x.sha256 ?? x.sha1 ?? x.md5 ?? '').toLowerCase();

function diffBy<T>(
  newer: T[],
  older: T[],
  key: (t: T) => string,
  same: (a: T, b: T) => boolean,
): { new: T[]; updated: T[]; unchanged: T[]; removed: T[] } {
  const olderBy = new Map(older.map((o) => [key(o), o]));
  const newerKeys = new Set(newer.map(key));
  const out = { new: [] as T[], updated: [] as T[], unchanged: [] as T[], removed: [] as T[] };
  for (const n of newer) {
    const o = olderBy.get(key(n));
    if (!o) out.new.push(n);
    else if (same(n, o)) out.unchanged.push(n);
    else out.updated.push(n);
  }
  for (const o of older) if (!newerKeys.has(key(o))) out.removed.push(o);
  return out;
}

const stringProps = (info: BuildInfo): Record<string, string> =>
  Object.fromEntries(
    Object.entries(info.properties ?? {}).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );

/** `GET /api/build/{name}/{number}?diff={older}`: artifacts, dependencies and properties, each split four ways. */
export async function diffRuns(
  ctx: BuildsContext,
  principal: Principal | null,
  name: string,
  number: string,
  olderNumber: string,
): Promise<BuildDiffAnswer> {
  const newer = await buildInfoOf(ctx, await findRun(ctx, principal, name, number));
  const older = await buildInfoOf(ctx, await findRun(ctx, principal, name, olderNumber));
  const artifacts = (i: BuildInfo) => (i.modules ?? []).flatMap((m) => m.artifacts ?? []);
  const dependencies = (i: BuildInfo) => (i.modules ?? []).flatMap((m) => m.dependencies ?? []);
  const newProps = stringProps(newer);
  const oldProps = stringProps(older);
  const props = diffBy(
    Object.entries(newProps).map(([key, value]) => ({ key, value })),
    Object.entries(oldProps).map(([key, value]) => ({ key, value })),
    (p) => p.key,
    (a, b) => a.value === b.value,
  );
  return {
    artifacts: diffBy(artifacts(newer), artifacts(older), keyOfArtifact, (a, b) => sumOf(a) === sumOf(b)),
    dependencies: diffBy(
      dependencies(newer),
      dependencies(older),
      (d: BuildDependency) => d.id ?? '',
      (a, b) => sumOf(a) === sumOf(b),
    ),
    properties: {
      ...props,
      updated: props.updated.map((p) => ({ ...p, diffValue: oldProps[p.key] ?? '' })),
    },
  };
}

/**
 * The run as an in-toto Statement v1 with a SLSA provenance v1 predicate: subjects are the produced
 * artifacts that have a sha256 (named by their path, else name), the build definition comes from the
 * build-info (type, VCS and URL as external parameters, dependencies with their digests), the run
 * details name the CI server (or the build tool) and the start and end of the run.
 */
export async function provenanceOf(
  ctx: BuildsContext,
  principal: Principal | null,
  name: string,
  number: string,
  base: string,
): Promise<ProvenanceStatement> {
  const run = await findRun(ctx, principal, name, number);
  const info = await buildInfoOf(ctx, run);
  const digests = (x: { sha256?: string; sha1?: string; md5?: string }) =>
    Object.fromEntries(
      (['sha256', 'sha1', 'md5'] as const).filter((k) => x[k]).map((k) => [k, String(x[k]).toLowerCase()]),
    );
  const subject = (info.modules ?? []).flatMap((m) =>
    (m.artifacts ?? [])
      .filter((a) => a.sha256)
      .map((a) => ({ name: a.path ?? a.name ?? '', digest: { sha256: a.sha256!.toLowerCase() } })),
  );
  const resolvedDependencies = (info.modules ?? []).flatMap((m) =>
    (m.dependencies ?? [])
      .filter((d) => d.sha256 || d.sha1 || d.md5)
      .map((d) => ({ name: d.id ?? '', digest: digests(d) })),
  );
  const builder = info.agent?.name ? info.agent : info.buildAgent;
  const startedOn = new Date(run.startedAt.getTime()).toISOString();
  const finishedOn =
    info.durationMillis !== undefined
      ? new Date(run.startedAt.getTime() + info.durationMillis).toISOString()
      : undefined;
  return {
    _type: IN_TOTO_STATEMENT_TYPE,
    subject,
    predicateType: SLSA_PROVENANCE_TYPE,
    predicate: {
      buildDefinition: {
        buildType: `https://granary.dev/build-info/${(info.type ?? 'GENERIC').toLowerCase()}@v1`,
        externalParameters: {
          buildName: info.name,
          buildNumber: info.number,
          ...(info.vcs?.length ? { vcs: info.vcs } : {}),
          ...(info.url ? { url: info.url } : {}),
        },
        internalParameters: {
          buildInfo: `${base}/api/build/${enc(run.name)}/${enc(run.number)}`,
          ...(info.buildAgent?.name ? { buildAgent: info.buildAgent } : {}),
        },
        resolvedDependencies,
      },
      runDetails: {
        builder: {
          id: builder?.name ? `${builder.name}${builder.version ? `/${builder.version}` : ''}` : 'unknown',
          ...(builder?.version ? { version: { [builder.name ?? 'agent']: builder.version } } : {}),
        },
        metadata: {
          ...(info.url ? { invocationId: info.url } : {}),
          startedOn,
          ...(finishedOn ? { finishedOn } : {}),
        },
      },
    },
  };
}

const orNull = (s: string | undefined | null) => (s ? s : null);

/** Everything the console's run page shows. */
export async function runDetails(
  ctx: BuildsContext,
  principal: Principal | null,
  name: string,
  number: string,
): Promise<BuildRunDetails> {
  const run = await findRun(ctx, principal, name, number);
  const info = await buildInfoOf(ctx, run);
  const linker = new Linker(ctx.db);
  const modules: BuildRunDetails['modules'] = [];
  for (const [i, m] of (info.modules ?? []).entries()) {
    const artifacts: BuildRunDetails['modules'][number]['artifacts'] = [];
    for (const a of m.artifacts ?? []) {
      const file = await linker.link(a, run);
      artifacts.push({
        name: a.name ?? a.path ?? '',
        type: orNull(a.type),
        path: orNull(a.path),
        sha1: orNull(a.sha1),
        sha256: orNull(a.sha256),
        md5: orNull(a.md5),
        link: file ? { repoKey: file.repoKey, path: file.path } : null,
      });
    }
    const dependencies: BuildRunDetails['modules'][number]['dependencies'] = [];
    for (const d of m.dependencies ?? []) {
      const file = await linker.link(d);
      let vulnerabilities: BuildRunDetails['modules'][number]['dependencies'][number]['vulnerabilities'] =
        null;
      if (file) {
        const counts = await vulnerabilitiesOfLeadFile(ctx.db, file.repositoryId, file.path);
        if (counts)
          vulnerabilities = {
            critical: counts.critical ?? 0,
            high: counts.high ?? 0,
            medium: counts.medium ?? 0,
            low: counts.low ?? 0,
            unknown: counts.unknown ?? 0,
          };
      }
      dependencies.push({
        id: d.id ?? '',
        type: orNull(d.type),
        scopes: d.scopes ?? [],
        requestedBy: d.requestedBy ?? [],
        sha1: orNull(d.sha1),
        sha256: orNull(d.sha256),
        md5: orNull(d.md5),
        link: file ? { repoKey: file.repoKey, path: file.path } : null,
        vulnerabilities,
      });
    }
    modules.push({ id: m.id ?? `module-${i + 1}`, type: orNull(m.type), artifacts, dependencies });
  }
  return {
    run: runItem(run),
    vcs: info.vcs ?? [],
    environment: stringProps(info),
    issues: info.issues ?? null,
    statuses: (info.statuses ?? []) as BuildStatus[],
    modules,
    provenanceUri: `/api/build/${enc(run.name)}/${enc(run.number)}/provenance`,
  };
}

/**
 * The builds that produced (artifacts) or used (dependencies) the stored file at `repoKey`/`path`
 * (the version Builds tab, `GET builds (path, repoKey)`): matched by its checksums, newest run first,
 * only builds the caller may read. Read permission on the file.
 */
export async function buildsOfFile(
  ctx: BuildsContext,
  principal: Principal | null,
  repoKey: string,
  path: string,
): Promise<ArtifactBuildsAnswer> {
  const repo = await findRepository(ctx.db, repoKey);
  const clean = path.replace(/^\/+/, '');
  if (!repo) throw new NotFoundError(`Repository '${repoKey}' not found`);
  await authorize(ctx.repositories, principal, 'read', repo, clean);
  const file = await findArtifact(ctx.db, repo.id, clean);
  if (!file) throw new NotFoundError(`'${clean}' not found in repository '${repo.key}'`);
  const hits = await itemsByChecksum(ctx.db, { sha256: file.sha256, sha1: file.sha1, md5: file.md5 });
  const out: ArtifactBuildsAnswer['builds'] = [];
  const seen = new Set<string>();
  const readable = new Map<string, boolean>();
  for (const { item, run } of hits) {
    // An item links by its strongest checksum only (sha256, else sha1, else md5).
    const matches = item.sha256
      ? item.sha256 === file.sha256
      : item.sha1
        ? item.sha1 === file.sha1
        : item.md5 === file.md5;
    if (!matches) continue;
    const key = `${run.name}\u0000${run.number}\u0000${item.role}`;
    if (seen.has(key)) continue;
    if (!readable.has(run.name)) readable.set(run.name, await mayOnBuild(ctx, principal, 'read', run.name));
    if (!readable.get(run.name)) continue;
    seen.add(key);
    out.push({
      name: run.name,
      number: run.number,
      started: run.started,
      role: item.role,
      moduleId: item.moduleId,
    });
  }
  return { builds: out };
}
