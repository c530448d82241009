import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Col, Flex, Form, Input, Modal, Row, Select, Tabs, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useSession } from '../../../shared/session/SessionProvider.tsx';
import { apiKeyInfoQueryOptions, useFetchApiKeyMutation } from '../../profile/queries.ts';
import {
  API_KEY_PLACEHOLDER,
  type CommandContext,
  normaliseBaseUrl,
  OPERATING_SYSTEMS,
  type OperatingSystem,
  type ToolCard,
} from '../toolCards.ts';
import { npmRepositoriesQueryOptions, setMeUpBaseUrlQueryOptions } from '../toolQueries.ts';

/** The first OS tab: the one the browser runs on. */
function browserOs(): OperatingSystem {
  const platform = typeof navigator === 'undefined' ? '' : navigator.userAgent;
  if (/Windows/i.test(platform)) return 'windows';
  if (/Mac OS X|Macintosh/i.test(platform)) return 'macos';
  return 'linux';
}

/**
 * spec 001 §2 Developer Tools / Continuous Integration card modal: feature highlights, a screenshot, installation
 * steps with a terminal command per OS, marketplace and documentation links, the user's API key and the base URL
 * (§7 `GET ui/setMeUp` baseUrl, trailing slash normalised; `GET /ui/userApiKey`; a new key from `GET apiKey/{name}`
 * with re-authentication). An API key fetch failure is logged and the modal still opens (§8).
 */
export function ToolModal({ card, onClose }: { card: ToolCard | null; onClose: () => void }) {
  return (
    <Modal
      open={card !== null}
      onCancel={onClose}
      footer={null}
      width={860}
      title={card ? `${card.name} integration` : ''}
      destroyOnHidden
    >
      {card && <ToolDetails card={card} />}
    </Modal>
  );
}

function ToolDetails({ card }: { card: ToolCard }) {
  const user = useSession().user;
  const username = user?.name ?? '';
  const base = useQuery(setMeUpBaseUrlQueryOptions());
  const keyInfo = useQuery(apiKeyInfoQueryOptions());
  const repos = useQuery({ ...npmRepositoriesQueryOptions(), enabled: card.usesRepository });
  const fetchKey = useFetchApiKeyMutation();
  const [os, setOs] = useState<OperatingSystem>(browserOs);
  const [repoKey, setRepoKey] = useState<string | undefined>(undefined);
  const [form] = Form.useForm<{ password: string }>();

  const baseUrl = normaliseBaseUrl(base.data ?? window.location.origin);
  const chosenRepo = repoKey ?? repos.data?.[0] ?? 'npm';
  const ctx: CommandContext = useMemo(
    () => ({ baseUrl, username, apiKey: fetchKey.data?.apiKey ?? null, repoKey: chosenRepo }),
    [baseUrl, username, fetchKey.data, chosenRepo],
  );

  return (
    <Flex vertical gap="middle">
      <Row gutter={24}>
        <Col xs={24} md={12}>
          <Typography.Paragraph>{card.summary}</Typography.Paragraph>
          <Typography.Title level={3} style={{ fontSize: 16 }}>
            Highlights
          </Typography.Title>
          <ul className="integration-highlights">
            {card.highlights.map((h) => (
              <li key={h}>{h}</li>
            ))}
          </ul>
          <Flex gap="small" wrap>
            <Button href={card.marketplaceUrl} target="_blank" rel="noopener noreferrer">
              Marketplace
            </Button>
            <Button href={card.docsUrl} target="_blank" rel="noopener noreferrer">
              Documentation
            </Button>
          </Flex>
        </Col>
        <Col xs={24} md={12}>
          <img src={card.screenshot} alt={`${card.name} screenshot`} className="integration-screenshot" />
        </Col>
      </Row>

      <Flex vertical gap={4}>
        <Typography.Text strong>Base URL</Typography.Text>
        <Typography.Text code copyable aria-label="Base URL">
          {`${baseUrl}/`}
        </Typography.Text>
      </Flex>

      <Flex vertical gap={4}>
        <Typography.Text strong>API key</Typography.Text>
        {fetchKey.data ? (
          <Alert
            type="success"
            showIcon
            title="Your new API key is in the commands below. It is shown only now; the previous key stopped working."
            description={
              <Typography.Text
                code
                copyable={{ text: fetchKey.data.apiKey }}
                style={{ wordBreak: 'break-all' }}
              >
                {fetchKey.data.apiKey}
              </Typography.Text>
            }
          />
        ) : (
          <>
            <Typography.Text type="secondary">
              {keyInfo.data?.exists
                ? `You have an API key (created ${new Date(keyInfo.data.createdAt ?? '').toLocaleString()}); Granary keeps only its hash, so the commands show ${API_KEY_PLACEHOLDER}. Put your key there, or create a new one (it replaces the old one).`
                : `The commands show ${API_KEY_PLACEHOLDER}; create an API key to fill it in.`}
            </Typography.Text>
            <Form
              form={form}
              layout="inline"
              onFinish={({ password }) =>
                fetchKey.mutate(
                  { name: username, password },
                  {
                    onError: (error) => console.warn('Could not create an API key', error),
                    onSettled: () => form.resetFields(),
                  },
                )
              }
            >
              <Form.Item
                label="Current password"
                name="password"
                rules={[{ required: true, message: 'This field is mandatory' }]}
              >
                <Input.Password autoComplete="current-password" />
              </Form.Item>
              <Button htmlType="submit" loading={fetchKey.isPending}>
                {keyInfo.data?.exists ? 'Create a new API key' : 'Create API key'}
              </Button>
            </Form>
            {fetchKey.isError && (
              <Typography.Text type="danger">
                Could not create an API key: {fetchKey.error.message}
              </Typography.Text>
            )}
          </>
        )}
      </Flex>

      {card.usesRepository && (
        <Flex vertical gap={4}>
          <Typography.Text strong>npm repository</Typography.Text>
          <Select
            aria-label="npm repository"
            style={{ maxWidth: 320 }}
            value={chosenRepo}
            onChange={setRepoKey}
            options={(repos.data?.length ? repos.data : [chosenRepo]).map((k) => ({ value: k, label: k }))}
          />
        </Flex>
      )}

      <Flex vertical gap={4}>
        <Typography.Title level={3} style={{ fontSize: 16, margin: 0 }}>
          Installation
        </Typography.Title>
        <Tabs
          activeKey={os}
          onChange={(k) => setOs(k as OperatingSystem)}
          items={OPERATING_SYSTEMS.map((o) => ({
            key: o.key,
            label: o.label,
            children: (
              <ol className="integration-steps">
                {card.steps.map((step) => {
                  const command = step.command(o.key, ctx);
                  return (
                    <li key={step.title}>
                      <Typography.Text>{step.title}</Typography.Text>
                      <Typography.Paragraph copyable={{ text: command }} className="integration-command">
                        <pre data-os={o.key}>{command}</pre>
                      </Typography.Paragraph>
                    </li>
                  );
                })}
              </ol>
            ),
          }))}
        />
      </Flex>
    </Flex>
  );
}
