import {
  ARTIFACT_SEARCH_KINDS,
  type ArtifactSearchKind,
  type ArtifactSearchRequest,
} from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Checkbox, Form, Input, Table, Tabs } from 'antd';
import { Link, useSearchParams } from 'react-router';
import { formatBytes, formatDate } from '../../packages/packageRules.ts';
import { artifactSearchFromText, effectiveArtifactSearchKind } from '../artifactSearchRules.ts';
import { artifactSearchQueryOptions, artifactSearchStatusQueryOptions } from '../queries.ts';
import '../search.css';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';

const LABELS: Record<ArtifactSearchKind, string> = {
  quick: 'Quick',
  checksum: 'Checksum',
  property: 'Property',
  gavc: 'GAVC',
  archive: 'Archive',
};

type FormValues = Record<string, string | boolean | undefined>;

/** The search a form's values ask for; null when nothing was entered. */
function requestOf(kind: ArtifactSearchKind, v: FormValues): ArtifactSearchRequest | null {
  const s = (k: string) =>
    typeof v[k] === 'string' && (v[k] as string).trim() ? (v[k] as string).trim() : undefined;
  const repos = s('repos')
    ?.split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  let req: ArtifactSearchRequest;
  switch (kind) {
    case 'quick':
      req = { query: s('query') };
      break;
    case 'checksum':
      req = { checksum: s('checksum') };
      break;
    case 'property': {
      const properties = (s('properties') ?? '')
        .split(/[;,]/)
        .map((p) => p.trim())
        .filter(Boolean)
        .map((p) => {
          const eq = p.indexOf('=');
          return eq > 0 ? { key: p.slice(0, eq).trim(), value: p.slice(eq + 1).trim() } : { key: p };
        });
      req = properties.length > 0 ? { properties } : {};
      break;
    }
    case 'gavc':
      req = {
        groupId: s('groupId'),
        artifactId: s('artifactId'),
        version: s('version'),
        classifier: s('classifier'),
      };
      break;
    case 'archive':
      req = {
        query: s('query'),
        path: s('path'),
        searchClassOnly: v.searchClassOnly === true,
        excludeInnerClasses: v.excludeInnerClasses === true,
      };
      break;
  }
  const entered = Object.entries(req).some(([, x]) => typeof x === 'string' || Array.isArray(x));
  if (!entered) return null;
  return repos ? { ...req, repos } : req;
}

const FIELDS: Record<
  ArtifactSearchKind,
  { name: string; label: string; placeholder?: string; width?: number }[]
> = {
  quick: [{ name: 'query', label: 'File name', placeholder: 'lodash-*.tgz (* and ? wildcards)' }],
  checksum: [{ name: 'checksum', label: 'Checksum', placeholder: 'SHA-256, SHA-1 or MD5', width: 480 }],
  property: [{ name: 'properties', label: 'Properties', placeholder: 'key=value, key2=value*' }],
  gavc: [
    { name: 'groupId', label: 'Group ID' },
    { name: 'artifactId', label: 'Artifact ID' },
    { name: 'version', label: 'Version' },
    { name: 'classifier', label: 'Classifier' },
  ],
  archive: [
    { name: 'query', label: 'Entry name', placeholder: 'Foo.class, *.xml' },
    { name: 'path', label: 'Entry path' },
  ],
};

const treeLink = (repoKey: string, path: string) =>
  `/repos/tree/General/${encodeURIComponent(repoKey)}/${path.split('/').map(encodeURIComponent).join('/')}`;

