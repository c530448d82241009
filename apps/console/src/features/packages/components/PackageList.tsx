import { SortAscendingOutlined, SortDescendingOutlined } from '@ant-design/icons';
import type { PackageSummary } from '@granary/contracts';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { Button, Select, Table, Tag, Typography } from 'antd';
import { Link, useSearchParams } from 'react-router';
import { PackageTypeIcon } from '../../../shared/components/PackageTypeIcon.tsx';
import { useSession } from '../../../shared/session/SessionProvider.tsx';
import {
  formatDate,
  listFilterFromParams,
  packagePath,
  reposAfterTypeChange,
  repositoriesForTypes,
  SORT_FIELDS,
} from '../packageRules.ts';
import { filterRepositoriesQueryOptions, packagesListQueryOptions } from '../queries.ts';
import { PackageNameFilter } from './PackageNameFilter.tsx';
import { PACKAGES_EMPTY, PackagesEmptyState } from './PackagesEmptyState.tsx';
import { ScanState } from './ScanState.tsx';

/** The package types that write the packages index (spec 001 §9 excluded types never listed). */
const TYPE_OPTIONS = [
  'npm',
  'pypi',
  'docker',
  'maven',
  'gradle',
  'go',
  'cargo',
  'debian',
  'rpm',
  'terraform',
  'swift',
  'nuget',
  'generic',
].map((t) => ({
  value: t,
  label: t,
}));

/** spec 001 §2 packages list: type icons, filters (package type, name), sort, cursor paging. */
export function PackageList() {
  const [params, setParams] = useSearchParams();
  const filter = listFilterFromParams(params);
  const list = useInfiniteQuery(packagesListQueryOptions(filter));
  const repositoriesQuery = useQuery(filterRepositoriesQueryOptions());
  const repositories = repositoriesQuery.data ?? [];
  const admin = useSession().user?.admin ?? false;
  const types = params.getAll('type');
  // spec 001 §8: package fetch errors yield empty lists silently.
  const rows = list.isError ? [] : (list.data?.pages.flatMap((p) => p.edges.map((e) => e.node)) ?? []);
  const update = (changes: Record<string, string | string[] | null>) => {
    const next = new URLSearchParams(params);
    for (const [key, value] of Object.entries(changes)) {
      next.delete(key);
      for (const v of [value ?? []].flat()) if (v) next.append(key, v);
    }
    setParams(next, { replace: true });
  };
  const descending = filter.sort_type === 'desc';

  return (
    <>
      <search className="packages-filters" aria-label="Filter packages">
        <Select
          mode="multiple"
          allowClear
          aria-label="Package type"
          placeholder="Package type"
          style={{ minWidth: 200 }}
          value={types}
          options={TYPE_OPTIONS}
          onChange={(next: string[]) =>
            update({ type: next, repo: reposAfterTypeChange(params.getAll('repo'), repositories, next) })
          }
        />
        <Select
          mode="multiple"
          allowClear
          aria-label="Repositories"
          placeholder="Repositories"
          style={{ minWidth: 220 }}
          value={params.getAll('repo')}
          optionFilterProp="label"
          options={repositoriesForTypes(repositories, types).map((r) => ({
            value: r.key,
            label: r.type === 'VIRTUAL' ? `${r.key} (virtual)` : r.key,
          }))}
          onChange={(repos: string[]) => update({ repo: repos })}
        />
        <PackageNameFilter
          value={params.get('name') ?? ''}
          key={params.get('name') ?? ''}
          onSearch={(name) => update({ name: name || null })}
        />
        <Select
          aria-label="Sort by"
          style={{ width: 160 }}
          value={filter.sort_by ?? 'name'}
          options={SORT_FIELDS.map((f) => ({ value: f.value, label: f.label }))}
          onChange={(sort: string) => update({ sort })}
        />
        <Button
          aria-label={descending ? 'Sorted descending; sort ascending' : 'Sorted ascending; sort descending'}
          icon={descending ? <SortDescendingOutlined aria-hidden /> : <SortAscendingOutlined aria-hidden />}
          onClick={() => update({ order: descending ? 'asc' : 'desc' })}
        />
        {params.get('q') && (
          <Tag closable onClose={() => update({ q: null })} aria-label={`Search: ${params.get('q')}`}>
            Search: {params.get('q')}
          </Tag>
        )}
      </search>
      <Table<PackageSummary>
        rowKey="id"
        size="middle"
        loading={{ spinning: list.isPending, tip: PACKAGES_EMPTY.loading }}
        dataSource={rows}
        pagination={false}
        locale={{
          emptyText: (
            <PackagesEmptyState
              loading={list.isPending}
              readableRepositories={repositoriesQuery.data?.length}
              admin={admin}
            />
          ),
        }}
        columns={[
          {
            title: 'Name',
            key: 'name',
            render: (_, p) => (
              <span className="packages-name">
                <PackageTypeIcon icon={p.packageType} size={20} />
                <Link to={packagePath(p.id)}>{p.name}</Link>
              </span>
            ),
          },
          { title: 'Type', dataIndex: 'packageType', key: 'type' },
          {
            title: 'Repositories',
            key: 'repos',
            render: (_, p) => p.repos?.map((r) => r.name).join(', ') || '—',
          },
          {
            title: 'Latest',
            key: 'latest',
            render: (_, p) =>
              p.latestVersion ? <Link to={packagePath(p.id, p.latestVersion)}>{p.latestVersion}</Link> : '—',
          },
          { title: 'Versions', dataIndex: 'versionsCount', key: 'versions', align: 'right' },
          { title: 'Downloads', key: 'downloads', align: 'right', render: (_, p) => p.stats.downloads },
          { title: 'Last modified', key: 'modified', render: (_, p) => formatDate(p.modified) },
          { title: 'Licences', key: 'licenses', render: (_, p) => p.licenses?.join(', ') || '—' },
          {
            title: 'Security',
            key: 'security',
            render: (_, p) => <ScanState vulnerabilities={p.vulnerabilities} />,
          },
        ]}
      />
      {list.hasNextPage && !list.isError && (
        <div className="packages-more">
          <Button onClick={() => list.fetchNextPage()} loading={list.isFetchingNextPage}>
            Load more
          </Button>
        </div>
      )}
      {rows.length > 0 && (
        <Typography.Text type="secondary">
          {rows.length} package{rows.length === 1 ? '' : 's'} shown
        </Typography.Text>
      )}
    </>
  );
}
