import { CheckCircleFilled } from '@ant-design/icons';
import { INTEGRATION_CARD_SIZE_PX } from '@granary/contracts';
import { Alert, Button, Flex, Tooltip } from 'antd';
import type { ReactNode } from 'react';

/** A few letters on a coloured square: the card's logo (no downloaded brand images). */
export function CardLogo({ text, color }: { text: string; color: string }) {
  return (
    <div className="integration-card-logo" style={{ background: color }} aria-hidden>
      {text}
    </div>
  );
}

export type CardStatus = 'CONFIGURED' | 'CONNECTED' | 'DISCONNECTED';

/**
 * spec 001 §4 integration card: connected or configured shows a check and CONNECTED, otherwise DISCONNECTED; connected
 * but not configured shows the info alert 'Connect a service'. Size 204 × 218 px (§2, §9).
 */
export function CardStatusLine({ connected, configured }: { connected: boolean; configured: boolean }) {
  return connected || configured ? (
    <span className="integration-status-connected">
      <CheckCircleFilled /> CONNECTED
    </span>
  ) : (
    <span className="integration-status-disconnected">DISCONNECTED</span>
  );
}

export function IntegrationCard({
  name,
  logo,
  status,
  services,
  actionLabel,
  onAction,
  onOpen,
}: {
  name: string;
  logo: ReactNode;
  /** Source control cards carry a status; tool cards do not. */
  status?: { connected: boolean; configured: boolean };
  /** Service icons (xray, pipelines) under the name. */
  services?: ReactNode;
  actionLabel: string;
  onAction: () => void;
  /** Opening the card itself (the vendor's instances). */
  onOpen?: () => void;
}) {
  return (
    <article
      className="integration-card"
      aria-label={name}
      style={{ width: INTEGRATION_CARD_SIZE_PX.width, height: INTEGRATION_CARD_SIZE_PX.height }}
    >
      {logo}
      <Flex vertical align="center" gap={2}>
        {onOpen ? (
          <Button type="link" onClick={onOpen} className="integration-card-name" style={{ padding: 0 }}>
            {name}
          </Button>
        ) : (
          <span className="integration-card-name">{name}</span>
        )}
        {status && <CardStatusLine {...status} />}
        {services}
      </Flex>
      {status?.connected && !status.configured && (
        <Alert type="info" showIcon title="Connect a service" style={{ padding: '2px 8px', fontSize: 12 }} />
      )}
      <Tooltip title={`${actionLabel} ${name}`}>
        <Button size="small" onClick={onAction} aria-label={`${actionLabel} ${name}`}>
          {actionLabel}
        </Button>
      </Tooltip>
    </article>
  );
}
