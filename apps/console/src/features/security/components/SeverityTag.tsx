import type { IssueSeverity } from '@granary/contracts';
import { Tag } from 'antd';
import { severityColour } from '../securityRules.ts';

/** A finding's severity as a coloured tag (dark solid colours keep white text readable). */
export function SeverityTag({ severity }: { severity: IssueSeverity | string }) {
  return <Tag color={severityColour(severity)}>{severity}</Tag>;
}
