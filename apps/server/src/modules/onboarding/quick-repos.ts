import type { CreatedRepos, QuickRepoLayout } from '@granary/contracts';
import { DEFAULT_REPOSITORY_KEY, repositoryKeySchema } from '@granary/contracts';
import type { FormatRegistry } from '../../formats/registry.ts';
import type { Db } from '../../platform/db/index.ts';
import { InvalidError } from '../../platform/errors.ts';
import { createRepository, forgetConfigs, listRepositories } from '../repositories/repositories.api.ts';

/**
 * Quick repositories (issue 17, spec 000 §3 quick-start layout and created repos): for each offered package type a
 * local, a remote and a virtual repository (Maven-like: a release and a snapshot local, one remote, a release and a
 * snapshot virtual), created in one transaction. The remote points at the format's public registry unless
 * `GRANARY_ONBOARDING_UPSTREAMS` names another; nothing is dialled at creation, so it works offline.
 */

/** The public registry of each format, the quick remote's default upstream. */
export const DEFAULT_UPSTREAMS: Readonly<Record<string, string>> = {
  npm: 'https://registry.npmjs.org',
  pypi: 'https://pypi.org',
  maven: 'https://repo1.maven.org/maven2',
  gradle: 'https://repo1.maven.org/maven2',
  docker: 'https://registry-1.docker.io',
  go: 'https://proxy.golang.org',
  cargo: 'https://index.crates.io',
  terraform: 'https://registry.terraform.io',
  // Artifactory's Swift remote default. Granary's Swift remote speaks SE-0292 only and GitHub is no such
  // registry: point the remote at one (there is no public SE-0292 registry to default to).
  swift: 'https://github.com',
  debian: 'https://deb.debian.org/debian',
  rpm: 'https://dl.rockylinux.org/pub/rocky/9/BaseOS/x86_64/os',
};

const MAVEN_LIKE = new Set(['maven', 'gradle']);

/** The layout name shown for a package type. */
const LAYOUTS: Readonly<Record<string, string>> = {
  maven: 'maven-2-default',
  gradle: 'gradle-default',
  npm: 'npm-default',
  pypi: 'simple-default',
  docker: 'simple-default',
  go: 'go-default',
  cargo: 'cargo-default',
  terraform: 'terraform-module-default',
  swift: 'swift-default',
  debian: 'simple-default',
  rpm: 'simple-default',
};

/** Parses `npm=http://…,docker=http://…` into a map of upstream overrides. */
export function parseUpstreams(value: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (value ?? '').split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    out[part.slice(0, eq).trim().toLowerCase()] = part
      .slice(eq + 1)
      .trim()
      .replace(/\/+$/, '');
  }
  return out;
}

export interface QuickReposDeps {
  db: Db;
  formats: FormatRegistry;
  upstreams: Record<string, string>;
  /** After the commit: places the type's trial content in its local repository (trial-content.ts). */
  trialContent?: (type: string, localKey: string, upstream: string) => Promise<void>;
}

/** The package types the wizard offers: registered, with all three classes and an upstream to proxy. */
export function offeredTypes(deps: QuickReposDeps): string[] {
  return deps.formats
    .list()
    .filter((f) => ['local', 'remote', 'virtual'].every((c) => f.classes.includes(c as 'local')))
    .filter((f) => deps.upstreams[f.id] ?? DEFAULT_UPSTREAMS[f.id])
    .map((f) => f.id);
}

function keysFor(type: string, n: number) {
  const base = n === 1 ? type : `${type}${n}`;
  return MAVEN_LIKE.has(type)
    ? {
        local: [`${base}-local`, `${base}-snapshot-local`],
        remote: [`${base}-remote`],
        virtual: [base, `${base}-snapshot`],
      }
    : { local: [`${base}-local`], remote: [`${base}-remote`], virtual: [base] };
}

/** The keys for `type`: the first suffix (none, 2, 3, …) whose keys are all free. */
function layoutFor(type: string, taken: Set<string>): QuickRepoLayout {
  for (let n = 1; ; n++) {
    const keys = keysFor(type, n);
    const all = [...keys.local, ...keys.remote, ...keys.virtual];
    if (all.some((k) => taken.has(k.toLowerCase()))) continue;
    for (const k of all) taken.add(k.toLowerCase());
    return {
      repoType: type,
      layout: LAYOUTS[type] ?? 'simple-default',
      localRepoKeys: keys.local,
      remoteRepoKeys: keys.remote,
      virtualRepoKeys: keys.virtual,
    };
  }
}

