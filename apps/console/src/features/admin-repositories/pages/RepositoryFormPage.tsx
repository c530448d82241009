import {
  isMavenLike,
  type PackageTypeInfo,
  type Repository,
  type RepositoryWrite,
  remoteUrlSchema,
  repositoryKeySchema,
} from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import {
  App,
  Button,
  Card,
  Checkbox,
  Empty,
  Form,
  Input,
  InputNumber,
  Select,
  Skeleton,
  Space,
  Typography,
} from 'antd';
import { Link, Navigate, useNavigate, useParams, useSearchParams } from 'react-router';
import { AdminPage } from '../../../shared/components/AdminPage.tsx';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { PackageTypeIcon } from '../../../shared/components/PackageTypeIcon.tsx';
import { mandatoryText } from '../../../shared/forms/rules.ts';
import { zodRule } from '../../../shared/forms/zodRule.ts';
import { proxiesQueryOptions } from '../../admin-proxies/queries.ts';
import {
  packageTypesQueryOptions,
  repositoryListQueryOptions,
  repositoryQueryOptions,
  useSaveRepositoryMutation,
} from '../queries.ts';
import './NewRepository.css';
import { RepositoryQuotaCard } from '../../storage/components/RepositoryQuotaCard.tsx';

type RClass = 'local' | 'remote' | 'virtual';
const RCLASSES: readonly string[] = ['local', 'remote', 'virtual'];
const TITLE: Record<RClass, string> = { local: 'Local', remote: 'Remote', virtual: 'Virtual' };
const LIST = '/admin/repositories';

/** The proxy choice that means "connect directly" (a proxy key never starts with a space). */
const NO_PROXY = ' none';

interface RepositoryForm {
  key: string;
  description: string;
  notes: string;
  includesPattern: string;
  excludesPattern: string;
  url: string;
  username: string;
  password: string;
  /** A configured proxy's key; '' the default proxy; NO_PROXY direct (`disableProxy`, issue 15). */
  proxy: string;
  offline: boolean;
  retrievalCachePeriodSecs: number;
  missedRetrievalCachePeriodSecs: number;
  storeArtifactsLocally: boolean;
  namespaceConfusionProtection: boolean;
  repositories: string[];
  defaultDeploymentRepo: string | null;
  allowRemoteOverride: boolean;
  handleReleases: boolean;
  handleSnapshots: boolean;
  allowReleaseRedeploy: boolean;
}

/**
 * spec 000 §2 admin.repositories.new and .edit; the user menu's /admin/repositories/{local,remote,virtual}/new.
 * Creation is a short flow: the kind (from the URL) → the package type grid → the form for that type.
 */
export function RepositoryFormPage() {
  const { rclass = '', repoKey } = useParams();
  const [search, setSearch] = useSearchParams();
  if (!RCLASSES.includes(rclass)) return <Navigate to="/admin/repositories/new" replace />;
  const kind = rclass as RClass;
  if (repoKey) return <EditRepository rclass={kind} repoKey={repoKey} />;
  const packageType = search.get('packageType');
  if (!packageType) return <PackageTypeStep rclass={kind} onPick={(id) => setSearch({ packageType: id })} />;
  return <RepositoryEditor rclass={kind} packageType={packageType} repository={null} />;
}

function PackageTypeStep({ rclass, onPick }: { rclass: RClass; onPick: (id: string) => void }) {
  const types = useQuery(packageTypesQueryOptions());
  const offered = (types.data ?? []).filter((t: PackageTypeInfo) => t.classes.includes(rclass));
  return (
    <AdminPage
      title={`New ${TITLE[rclass]} Repository`}
      trail={[
        ['Repositories', LIST],
        ['New Repository', '/admin/repositories/new'],
      ]}
    >
      <Card variant="borderless">
        <Typography.Paragraph>Select a package type</Typography.Paragraph>
        {types.isPending && <Skeleton active />}
        {types.isError && <ErrorAlert error={types.error} />}
        {types.data && offered.length === 0 && (
          <Empty description={`No package type has ${rclass} repositories`} />
        )}
        <div className="package-type-grid">
          {offered.map((t) => (
            <button key={t.id} type="button" className="package-type-card" onClick={() => onPick(t.id)}>
              <PackageTypeIcon icon={t.icon} />
              <span>{t.displayName}</span>
            </button>
          ))}
        </div>
      </Card>
    </AdminPage>
  );
}

function EditRepository({ rclass, repoKey }: { rclass: RClass; repoKey: string }) {
  const repo = useQuery(repositoryQueryOptions(repoKey));
  if (!repo.data) {
    return (
      <AdminPage title={`Edit ${repoKey}`} trail={[['Repositories', LIST]]}>
        {repo.isError ? (
          <ErrorAlert title={`Could not load repository ${repoKey}`} error={repo.error} />
        ) : (
          <Skeleton active />
        )}
      </AdminPage>
    );
  }
  if (repo.data.rclass !== rclass)
    return (
      <Navigate to={`/admin/repositories/${repo.data.rclass}/${encodeURIComponent(repoKey)}/edit`} replace />
    );
  return <RepositoryEditor rclass={rclass} packageType={repo.data.packageType} repository={repo.data} />;
}

