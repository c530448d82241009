/** A tree node's key: the repository key, or `{repo}/{path}` (repository keys hold no slash). */
export interface TreeRef {
  repo: string;
  path: string;
}

export const nodeKey = ({ repo, path }: TreeRef) => (path ? `${repo}/${path}` : repo);

export function parseNodeKey(key: string): TreeRef {
  const slash = key.indexOf('/');
  return slash < 0 ? { repo: key, path: '' } : { repo: key.slice(0, slash), path: key.slice(slash + 1) };
}

/** `libs/a/b` → [`libs`, `libs/a`]: the folders to open so that a node shows. */
export function ancestorKeys(key: string): string[] {
  const parts = key.split('/');
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'));
}

export const treePath = (ref: TreeRef | null) =>
  ref
    ? `/repos/tree/General/${nodeKey(ref).split('/').map(encodeURIComponent).join('/')}`
    : '/repos/tree/General';
