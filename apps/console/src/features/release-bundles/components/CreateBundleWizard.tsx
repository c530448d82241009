import { bundleNameSchema, bundleVersionSchema } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import {
  App,
  Button,
  Checkbox,
  Descriptions,
  Flex,
  Form,
  Input,
  Modal,
  Radio,
  Select,
  Space,
  Steps,
  Typography,
} from 'antd';
import { useState } from 'react';
import { Link } from 'react-router';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { zodRule } from '../../../shared/forms/zodRule.ts';
import { buildHistoryQueryOptions, buildNamesQueryOptions } from '../../builds/queries.ts';
import {
  bundleNamesQueryOptions,
  bundleVersionsQueryOptions,
  signingKeysQueryOptions,
  useCreateBundleMutation,
} from '../queries.ts';
import {
  createBundleBody,
  hasSourceItems,
  SOURCE_TYPE_LABELS,
  WIZARD_SOURCE_TYPES,
  type WizardForm,
} from '../rules.ts';

const EMPTY: WizardForm = {
  name: '',
  version: '',
  signingKey: '',
  sourceType: 'artifacts',
  artifacts: '',
  builds: [],
  bundles: [],
  packages: [],
};

function BuildPicker({ onAdd }: { onAdd: (b: WizardForm['builds'][number]) => void }) {
  const [name, setName] = useState<string>();
  const [number, setNumber] = useState<string>();
  const [deps, setDeps] = useState(false);
  const names = useQuery(buildNamesQueryOptions(''));
  const runs = useQuery({ ...buildHistoryQueryOptions(name ?? ''), enabled: Boolean(name) });
  return (
    <Space wrap>
      <Select
        aria-label="Build name"
        placeholder="Build name"
        style={{ minWidth: 200 }}
        value={name}
        onChange={(v) => {
          setName(v);
          setNumber(undefined);
        }}
        options={(names.data ?? []).map((b) => ({ value: b.name, label: b.name }))}
      />
      <Select
        aria-label="Build number"
        placeholder="Number"
        style={{ minWidth: 120 }}
        value={number}
        onChange={setNumber}
        options={(runs.data?.runs ?? []).map((r) => ({ value: r.number, label: `#${r.number}` }))}
      />
      <Checkbox checked={deps} onChange={(e) => setDeps(e.target.checked)}>
        With dependencies
      </Checkbox>
      <Button
        disabled={!name || !number}
        onClick={() => name && number && onAdd({ name, number, includeDependencies: deps })}
      >
        Add build
      </Button>
    </Space>
  );
}

function BundlePicker({ onAdd }: { onAdd: (b: WizardForm['bundles'][number]) => void }) {
  const [name, setName] = useState<string>();
  const [version, setVersion] = useState<string>();
  const names = useQuery(bundleNamesQueryOptions());
  const versions = useQuery({ ...bundleVersionsQueryOptions(name ?? ''), enabled: Boolean(name) });
  return (
    <Space wrap>
      <Select
        aria-label="Release bundle"
        placeholder="Release bundle"
        style={{ minWidth: 200 }}
        value={name}
        onChange={(v) => {
          setName(v);
          setVersion(undefined);
        }}
        options={(names.data?.release_bundles ?? []).map((b) => ({
          value: b.release_bundle_name,
          label: b.release_bundle_name,
        }))}
      />
      <Select
        aria-label="Release bundle version"
        placeholder="Version"
        style={{ minWidth: 120 }}
        value={version}
        onChange={setVersion}
        options={(versions.data?.release_bundles ?? []).map((b) => ({
          value: b.release_bundle_version,
          label: b.release_bundle_version,
        }))}
      />
      <Button disabled={!name || !version} onClick={() => name && version && onAdd({ name, version })}>
        Add bundle
      </Button>
    </Space>
  );
}

