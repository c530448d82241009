import {
  ANY_LOCAL_REPOSITORY,
  ANY_REMOTE_REPOSITORY,
  ANY_REPOSITORY,
  type PermissionAction,
  type PermissionResource,
  type PermissionTarget,
  type PermissionTargetWrite,
} from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, App, Button, Card, Checkbox, Flex, Form, Input, Segmented, Select, Space, Tabs } from 'antd';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { AdminPage, QueryState } from '../../../shared/components/AdminPage.tsx';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { MANDATORY_MESSAGE } from '../../../shared/forms/rules.ts';
import { PermissionMatrix } from '../components/PermissionMatrix.tsx';
import {
  groupsQueryOptions,
  permissionQueryOptions,
  repositoryKeysQueryOptions,
  usersQueryOptions,
  useSavePermissionMutation,
} from '../queries.ts';

export const RESOURCE_KINDS = ['repo', 'build', 'releaseBundle'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];
export const RESOURCE_LABELS: Record<ResourceKind, string> = {
  repo: 'Repositories',
  build: 'Builds',
  releaseBundle: 'Release Bundles',
};

interface ResourceDraft {
  enabled: boolean;
  repositories: string[];
  include: string[];
  exclude: string[];
  users: Record<string, PermissionAction[]>;
  groups: Record<string, PermissionAction[]>;
}

type Draft = Record<ResourceKind, ResourceDraft>;

function toDraft(resource: PermissionResource | undefined, kind: ResourceKind): ResourceDraft {
  return {
    enabled: resource !== undefined || kind === 'repo',
    repositories: resource?.repositories ?? (kind === 'repo' ? [ANY_REPOSITORY] : []),
    include: resource?.include_patterns ?? ['**'],
    exclude: resource?.exclude_patterns ?? [],
    users: resource?.actions.users ?? {},
    groups: resource?.actions.groups ?? {},
  };
}

/** The write body: only enabled resources, empty action lists dropped. */
export function toPermissionWrite(name: string, draft: Draft): PermissionTargetWrite {
  const clean = (m: Record<string, PermissionAction[]>) =>
    Object.fromEntries(Object.entries(m).filter(([, actions]) => actions.length > 0));
  const body: PermissionTargetWrite = { name };
  for (const kind of RESOURCE_KINDS) {
    const r = draft[kind];
    if (!r.enabled) continue;
    body[kind] = {
      repositories: r.repositories,
      include_patterns: r.include.length > 0 ? r.include : ['**'],
      exclude_patterns: r.exclude,
      actions: { users: clean(r.users), groups: clean(r.groups) },
    };
  }
  return body;
}

const TRAIL: [string, string][] = [['Permissions', '/admin/management/permissions']];

/** spec 000 §2 admin.management.permissions create (/admin/management/permissions/create) and edit. */
export function PermissionFormPage() {
  const { permissionName } = useParams();
  return permissionName ? <EditPermission name={permissionName} /> : <PermissionEditor target={null} />;
}

function EditPermission({ name }: { name: string }) {
  const target = useQuery(permissionQueryOptions(name));
  if (!target.data) {
    return (
      <AdminPage title={`Edit ${name}`} trail={TRAIL}>
        <QueryState
          isPending={target.isPending}
          error={target.error}
          onRetry={() => void target.refetch()}
          what={`permission ${name}`}
        />
      </AdminPage>
    );
  }
  return <PermissionEditor target={target.data} />;
}

