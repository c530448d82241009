import { useQuery } from '@tanstack/react-query';
import { Button, Card, Empty, Flex, Skeleton, Typography } from 'antd';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ArtifactDetails } from '../components/ArtifactDetails.tsx';
import { RepositoryTree } from '../components/RepositoryTree.tsx';
import { ancestorKeys, parseNodeKey, treePath } from '../components/treeKeys.ts';
import { repositoriesQueryOptions } from '../queries.ts';
import './TreeBrowserPage.css';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';

/** spec 000 §2 repos/tree/General: the artifact tree and, beside it, what is selected. */
export function TreeBrowserPage() {
  const splat = useParams()['*'] ?? '';
  const selectedKey = splat.replace(/\/+$/, '') || null;
  const navigate = useNavigate();
  const repositories = useQuery(repositoriesQueryOptions());
  // The selected node's folders start open, so a deep link shows where it is.
  const [expandedKeys, setExpandedKeys] = useState<string[]>(() =>
    selectedKey ? ancestorKeys(selectedKey) : [],
  );
  const select = (key: string | null) => navigate(treePath(key ? parseNodeKey(key) : null));

  return (
    <Flex vertical gap="middle">
      <Flex justify="space-between" align="center">
        <Typography.Title level={1} style={{ margin: 0, fontSize: 26 }}>
          Artifacts
        </Typography.Title>
        {/* issue 21: Search Trash Can, Restore, Delete Permanently, Empty Trash Can (features/trash) */}
        <Link to="/repos/trash">Trash Can</Link>
      </Flex>
      <div className="tree-browser">
        <Card variant="borderless" className="tree-browser-tree" title="Repositories" size="small">
          <nav aria-label="Repository tree">
            {repositories.isPending && <Skeleton active />}
            {repositories.isError && (
              <ErrorAlert
                title="Could not load the repositories"
                error={repositories.error}
                action={
                  <Button size="small" onClick={() => void repositories.refetch()}>
                    Retry
                  </Button>
                }
              />
            )}
            {repositories.data?.length === 0 && <Empty description="No repositories you may read" />}
            {repositories.data && repositories.data.length > 0 && (
              <RepositoryTree
                repositories={repositories.data}
                expandedKeys={expandedKeys}
                selectedKey={selectedKey}
                onExpand={setExpandedKeys}
                onSelect={(key) => {
                  select(key);
                  setExpandedKeys((keys) => [...new Set([...keys, ...ancestorKeys(key)])]);
                }}
                height={620}
              />
            )}
          </nav>
        </Card>
        <section className="tree-browser-details" aria-label="Details">
          {selectedKey ? (
            <ArtifactDetails
              key={selectedKey}
              target={parseNodeKey(selectedKey)}
              onNavigate={(key) => {
                select(key);
                if (key) setExpandedKeys((keys) => [...new Set([...keys, ...ancestorKeys(key)])]);
              }}
            />
          ) : (
            <Card variant="borderless">
              <Empty description="Select a repository, folder or file" />
            </Card>
          )}
        </section>
      </div>
    </Flex>
  );
}
