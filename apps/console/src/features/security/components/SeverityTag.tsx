import type { IssueSeverity } from '@granary/contracts';
import { Tag } from 'antd';
import { severityColour } from '../securityRules.ts';

/** A finding's severity as a coloured tag (dark solid colours keep white text readable); `label` replaces the text. */
export function SeverityTag({ severity, label }: { severity: IssueSeverity | string; label?: string }) {
  return <Tag color={severityColour(severity)}>{label ?? severity}</Tag>;
}