function PackagePicker({ onAdd }: { onAdd: (p: WizardForm['packages'][number]) => void }) {
  const [p, setP] = useState({ type: '', name: '', version: '', repoKey: '' });
  const field = (key: keyof typeof p, label: string, width = 140) => (
    <Input
      aria-label={label}
      placeholder={label}
      style={{ width }}
      value={p[key]}
      onChange={(e) => setP({ ...p, [key]: e.target.value })}
    />
  );
  return (
    <Space wrap>
      {field('type', 'Package type', 110)}
      {field('name', 'Package name', 180)}
      {field('version', 'Package version', 120)}
      {field('repoKey', 'Repository', 160)}
      <Button
        disabled={!p.name.trim() || !p.version.trim() || !p.repoKey.trim()}
        onClick={() => {
          onAdd({ ...p });
          setP({ type: p.type, name: '', version: '', repoKey: p.repoKey });
        }}
      >
        Add package
      </Button>
    </Space>
  );
}

/**
 * Issue 19 create wizard: name and version (the `[A-Za-z0-9_.-]`, ≤ 255 rule), signing key; the source type
 * (artifacts, builds, other bundles, package versions) and its items; a review; then the server signs the
 * manifest. Errors are the server's.
 */
export function CreateBundleWizard({
  onClose,
  onCreated,
}: {
  onClose: () => void;
  onCreated: (name: string, version: string) => void;
}) {
  const { message } = App.useApp();
  const [step, setStep] = useState(0);
  const [form, setForm] = useState<WizardForm>(EMPTY);
  const [details] = Form.useForm<{ name: string; version: string; signingKey: string }>();
  const keys = useQuery(signingKeysQueryOptions());
  const create = useCreateBundleMutation();
  const set = (patch: Partial<WizardForm>) => setForm((f) => ({ ...f, ...patch }));

  const next = async () => {
    if (step === 0) {
      // A refused field shows its message under the field; the wizard stays on this step.
      const values = await details.validateFields().catch(() => null);
      if (!values) return;
      set(values);
    }
    setStep((s) => s + 1);
  };
  const submit = () =>
    create.mutate(
      { body: createBundleBody(form), signingKey: form.signingKey },
      {
        onSuccess: (created) => {
          message.success(
            `Release bundle ${created.release_bundle_name} ${created.release_bundle_version} created`,
          );
          onCreated(created.release_bundle_name, created.release_bundle_version);
        },
      },
    );

  const items =
    form.sourceType === 'builds'
      ? form.builds.map((b, i) => ({
          key: `${i}`,
          text: `${b.name} #${b.number}${b.includeDependencies ? ' with dependencies' : ''}`,
        }))
      : form.sourceType === 'release_bundles'
        ? form.bundles.map((b, i) => ({ key: `${i}`, text: `${b.name} ${b.version}` }))
        : form.sourceType === 'packages'
          ? form.packages.map((p, i) => ({
              key: `${i}`,
              text: `${p.type ? `${p.type}: ` : ''}${p.name} ${p.version} in ${p.repoKey}`,
            }))
          : [];
  const remove = (index: number) => {
    if (form.sourceType === 'builds') set({ builds: form.builds.filter((_, i) => i !== index) });
    if (form.sourceType === 'release_bundles') set({ bundles: form.bundles.filter((_, i) => i !== index) });
    if (form.sourceType === 'packages') set({ packages: form.packages.filter((_, i) => i !== index) });
  };

  return (
    <Modal
      open
      width={760}
      title="Create Release Bundle"
      onCancel={onClose}
      footer={
        <Space>
          <Button onClick={onClose}>Cancel</Button>
          {step > 0 && <Button onClick={() => setStep((s) => s - 1)}>Back</Button>}
          {step < 2 && (
            <Button type="primary" onClick={next} disabled={step === 1 && !hasSourceItems(form)}>
              Next
            </Button>
          )}
          {step === 2 && (
            <Button type="primary" loading={create.isPending} onClick={submit}>
              Create
            </Button>
          )}
        </Space>
      }
    >
      <Steps
        size="small"
        current={step}
        style={{ marginBottom: 24 }}
        items={[{ title: 'Details' }, { title: 'Source' }, { title: 'Review' }]}
      />
      <div hidden={step !== 0}>
        <Form
          form={details}
          layout="vertical"
          initialValues={{ name: '', version: '', signingKey: undefined }}
        >
          <Form.Item name="name" label="Name" rules={[zodRule(bundleNameSchema)]}>
            <Input />
          </Form.Item>
          <Form.Item name="version" label="Version" rules={[zodRule(bundleVersionSchema)]}>
            <Input />
          </Form.Item>
          <Form.Item
            name="signingKey"
            label="Signing key"
            rules={[{ required: true, message: 'Choose the key that signs the manifest' }]}
            extra={
              keys.data?.length === 0 ? (
                <>
                  No signing key yet: <Link to="/admin/security/signing_keys">create one</Link>.
                </>
              ) : undefined
            }
          >
            <Select
              loading={keys.isPending}
              options={(keys.data ?? []).map((k) => ({
                value: k.pairName,
                label: `${k.pairName} (${k.keyId})`,
              }))}
            />
          </Form.Item>
        </Form>
      </div>
      {step === 1 && (
        <Flex vertical gap="middle">
          <Radio.Group
            aria-label="Source type"
            optionType="button"
            value={form.sourceType}
            onChange={(e) => set({ sourceType: e.target.value })}
            options={WIZARD_SOURCE_TYPES.map((t) => ({ value: t, label: SOURCE_TYPE_LABELS[t] }))}
          />
          {form.sourceType === 'artifacts' ? (
            <Form layout="vertical">
              <Form.Item label="Artifacts, one repository/path per line" htmlFor="bundle-artifacts">
                <Input.TextArea
                  id="bundle-artifacts"
                  rows={6}
                  placeholder="libs-release-local/com/acme/app/1.0/app-1.0.jar"
                  value={form.artifacts}
                  onChange={(e) => set({ artifacts: e.target.value })}
                />
              </Form.Item>
            </Form>
          ) : (
            <>
              {form.sourceType === 'builds' && (
                <BuildPicker onAdd={(b) => set({ builds: [...form.builds, b] })} />
              )}
              {form.sourceType === 'release_bundles' && (
                <BundlePicker onAdd={(b) => set({ bundles: [...form.bundles, b] })} />
              )}
              {form.sourceType === 'packages' && (
                <PackagePicker onAdd={(p) => set({ packages: [...form.packages, p] })} />
              )}
              <ul aria-label="Chosen sources" className="bundle-wizard-sources">
                {items.length === 0 && <li>Nothing chosen yet</li>}
                {items.map((item, index) => (
                  <li key={item.key}>
                    {item.text}{' '}
                    <Button type="link" size="small" onClick={() => remove(index)}>
                      Remove
                    </Button>
                  </li>
                ))}
              </ul>
            </>
          )}
        </Flex>
      )}
      {step === 2 && (
        <Flex vertical gap="middle">
          <Descriptions
            bordered
            size="small"
            column={1}
            items={[
              { key: 'name', label: 'Name', children: form.name },
              { key: 'version', label: 'Version', children: form.version },
              { key: 'key', label: 'Signing key', children: form.signingKey },
              { key: 'type', label: 'Source type', children: SOURCE_TYPE_LABELS[form.sourceType] },
              {
                key: 'items',
                label: 'Sources',
                children:
                  form.sourceType === 'artifacts' ? (
                    <Typography.Text style={{ whiteSpace: 'pre-wrap' }}>
                      {form.artifacts.trim()}
                    </Typography.Text>
                  ) : (
                    items.map((i) => <div key={i.key}>{i.text}</div>)
                  ),
              },
            ]}
          />
          <Typography.Text type="secondary">
            The server resolves every file, writes the manifest (path and SHA-256 of each) and signs it. The
            bundle cannot be changed afterwards.
          </Typography.Text>
          {create.error && <ErrorAlert error={create.error} />}
        </Flex>
      )}
    </Modal>
  );
}
