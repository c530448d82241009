import type { EventCriteria } from '@granary/contracts';
import { antMatch } from '../access/ant-pattern.ts';
import { domainInfo } from './subscription.ts';

/** What the matcher knows of a repository: its class (`local`, `remote`, `federated`, `virtual`). */
export type RepositoryClassOf = (key: string) => string | undefined;

export interface MatchableSubscription {
  key: string;
  enabled: boolean;
  domain: string;
  eventTypes: string[];
  criteria: EventCriteria;
}

const lower = (s: unknown) => (typeof s === 'string' ? s.toLowerCase() : undefined);
const str = (s: unknown) => (typeof s === 'string' && s !== '' ? s : undefined);

/** Include patterns (any one, when there are some) and exclude patterns (none) on one of `names`. */
function patternsAllow(c: EventCriteria, names: string[]): boolean {
  const include = c.includePatterns ?? [];
  const exclude = c.excludePatterns ?? [];
  if (include.length > 0 && !names.some((n) => include.some((p) => antMatch(p, n)))) return false;
  return !names.some((n) => exclude.some((p) => antMatch(p, n)));
}

/** The repositories an event is about: where the bytes are, where they came from, the virtual it went through. */
function repositoriesOf(data: Record<string, unknown>): string[] {
  return [data.repo_key, data.source_repo_key, data.target_repo_key, data.virtual_repo_key]
    .map(str)
    .filter((k): k is string => k !== undefined);
}

/** The paths a repository event is about (patterns may name the path alone, or `repo/path`). */
function pathsOf(data: Record<string, unknown>): string[] {
  const out: string[] = [];
  const add = (repo: unknown, path: unknown) => {
    const p = str(path);
    if (!p) return;
    out.push(p.replace(/^\/+/, ''));
    if (str(repo)) out.push(`${repo}/${p.replace(/^\/+/, '')}`);
  };
  add(data.repo_key, data.path);
  add(data.source_repo_key, data.source_path);
  add(data.target_repo_key, data.target_path);
  if (out.length === 0 && str(data.image_name))
    out.push(str(data.tag) ? `${data.image_name}/${data.tag}` : String(data.image_name));
  return out;
}

/**
 * Whether an event (`domain`, `eventType`, its `data`) is one `sub` asked for: enabled, the domain
 * and event type chosen, and the criteria of its domain (repositories: any local / remote / federated
 * or the keys named, then include/exclude Ant patterns on the path; builds and release bundles: any,
 * the names chosen, or the include patterns, less the exclude patterns).
 */
export function matches(
  sub: MatchableSubscription,
  domain: string,
  eventType: string,
  data: Record<string, unknown>,
  classOf: RepositoryClassOf,
): boolean {
  if (!sub.enabled || sub.domain !== domain || !sub.eventTypes.includes(eventType)) return false;
  const c = sub.criteria ?? {};
  switch (domainInfo(domain)?.criteria) {
    case 'repositories': {
      const repos = repositoriesOf(data);
      const keys = new Set((c.repoKeys ?? []).map((k) => k.toLowerCase()));
      const chosen = repos.some((r) => {
        if (keys.has(r.toLowerCase())) return true;
        const rclass = classOf(r);
        return (
          (c.anyLocal && rclass === 'local') ||
          (c.anyRemote && rclass === 'remote') ||
          (c.anyFederated && rclass === 'federated')
        );
      });
      if (!chosen) return false;
      const paths = pathsOf(data);
      return paths.length === 0 ? (c.includePatterns ?? []).length === 0 : patternsAllow(c, paths);
    }
    case 'builds': {
      const name = str(data.build_name);
      if (!name) return Boolean(c.anyBuild);
      if (!patternsAllow({ excludePatterns: c.excludePatterns }, [name])) return false;
      return (
        Boolean(c.anyBuild) ||
        (c.selectedBuilds ?? []).some((b) => lower(b) === name.toLowerCase()) ||
        (c.includePatterns ?? []).some((p) => antMatch(p, name))
      );
    }
    case 'releaseBundles': {
      const name = str(data.release_bundle_name);
      const env = str(data.environment);
      if (env && c.anyEnvironment === false && !(c.environments ?? []).includes(env)) return false;
      if (!name) return Boolean(c.anyReleaseBundle);
      if (!patternsAllow({ excludePatterns: c.excludePatterns }, [name])) return false;
      return (
        Boolean(c.anyReleaseBundle) ||
        (c.registeredReleaseBundlesNames ?? []).some((b) => lower(b) === name.toLowerCase()) ||
        (c.includePatterns ?? []).some((p) => antMatch(p, name))
      );
    }
    default:
      return true;
  }
}