async function takenKeys(db: Db): Promise<Set<string>> {
  return new Set((await listRepositories(db)).map((r) => r.key.toLowerCase()));
}

export async function reposStates(deps: QuickReposDeps) {
  const keys = (await listRepositories(deps.db)).map((r) => r.key);
  return {
    repoStates: {
      onlyDefaultRepositories: keys.every((k) => k.toLowerCase() === DEFAULT_REPOSITORY_KEY),
      existingKeys: keys,
    },
  };
}

export async function reposModel(deps: QuickReposDeps): Promise<QuickRepoLayout[]> {
  const taken = await takenKeys(deps.db);
  return offeredTypes(deps).map((type) => layoutFor(type, taken));
}

export async function validateBatch(deps: QuickReposDeps, repoKeys: string[]) {
  const taken = await takenKeys(deps.db);
  const seen = new Set<string>();
  return {
    results: repoKeys.map((key) => {
      const parsed = repositoryKeySchema.safeParse(key);
      if (!parsed.success)
        return { key, valid: false, message: parsed.error.issues.map((i) => i.message).join('; ') };
      const lower = key.toLowerCase();
      if (taken.has(lower)) return { key, valid: false, message: `Repository '${key}' already exists` };
      if (seen.has(lower)) return { key, valid: false, message: `'${key}' is named twice` };
      seen.add(lower);
      return { key, valid: true };
    }),
  };
}

/**
 * Creates every chosen type's repositories in ONE transaction: a failure (an unknown type, a key taken meanwhile)
 * leaves no repository behind.
 */
export async function createQuickRepos(
  deps: QuickReposDeps,
  repoTypes: string[],
  by: string,
): Promise<{ createdReposByTypes: Record<string, CreatedRepos> }> {
  const offered = offeredTypes(deps);
  const types: string[] = [];
  for (const requested of repoTypes) {
    const id = deps.formats.get(requested)?.id;
    if (!id || !offered.includes(id))
      throw new InvalidError(
        `repoTypes: "${requested}" is not offered for quick setup (offered: ${offered.join(', ')})`,
      );
    if (!types.includes(id)) types.push(id);
  }
  const createdReposByTypes: Record<string, CreatedRepos> = {};
  try {
    await deps.db.transaction(async (tx) => {
      const db = tx as unknown as Db;
      const taken = await takenKeys(db);
      for (const type of types) {
        const layout = layoutFor(type, taken);
        const mavenLike = MAVEN_LIKE.has(type);
        const url = deps.upstreams[type] ?? DEFAULT_UPSTREAMS[type]!;
        const remote = layout.remoteRepoKeys[0]!;
        for (const [i, key] of layout.localRepoKeys.entries())
          await createRepository(
            db,
            deps.formats,
            key,
            {
              rclass: 'local',
              packageType: type,
              description: `Quick setup: ${type} ${mavenLike ? (i === 0 ? 'releases' : 'snapshots') : 'packages'}`,
              ...(mavenLike ? { handleReleases: i === 0, handleSnapshots: i === 1 } : {}),
            },
            by,
          );
        // The upstream is not dialled now (no address check here: the outbound client still applies the
        // address rule when it is dialled), so creation never depends on the network.
        await createRepository(
          db,
          deps.formats,
          remote,
          { rclass: 'remote', packageType: type, url, description: `Quick setup: proxy of ${url}` },
          by,
        );
        for (const [i, key] of layout.virtualRepoKeys.entries()) {
          const local = layout.localRepoKeys[i]!;
          await createRepository(
            db,
            deps.formats,
            key,
            {
              rclass: 'virtual',
              packageType: type,
              repositories: [local, remote],
              defaultDeploymentRepo: local,
              description: `Quick setup: ${local} and ${remote}`,
            },
            by,
          );
        }
        createdReposByTypes[type] = {
          type,
          local: mavenLike ? layout.localRepoKeys : layout.localRepoKeys[0]!,
          remote,
          virtual: mavenLike ? layout.virtualRepoKeys : layout.virtualRepoKeys[0]!,
        };
      }
    });
  } finally {
    forgetConfigs(deps.db);
  }
  // Each type's upstream is probed at once (at most 2 s each, in parallel).
  await Promise.all(
    Object.entries(createdReposByTypes).map(([type, created]) =>
      deps.trialContent?.(
        type,
        typeof created.local === 'string' ? created.local : created.local[0]!,
        deps.upstreams[type] ?? DEFAULT_UPSTREAMS[type]!,
      ),
    ),
  );
  return { createdReposByTypes };
}