/** `/artifactSearchResults`: quick, checksum, property, GAVC and archive searches; results link to the tree. */
export function ArtifactSearchPage() {
  const [params, setParams] = useSearchParams();
  const status = useQuery(artifactSearchStatusQueryOptions());
  const archiveIndexing = status.data?.archiveIndexing;
  // The toolbar sends `q` in the spec 001 §5 syntax; the page's own forms send `kind` and the fields.
  const fromToolbar = params.has('kind') ? null : artifactSearchFromText(params.get('q') ?? '');
  const requested: ArtifactSearchKind =
    fromToolbar?.kind ??
    ((ARTIFACT_SEARCH_KINDS as readonly string[]).includes(params.get('kind') ?? '')
      ? (params.get('kind') as ArtifactSearchKind)
      : 'quick');
  const kind = effectiveArtifactSearchKind(requested, archiveIndexing);
  const fellBack = kind !== requested;
  const values: FormValues = fromToolbar
    ? { ...fromToolbar.values }
    : (Object.fromEntries(params.entries()) as FormValues);
  if (fellBack && !values.query && typeof values.path === 'string') values.query = values.path;
  values.searchClassOnly = values.searchClassOnly === true || params.get('searchClassOnly') === 'true';
  values.excludeInnerClasses =
    values.excludeInnerClasses === true || params.get('excludeInnerClasses') === 'true';
  const request = requestOf(kind, values);
  // An archive search waits for the status: it may fall back to quick (spec 001 §4).
  const kindKnown = requested !== 'archive' || !status.isPending;
  const results = useQuery({
    ...artifactSearchQueryOptions(kind, request ?? {}),
    enabled: request !== null && kindKnown,
  });

  const submit = (v: FormValues) => {
    const next = new URLSearchParams({ kind });
    for (const [k, x] of Object.entries(v))
      if (x !== undefined && x !== '' && x !== false) next.set(k, String(x));
    setParams(next);
  };

  return (
    <div className="artifact-search-page">
      <h1>Artifact search</h1>
      <Tabs
        activeKey={kind}
        onChange={(k) => setParams(new URLSearchParams({ kind: k }))}
        items={ARTIFACT_SEARCH_KINDS.map((k) => ({
          key: k,
          label: LABELS[k],
          disabled: effectiveArtifactSearchKind(k, archiveIndexing) !== k,
        }))}
      />
      {fellBack && (
        <Alert
          type="info"
          showIcon
          title="Archive indexing is not enabled: searching by file name (Quick) instead"
        />
      )}
      <Form key={`${kind}:${params.toString()}`} layout="inline" initialValues={values} onFinish={submit}>
        {FIELDS[kind].map((f) => (
          <Form.Item key={f.name} name={f.name} label={f.label}>
            <Input placeholder={f.placeholder} style={{ width: f.width ?? 240 }} />
          </Form.Item>
        ))}
        {kind === 'archive' && (
          <>
            <Form.Item name="searchClassOnly" valuePropName="checked">
              <Checkbox>Classes only</Checkbox>
            </Form.Item>
            <Form.Item name="excludeInnerClasses" valuePropName="checked">
              <Checkbox>Exclude inner classes</Checkbox>
            </Form.Item>
          </>
        )}
        <Form.Item name="repos" label="Repositories">
          <Input placeholder="all readable (comma list)" style={{ width: 200 }} />
        </Form.Item>
        <Button type="primary" htmlType="submit">
          Search
        </Button>
      </Form>
      {results.isError && <ErrorAlert error={results.error} />}
      {results.data?.limitReached && (
        <Alert
          type="warning"
          showIcon
          title="Only the first results are shown; refine the search to see the rest"
        />
      )}
      {request && (
        <Table
          rowKey={(r) => `${r.repoKey}/${r.path}/${r.entry ?? ''}`}
          size="middle"
          loading={results.isFetching}
          dataSource={results.data?.results ?? []}
          pagination={{ pageSize: 50, hideOnSinglePage: true }}
          columns={[
            {
              title: 'Name',
              key: 'name',
              render: (_, r) => <Link to={treeLink(r.repoKey, r.path)}>{r.name}</Link>,
            },
            ...(kind === 'archive'
              ? [
                  {
                    title: 'Entry',
                    key: 'entry',
                    render: (_: unknown, r: { entry?: string }) => r.entry ?? '',
                  },
                ]
              : []),
            { title: 'Path', key: 'path', render: (_, r) => `${r.repoKey}/${r.path}` },
            { title: 'Size', key: 'size', align: 'right', render: (_, r) => formatBytes(r.size) },
            { title: 'Modified', key: 'modified', render: (_, r) => formatDate(r.modified) },
          ]}
        />
      )}
    </div>
  );
}
