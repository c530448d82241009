import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Version } from '@granary/contracts';

const ROOT = path.resolve(import.meta.dirname, '../../../../..');

/** The git commit this tree was checked out at, read from `.git` without running git. */
function gitRevision(): string | undefined {
  try {
    const gitDir = path.join(ROOT, '.git');
    if (!existsSync(gitDir)) return undefined;
    const head = readFileSync(path.join(gitDir, 'HEAD'), 'utf8').trim();
    if (!head.startsWith('ref: ')) return head;
    const ref = head.slice(5);
    const loose = path.join(gitDir, ref);
    if (existsSync(loose)) return readFileSync(loose, 'utf8').trim();
    const packed = readFileSync(path.join(gitDir, 'packed-refs'), 'utf8');
    return packed
      .split('\n')
      .find((l) => l.endsWith(` ${ref}`))
      ?.split(' ')[0];
  } catch {
    return undefined;
  }
}

/** Read once at start: the product version from the root package.json, the revision from git or GRANARY_REVISION. */
export function readVersion(env: NodeJS.ProcessEnv = process.env): Version {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  return { version: pkg.version, revision: env.GRANARY_REVISION || gitRevision() || 'unknown' };
}
