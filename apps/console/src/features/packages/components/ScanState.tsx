import { SEVERITIES, type Vulnerabilities } from '@granary/contracts';
import { Space, Tag, Typography } from 'antd';
import { useSession } from '../../../shared/session/SessionProvider.tsx';
import { scanState } from '../packageRules.ts';

const COLOURS: Record<string, string> = {
  critical: 'red',
  high: 'volcano',
  medium: 'orange',
  low: 'gold',
  info: 'blue',
  unknown: 'default',
  skipped: 'default',
};

/** spec 001 §3 vulnerabilities by severity (zero counts dropped), or the §8 state when there are none to show. */
export function ScanState({ vulnerabilities }: { vulnerabilities: Vulnerabilities | null | undefined }) {
  const session = useSession();
  const state = scanState(vulnerabilities, {
    service: session.microservices.xray === true,
    licensed: session.entitlements?.entitlements.scanning === true,
  });
  if (state) return <Typography.Text type="secondary">{state}</Typography.Text>;
  const counts = SEVERITIES.filter((s) => (vulnerabilities?.[s] ?? 0) > 0);
  if (counts.length === 0) return <Typography.Text type="secondary">No vulnerabilities</Typography.Text>;
  return (
    <Space size={4} wrap>
      {counts.map((s) => (
        <Tag key={s} color={COLOURS[s]}>
          {s} {vulnerabilities?.[s]}
        </Tag>
      ))}
    </Space>
  );
}
