import { PlusOutlined } from '@ant-design/icons';
import { SIGNING_KEY_ALGORITHMS } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Empty, Form, Input, Modal, Popconfirm, Radio, Select, Table, Typography } from 'antd';
import { useState } from 'react';
import { AdminPage } from '../../../../shared/components/AdminPage.tsx';
import { ErrorAlert } from '../../../../shared/components/ErrorAlert.tsx';
import {
  signingKeysQueryOptions,
  useCreateSigningKeyMutation,
  useDeleteSigningKeyMutation,
} from '../../queries.ts';

interface KeyForm {
  mode: 'generate' | 'import';
  pairName: string;
  alias?: string;
  algorithm: (typeof SIGNING_KEY_ALGORITHMS)[number];
  userName?: string;
  email?: string;
  privateKey?: string;
  passphrase?: string;
}

/**
 * Issue 19 signing keys (Artifactory: Administration → Security → Keys Management → Signing Keys): GPG key pairs
 * that sign release bundle manifests. Generated on the server or imported; the private key and passphrase are
 * write-only (sealed at rest), the public key is shown to copy for targets.
 */
export function SigningKeysPage() {
  const { message } = App.useApp();
  const keys = useQuery(signingKeysQueryOptions());
  const create = useCreateSigningKeyMutation();
  const remove = useDeleteSigningKeyMutation();
  const [open, setOpen] = useState(false);
  const [form] = Form.useForm<KeyForm>();
  const mode = Form.useWatch('mode', form) ?? 'generate';
  const submit = async () => {
    const v = await form.validateFields();
    const body =
      v.mode === 'import'
        ? {
            pairName: v.pairName,
            alias: v.alias || undefined,
            privateKey: v.privateKey ?? '',
            passphrase: v.passphrase || undefined,
          }
        : {
            pairName: v.pairName,
            alias: v.alias || undefined,
            algorithm: v.algorithm,
            userName: v.userName || undefined,
            email: v.email || undefined,
          };
    create.mutate(body, {
      onSuccess: (k) => {
        message.success(`Signing key ${k.pairName} ${v.mode === 'import' ? 'imported' : 'created'}`);
        setOpen(false);
        form.resetFields();
      },
    });
  };
  return (
    <AdminPage
      title="Signing Keys"
      trail={[['Security', '/admin/artifactory/list']]}
      extra={
        <Button type="primary" icon={<PlusOutlined aria-hidden />} onClick={() => setOpen(true)}>
          Add signing key
        </Button>
      }
    >
      {keys.error && <ErrorAlert error={keys.error} />}
      <Table
        rowKey="pairName"
        loading={keys.isPending}
        dataSource={keys.data ?? []}
        locale={{ emptyText: <Empty description="No signing keys: release bundles need one to be signed" /> }}
        expandable={{
          expandedRowRender: (k) => (
            <Typography.Paragraph copyable={{ text: k.publicKey }} aria-label={`Public key of ${k.pairName}`}>
              <pre style={{ fontSize: 12, margin: 0 }}>{k.publicKey}</pre>
            </Typography.Paragraph>
          ),
        }}
        columns={[
          { title: 'Name', dataIndex: 'pairName', key: 'name' },
          { title: 'Key ID', key: 'id', render: (_, k) => <Typography.Text code>{k.keyId}</Typography.Text> },
          { title: 'Algorithm', dataIndex: 'algorithm', key: 'alg' },
          { title: 'User ID', dataIndex: 'userId', key: 'uid' },
          {
            title: 'Public key',
            key: 'public',
            render: (_, k) => (
              <Typography.Text copyable={{ text: k.publicKey, tooltips: ['Copy public key', 'Copied'] }}>
                <a href={`/api/security/keypair/${encodeURIComponent(k.pairName)}/public`}>Download</a>
              </Typography.Text>
            ),
          },
          { title: 'Created', key: 'created', render: (_, k) => new Date(k.created).toLocaleString() },
          {
            title: '',
            key: 'delete',
            render: (_, k) => (
              <Popconfirm
                title={`Delete signing key ${k.pairName}?`}
                description="Bundles it signed keep their signature; new bundles cannot use it."
                okText="Delete"
                okButtonProps={{ danger: true }}
                onConfirm={() => remove.mutate(k.pairName)}
              >
                <Button danger size="small">
                  Delete
                </Button>
              </Popconfirm>
            ),
          },
        ]}
      />
      {remove.error && <ErrorAlert error={remove.error} />}
      <Modal
        open={open}
        title="Add signing key"
        okText={mode === 'import' ? 'Import' : 'Generate'}
        okButtonProps={{ loading: create.isPending }}
        onOk={submit}
        onCancel={() => setOpen(false)}
      >
        <Form form={form} layout="vertical" initialValues={{ mode: 'generate', algorithm: 'curve25519' }}>
          <Form.Item name="mode" label="How">
            <Radio.Group
              options={[
                { value: 'generate', label: 'Generate a new key pair' },
                { value: 'import', label: 'Import a GPG key pair' },
              ]}
            />
          </Form.Item>
          <Form.Item
            name="pairName"
            label="Name"
            rules={[
              { required: true, message: 'A name is required' },
              { pattern: /^[A-Za-z0-9_.-]+$/, message: 'Only letters, digits, "_", "." and "-"' },
              { max: 64, message: 'At most 64 characters' },
            ]}
          >
            <Input />
          </Form.Item>
          <Form.Item name="alias" label="Alias">
            <Input />
          </Form.Item>
          {mode === 'generate' ? (
            <>
              <Form.Item name="algorithm" label="Algorithm">
                <Select options={SIGNING_KEY_ALGORITHMS.map((a) => ({ value: a, label: a }))} />
              </Form.Item>
              <Form.Item name="userName" label="User name">
                <Input placeholder="Granary" />
              </Form.Item>
              <Form.Item name="email" label="Email">
                <Input placeholder="release@granary.local" />
              </Form.Item>
            </>
          ) : (
            <>
              <Form.Item
                name="privateKey"
                label="Armored private key"
                rules={[{ required: true, message: 'Paste the armored private key' }]}
              >
                <Input.TextArea
                  rows={6}
                  placeholder="-----BEGIN PGP PRIVATE KEY BLOCK-----"
                  autoComplete="off"
                />
              </Form.Item>
              <Form.Item name="passphrase" label="Passphrase">
                <Input.Password autoComplete="new-password" />
              </Form.Item>
            </>
          )}
        </Form>
        {create.error && <ErrorAlert error={create.error} />}
      </Modal>
    </AdminPage>
  );
}