function PermissionEditor({ target }: { target: PermissionTarget | null }) {
  const navigate = useNavigate();
  const { message } = App.useApp();
  const users = useQuery(usersQueryOptions());
  const groups = useQuery(groupsQueryOptions());
  const repositories = useQuery(repositoryKeysQueryOptions());
  const save = useSavePermissionMutation();
  const isNew = target === null;
  const [name, setName] = useState(target?.name ?? '');
  const [nameError, setNameError] = useState<string | null>(null);
  const [draft, setDraft] = useState<Draft>(() => ({
    repo: toDraft(target?.repo, 'repo'),
    build: toDraft(target?.build, 'build'),
    releaseBundle: toDraft(target?.releaseBundle, 'releaseBundle'),
  }));
  const [matrixResource, setMatrixResource] = useState<ResourceKind>('repo');
  const enabledKinds = RESOURCE_KINDS.filter((k) => draft[k].enabled);
  const activeMatrix = draft[matrixResource].enabled ? matrixResource : (enabledKinds[0] ?? 'repo');

  const update = (kind: ResourceKind, patch: Partial<ResourceDraft>) =>
    setDraft((d) => ({ ...d, [kind]: { ...d[kind], ...patch } }));

  const onSave = () => {
    const finalName = target?.name ?? name.trim();
    if (finalName === '') {
      setNameError(MANDATORY_MESSAGE);
      return;
    }
    save.mutate(
      { name: finalName, target: toPermissionWrite(finalName, draft) },
      {
        onSuccess: () => {
          message.success(isNew ? `Permission ${finalName} created` : `Permission ${finalName} saved`);
          navigate('/admin/management/permissions');
        },
      },
    );
  };

  const repoOptions = [
    ANY_REPOSITORY,
    ANY_LOCAL_REPOSITORY,
    ANY_REMOTE_REPOSITORY,
    ...(repositories.data ?? []),
  ];
  const resourcesTab = (
    <Flex vertical gap="large">
      {RESOURCE_KINDS.map((kind) => {
        const r = draft[kind];
        return (
          <Card
            key={kind}
            size="small"
            title={
              <Checkbox checked={r.enabled} onChange={(e) => update(kind, { enabled: e.target.checked })}>
                {RESOURCE_LABELS[kind]}
              </Checkbox>
            }
          >
            {r.enabled ? (
              <Form layout="vertical" component="div">
                <Form.Item
                  label={kind === 'repo' ? 'Repositories' : `${RESOURCE_LABELS[kind]} (names or ANY)`}
                  htmlFor={`${kind}-repositories`}
                >
                  <Select
                    id={`${kind}-repositories`}
                    mode="tags"
                    value={r.repositories}
                    options={(kind === 'repo' ? repoOptions : [ANY_REPOSITORY]).map((v) => ({
                      value: v,
                      label: v,
                    }))}
                    onChange={(repositories: string[]) => update(kind, { repositories })}
                    placeholder="Choose or type names"
                  />
                </Form.Item>
                <Form.Item label="Include patterns" htmlFor={`${kind}-include`}>
                  <Select
                    id={`${kind}-include`}
                    mode="tags"
                    value={r.include}
                    onChange={(include: string[]) => update(kind, { include })}
                    placeholder="**"
                    open={false}
                  />
                </Form.Item>
                <Form.Item label="Exclude patterns" htmlFor={`${kind}-exclude`} style={{ marginBottom: 0 }}>
                  <Select
                    id={`${kind}-exclude`}
                    mode="tags"
                    value={r.exclude}
                    onChange={(exclude: string[]) => update(kind, { exclude })}
                    placeholder="None"
                    open={false}
                  />
                </Form.Item>
              </Form>
            ) : (
              <span>Not part of this permission.</span>
            )}
          </Card>
        );
      })}
    </Flex>
  );

  const matrixTab = (kind: 'user' | 'group') => (
    <Flex vertical gap="middle">
      {enabledKinds.length === 0 ? (
        <Alert type="info" showIcon title="Choose at least one resource on the Resources tab." />
      ) : (
        <>
          <Segmented<ResourceKind>
            aria-label="Resource"
            value={activeMatrix}
            onChange={setMatrixResource}
            options={enabledKinds.map((k) => ({ value: k, label: RESOURCE_LABELS[k] }))}
          />
          <PermissionMatrix
            kind={kind}
            value={kind === 'user' ? draft[activeMatrix].users : draft[activeMatrix].groups}
            candidates={
              kind === 'user' ? (users.data ?? []).map((u) => u.name) : (groups.data ?? []).map((g) => g.name)
            }
            onChange={(value) => update(activeMatrix, kind === 'user' ? { users: value } : { groups: value })}
          />
        </>
      )}
    </Flex>
  );

  return (
    <AdminPage title={isNew ? 'New Permission' : `Edit ${target.name}`} trail={TRAIL}>
      <Card variant="borderless">
        {save.isError && <ErrorAlert error={save.error} style={{ marginBottom: 16 }} />}
        {isNew && (
          <Form layout="vertical" component="div" style={{ maxWidth: 420 }}>
            <Form.Item
              label="Permission name"
              htmlFor="permission-name"
              required
              validateStatus={nameError ? 'error' : undefined}
              help={nameError ?? undefined}
            >
              <Input
                id="permission-name"
                value={name}
                maxLength={128}
                onChange={(e) => {
                  setName(e.target.value);
                  setNameError(null);
                }}
              />
            </Form.Item>
          </Form>
        )}
        <Tabs
          items={[
            { key: 'resources', label: 'Resources', children: resourcesTab },
            { key: 'users', label: 'Users', children: matrixTab('user') },
            { key: 'groups', label: 'Groups', children: matrixTab('group') },
          ]}
        />
        <Space style={{ marginTop: 24 }}>
          <Button type="primary" onClick={onSave} loading={save.isPending}>
            {isNew ? 'Create Permission' : 'Save'}
          </Button>
          <Button onClick={() => navigate('/admin/management/permissions')}>Cancel</Button>
        </Space>
      </Card>
    </AdminPage>
  );
}
