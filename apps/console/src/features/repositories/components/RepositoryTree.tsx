import { DatabaseOutlined, FileOutlined, FolderOutlined } from '@ant-design/icons';
import type { RepositoryListItem, StorageInfo } from '@granary/contracts';
import { useQueries } from '@tanstack/react-query';
import { Tag, Tree, type TreeDataNode } from 'antd';
import { storageInfoQueryOptions } from '../queries.ts';
import { nodeKey, parseNodeKey } from './treeKeys.ts';

export interface RepositoryTreeProps {
  repositories: RepositoryListItem[];
  expandedKeys: string[];
  selectedKey: string | null;
  onExpand: (keys: string[]) => void;
  onSelect: (key: string) => void;
  /** Pixels; the tree scrolls virtually inside it, so a folder of thousands of files stays fast. */
  height: number;
}

const LOADING = '\u0000loading';

/**
 * Repositories → folders → files. A folder's children are fetched when it is opened (one storage query per
 * open folder, refetched when the tree is invalidated), and the list is virtualised.
 */
export function RepositoryTree({
  repositories,
  expandedKeys,
  selectedKey,
  onExpand,
  onSelect,
  height,
}: RepositoryTreeProps) {
  const open = expandedKeys.map(parseNodeKey);
  const folders = useQueries({ queries: open.map((ref) => storageInfoQueryOptions(ref.repo, ref.path)) });
  const loaded = new Map<string, StorageInfo | 'loading' | 'error'>();
  open.forEach((ref, i) => {
    const q = folders[i]!;
    loaded.set(nodeKey(ref), q.data ?? (q.isError ? 'error' : 'loading'));
  });
  const childrenOf = (key: string): TreeDataNode[] | undefined => {
    const info = loaded.get(key);
    if (info === undefined) return undefined;
    if (info === 'loading' || info === 'error')
      return [
        {
          key: `${key}/${LOADING}`,
          title: info === 'loading' ? 'Loading…' : 'Could not load this folder',
          isLeaf: true,
          selectable: false,
        },
      ];
    return (info.children ?? []).map((child) => {
      const name = child.uri.replace(/^\//, '');
      const k = `${key}/${name}`;
      return child.folder
        ? { key: k, title: name, icon: <FolderOutlined />, isLeaf: false, children: childrenOf(k) }
        : { key: k, title: name, icon: <FileOutlined />, isLeaf: true };
    });
  };
  const treeData: TreeDataNode[] = repositories.map((r) => ({
    key: r.key,
    title: (
      <span>
        {r.key}{' '}
        <Tag bordered={false} style={{ marginInlineStart: 4 }}>
          {r.type.toLowerCase()}
        </Tag>
      </span>
    ),
    icon: <DatabaseOutlined />,
    isLeaf: false,
    children: childrenOf(r.key),
  }));

  return (
    <Tree
      showIcon
      blockNode
      height={height}
      treeData={treeData}
      expandedKeys={expandedKeys}
      selectedKeys={selectedKey ? [selectedKey] : []}
      onExpand={(keys) => onExpand(keys.map(String).filter((k) => !k.endsWith(LOADING)))}
      onSelect={(_keys, e) => {
        const key = String(e.node.key);
        if (!key.endsWith(LOADING)) onSelect(key);
      }}
    />
  );
}
