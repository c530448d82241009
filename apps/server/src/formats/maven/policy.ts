import type { FormatRepository } from '../sdk/format.ts';
import { isSnapshotPath, parseMavenPath } from './layout.ts';

/** The release/snapshot policy refusal for a path, or null when the repository takes it. */
export function policyRefusal(repo: FormatRepository, path: string, deploying: boolean): string | null {
  const policy = repo.maven;
  if (!policy || !parseMavenPath(path)) return null;
  const snapshot = isSnapshotPath(path);
  if (snapshot && !policy.handleSnapshots)
    return `Repository '${repo.key}' does not ${deploying ? 'accept' : 'serve'} snapshots (handleSnapshots is off): '${path}' is a snapshot`;
  if (!snapshot && !policy.handleReleases)
    return `Repository '${repo.key}' does not ${deploying ? 'accept' : 'serve'} releases (handleReleases is off): '${path}' is a release`;
  return null;
}