const periodRule = { type: 'number' as const, min: 0, message: 'Must be 0 or more seconds' };

function RepositoryEditor({
  rclass,
  packageType,
  repository,
}: {
  rclass: RClass;
  packageType: string;
  repository: Repository | null;
}) {
  const navigate = useNavigate();
  const { message } = App.useApp();
  const save = useSaveRepositoryMutation();
  const all = useQuery({ ...repositoryListQueryOptions(), enabled: rclass === 'virtual' });
  const proxies = useQuery({ ...proxiesQueryOptions(), enabled: rclass === 'remote' });
  const [form] = Form.useForm<RepositoryForm>();
  const members = Form.useWatch('repositories', form) ?? [];
  const isNew = repository === null;
  const title = isNew ? `New ${TITLE[rclass]} Repository` : `Edit ${repository.key}`;

  const candidates = (all.data ?? []).filter(
    (r) => r.packageType === packageType && r.key !== repository?.key,
  );
  const localMembers = candidates.filter((r) => r.type === 'LOCAL' && members.includes(r.key));

  const onFinish = (v: RepositoryForm) => {
    const key = repository?.key ?? v.key.trim();
    const body: RepositoryWrite = {
      ...(isNew ? { key, rclass, packageType } : {}),
      description: v.description,
      notes: v.notes,
      includesPattern: v.includesPattern,
      excludesPattern: v.excludesPattern,
    };
    if (rclass === 'remote') {
      Object.assign(body, {
        url: v.url.trim(),
        username: v.username,
        proxy: v.proxy === NO_PROXY ? '' : v.proxy,
        disableProxy: v.proxy === NO_PROXY,
        offline: v.offline,
        retrievalCachePeriodSecs: v.retrievalCachePeriodSecs,
        missedRetrievalCachePeriodSecs: v.missedRetrievalCachePeriodSecs,
        storeArtifactsLocally: v.storeArtifactsLocally,
        namespaceConfusionProtection: v.namespaceConfusionProtection,
      });
      // An empty password on edit keeps the stored one.
      if (v.password || isNew) body.password = v.password;
    }
    if (isMavenLike(packageType))
      Object.assign(body, {
        handleReleases: v.handleReleases,
        handleSnapshots: v.handleSnapshots,
        ...(rclass === 'local' ? { allowReleaseRedeploy: v.allowReleaseRedeploy } : {}),
      });
    if (rclass === 'virtual')
      Object.assign(body, {
        repositories: v.repositories,
        defaultDeploymentRepo: v.repositories.includes(v.defaultDeploymentRepo ?? '')
          ? v.defaultDeploymentRepo
          : null,
        allowRemoteOverride: v.allowRemoteOverride,
      });
    save.mutate(
      { key, body, create: isNew },
      {
        onSuccess: () => {
          message.success(isNew ? `Repository ${key} created` : `Repository ${key} saved`);
          navigate(LIST);
        },
      },
    );
  };

  return (
    <AdminPage title={title} trail={[['Repositories', LIST]]}>
      <Card variant="borderless">
        <Space style={{ marginBottom: 16 }}>
          <PackageTypeIcon icon={packageType} size={20} />
          <Typography.Text>
            {TITLE[rclass]} · {packageType}
          </Typography.Text>
          {isNew && <Link to={`/admin/repositories/${rclass}/new`}>Change package type</Link>}
        </Space>
        {save.isError && <ErrorAlert error={save.error} style={{ marginBottom: 16 }} />}
        <Form<RepositoryForm>
          form={form}
          layout="vertical"
          style={{ maxWidth: 620 }}
          disabled={save.isPending}
          onFinish={onFinish}
          initialValues={{
            key: '',
            description: repository?.description ?? '',
            notes: repository?.notes ?? '',
            includesPattern: repository?.includesPattern ?? '**/*',
            excludesPattern: repository?.excludesPattern ?? '',
            url: repository?.url ?? '',
            username: repository?.username ?? '',
            password: '',
            proxy: repository?.disableProxy ? NO_PROXY : (repository?.proxy ?? ''),
            offline: repository?.offline ?? false,
            retrievalCachePeriodSecs: repository?.retrievalCachePeriodSecs ?? 7200,
            missedRetrievalCachePeriodSecs: repository?.missedRetrievalCachePeriodSecs ?? 1800,
            storeArtifactsLocally: repository?.storeArtifactsLocally ?? true,
            namespaceConfusionProtection: repository?.namespaceConfusionProtection ?? true,
            repositories: repository?.repositories ?? [],
            defaultDeploymentRepo: repository?.defaultDeploymentRepo ?? null,
            allowRemoteOverride: repository?.allowRemoteOverride ?? false,
            handleReleases: repository?.handleReleases ?? true,
            handleSnapshots: repository?.handleSnapshots ?? true,
            allowReleaseRedeploy: repository?.allowReleaseRedeploy ?? false,
          }}
        >
          {isNew && (
            <Form.Item
              label="Repository Key"
              name="key"
              required
              rules={[zodRule(mandatoryText), zodRule(repositoryKeySchema)]}
            >
              <Input autoComplete="off" />
            </Form.Item>
          )}
          {rclass === 'remote' && (
            <>
              <Form.Item
                label="URL"
                name="url"
                required
                rules={[zodRule(mandatoryText), zodRule(remoteUrlSchema)]}
              >
                <Input autoComplete="off" placeholder="https://example.com/files" />
              </Form.Item>
              <Form.Item label="User Name" name="username">
                <Input autoComplete="off" />
              </Form.Item>
              <Form.Item
                label="Password"
                name="password"
                extra={isNew ? undefined : 'Leave empty to keep the stored password'}
              >
                <Input.Password autoComplete="new-password" />
              </Form.Item>
              <Form.Item label="Proxy" name="proxy">
                <Select
                  aria-label="Proxy"
                  loading={proxies.isPending}
                  options={[
                    { value: '', label: 'Default proxy' },
                    { value: NO_PROXY, label: 'No proxy (connect directly)' },
                    ...(proxies.data ?? []).map((p) => ({
                      value: p.key,
                      label: `${p.key} (${p.host}:${p.port})`,
                    })),
                  ]}
                />
              </Form.Item>
              <Form.Item name="offline" valuePropName="checked">
                <Checkbox>Offline (serve only what is cached)</Checkbox>
              </Form.Item>
              <Form.Item
                label="Metadata Retrieval Cache Period (seconds)"
                name="retrievalCachePeriodSecs"
                rules={[periodRule]}
              >
                <InputNumber min={0} style={{ width: 200 }} />
              </Form.Item>
              <Form.Item
                label="Missed Retrieval Cache Period (seconds)"
                name="missedRetrievalCachePeriodSecs"
                rules={[periodRule]}
              >
                <InputNumber min={0} style={{ width: 200 }} />
              </Form.Item>
              <Form.Item name="storeArtifactsLocally" valuePropName="checked">
                <Checkbox>Store artifacts locally (off: stream from the upstream without caching)</Checkbox>
              </Form.Item>
              <Form.Item
                name="namespaceConfusionProtection"
                valuePropName="checked"
                extra="On (recommended): through a virtual repository, a package that a local member holds (another version included) is never asked of this upstream"
              >
                <Checkbox>Namespace confusion protection</Checkbox>
              </Form.Item>
            </>
          )}
          {rclass === 'virtual' && (
            <>
              <Form.Item label="Repositories" name="repositories" extra="Resolved in this order">
                <Select
                  mode="multiple"
                  aria-label="Repositories"
                  loading={all.isPending}
                  options={candidates.map((r) => ({
                    value: r.key,
                    label: `${r.key} (${r.type.toLowerCase()})`,
                  }))}
                  placeholder="No repositories"
                />
              </Form.Item>
              <Form.Item label="Default Deployment Repository" name="defaultDeploymentRepo">
                <Select
                  aria-label="Default Deployment Repository"
                  allowClear
                  placeholder="None"
                  options={localMembers.map((r) => ({ value: r.key, label: r.key }))}
                />
              </Form.Item>
              <Form.Item
                name="allowRemoteOverride"
                valuePropName="checked"
                extra="Off (recommended): a path that exists in a local member is never taken from a remote member (dependency confusion)"
              >
                <Checkbox>Allow remote members to override local artifacts</Checkbox>
              </Form.Item>
            </>
          )}
          {isMavenLike(packageType) && (
            <>
              <Form.Item name="handleReleases" valuePropName="checked">
                <Checkbox>Handle releases</Checkbox>
              </Form.Item>
              <Form.Item name="handleSnapshots" valuePropName="checked">
                <Checkbox>Handle snapshots</Checkbox>
              </Form.Item>
              {rclass === 'local' && (
                <Form.Item
                  name="allowReleaseRedeploy"
                  valuePropName="checked"
                  extra="Off (recommended): a deployed release never changes; a second deploy is refused"
                >
                  <Checkbox>Allow redeploying releases</Checkbox>
                </Form.Item>
              )}
            </>
          )}
          <Form.Item label="Description" name="description">
            <Input.TextArea rows={2} maxLength={2000} />
          </Form.Item>
          <Form.Item label="Notes" name="notes">
            <Input.TextArea rows={3} maxLength={20000} />
          </Form.Item>
          <Form.Item label="Include Patterns" name="includesPattern" extra="Comma-separated, e.g. **/*">
            <Input autoComplete="off" />
          </Form.Item>
          <Form.Item label="Exclude Patterns" name="excludesPattern">
            <Input autoComplete="off" />
          </Form.Item>
          <Space>
            <Button type="primary" htmlType="submit" loading={save.isPending}>
              {isNew ? 'Create Repository' : 'Save'}
            </Button>
            <Button onClick={() => navigate(LIST)}>Cancel</Button>
          </Space>
        </Form>
      </Card>
      {!isNew && rclass === 'local' && <RepositoryQuotaCard repoKey={repository.key} />}
    </AdminPage>
  );
}
