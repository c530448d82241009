import { httpStatusOf } from '../../platform/http/error-status.ts';
import type { RepositoryHandle } from '../sdk/format.ts';

/**
 * A virtual repository's members to ask about a module or provider, in resolution order: local
 * members first; a remote member guarding against namespace confusion is left out when a local
 * member holds the name (`holds`), so a public registry never shadows a private module.
 */
export async function membersFor(
  ctx: RepositoryHandle,
  holds: (local: RepositoryHandle) => Promise<boolean>,
): Promise<RepositoryHandle[]> {
  const members = (await ctx.members()).filter(
    (m) => m.repository.packageType === ctx.repository.packageType,
  );
  const locals = members.filter((m) => m.repository.rclass === 'local');
  const remotes = members.filter((m) => m.repository.rclass === 'remote');
  let held = false;
  for (const m of locals) if (await holds(m)) held = true;
  return [
    ...locals,
    ...remotes.filter((m) => !held || m.repository.remote?.namespaceConfusionProtection === false),
  ];
}

/** A member's answer, or null when it failed on the server side (an upstream down): the others answer. */
export async function tolerant<T>(ctx: RepositoryHandle, m: RepositoryHandle, fn: () => Promise<T>) {
  try {
    return await fn();
  } catch (err) {
    const status = httpStatusOf(err) ?? (err as { statusCode?: number }).statusCode;
    if (status === undefined || status < 500) throw err;
    ctx.log.warn({ member: m.repository.key, err: (err as Error).message }, 'terraform member failed');
    return null;
  }
}
