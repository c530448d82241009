import { useQuery } from '@tanstack/react-query';
import { App, Button, Flex, Transfer, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { QueryState } from '../../../shared/components/AdminPage.tsx';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { indexedReposQueryOptions, useSaveIndexedReposMutation } from '../queries.ts';

/**
 * Indexed repositories (`indexedReposList`, admin): the repositories scanned on deploy and caching. New ones are
 * indexed by default. A failure to save shows the parsed error (spec 001 §8).
 */
export function IndexedReposTab() {
  const { message } = App.useApp();
  const query = useQuery(indexedReposQueryOptions());
  const save = useSaveIndexedReposMutation();
  const [indexed, setIndexed] = useState<string[]>([]);
  useEffect(() => {
    if (query.data) setIndexed(query.data.indexed.map((r) => r.name));
  }, [query.data]);

  const all = query.data ? [...query.data.indexed, ...query.data.notIndexed] : [];
  all.sort((a, b) => a.name.localeCompare(b.name));
  const saved = new Set(query.data?.indexed.map((r) => r.name) ?? []);
  const changed = indexed.length !== saved.size || indexed.some((name) => !saved.has(name));

  return (
    <Flex vertical gap="middle">
      <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
        Artifacts of indexed repositories are scanned when they are deployed or cached. New repositories are
        indexed by default.
      </Typography.Paragraph>
      <QueryState
        isPending={query.isPending}
        error={query.error}
        onRetry={() => void query.refetch()}
        what="the indexed repositories"
      />
      {save.error && <ErrorAlert title="Could not save the indexed repositories" error={save.error} />}
      {query.data && (
        <>
          <Transfer
            dataSource={all.map((r) => ({
              key: r.name,
              title: r.name,
              description: `${r.pkgType} ${r.type}`,
            }))}
            titles={['Not indexed', 'Indexed']}
            targetKeys={indexed}
            onChange={(keys) => setIndexed(keys.map(String))}
            render={(item) => `${item.title} (${item.description})`}
            showSearch
            listStyle={{ width: 320, height: 360 }}
            locale={{ searchPlaceholder: 'Search repositories' }}
          />
          <Flex gap="small">
            <Button
              type="primary"
              disabled={!changed}
              loading={save.isPending}
              onClick={() =>
                save.mutate(indexed, {
                  onSuccess: () => message.success('Indexed repositories saved'),
                })
              }
            >
              Save
            </Button>
            <Button disabled={!changed} onClick={() => setIndexed([...saved])}>
              Reset
            </Button>
          </Flex>
        </>
      )}
    </Flex>
  );
}
