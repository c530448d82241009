import type { QuotaState } from '@granary/contracts';
import { Progress, Tooltip, Typography } from 'antd';
import { formatBytes } from '../bytes.ts';

const STATUS: Record<QuotaState, 'normal' | 'active' | 'exception'> = {
  ok: 'normal',
  warning: 'active',
  exceeded: 'exception',
};

/** How full a quota is: a bar with the used and allowed bytes; "No quota" without one. */
export function QuotaUse({ used, quota, state }: { used: number; quota: number | null; state: QuotaState }) {
  if (quota === null) return <Typography.Text type="secondary">No quota</Typography.Text>;
  const percent = Math.min(100, Math.floor((used / quota) * 100));
  const label = `${formatBytes(used)} of ${formatBytes(quota)} (${percent} %)`;
  return (
    <Tooltip
      title={state === 'ok' ? label : `${label}: ${state === 'warning' ? 'over 80 %' : 'uploads refused'}`}
    >
      <Progress
        percent={percent}
        size="small"
        status={STATUS[state]}
        strokeColor={state === 'warning' ? '#ad6800' : undefined}
        format={() => `${percent} %`}
        aria-label={label}
      />
    </Tooltip>
  );
}
