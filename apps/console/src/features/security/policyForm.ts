import type { XrayPolicy, XrayPolicyRule } from '@granary/contracts';

/** One rule as the policy editor holds it; `toPolicy` turns the form into Xray's JSON, `fromPolicy` back. */
export interface RuleForm {
  name: string;
  /** security: by minimum severity or a CVSS range; license: an allowed or a banned list */
  criterion: 'severity' | 'cvss' | 'allowed' | 'banned';
  min_severity: NonNullable<XrayPolicyRule['criteria']['min_severity']>;
  cvss_from: number;
  cvss_to: number;
  licenses: string[];
  allow_unknown: boolean;
  block_active: boolean;
  block_unscanned: boolean;
  webhooks: string[];
  fail_build: boolean;
}

export interface PolicyForm {
  name: string;
  description: string;
  type: 'security' | 'license';
  rules: RuleForm[];
}

export const MIN_SEVERITIES = ['All Severities', 'Critical', 'High', 'Medium', 'Low'] as const;

export function emptyRule(type: PolicyForm['type'], index: number): RuleForm {
  return {
    name: `${type === 'security' ? 'security' : 'licence'}-rule-${index + 1}`,
    criterion: type === 'security' ? 'severity' : 'banned',
    min_severity: 'High',
    cvss_from: 7,
    cvss_to: 10,
    licenses: [],
    allow_unknown: true,
    block_active: false,
    block_unscanned: false,
    webhooks: [],
    fail_build: false,
  };
}

export const emptyPolicy = (): PolicyForm => ({
  name: '',
  description: '',
  type: 'security',
  rules: [emptyRule('security', 0)],
});

export function toPolicy(form: PolicyForm): XrayPolicy {
  return {
    name: form.name.trim(),
    ...(form.description.trim() ? { description: form.description.trim() } : {}),
    type: form.type,
    rules: form.rules.map((r, i) => {
      const criteria: XrayPolicyRule['criteria'] =
        form.type === 'security'
          ? r.criterion === 'cvss'
            ? { cvss_range: { from: Number(r.cvss_from), to: Number(r.cvss_to) } }
            : { min_severity: r.min_severity }
          : {
              ...(r.criterion === 'allowed'
                ? { allowed_licenses: r.licenses }
                : { banned_licenses: r.licenses }),
              allow_unknown: r.allow_unknown,
            };
      return {
        name: r.name.trim(),
        priority: i + 1,
        criteria,
        actions: {
          block_download: { active: r.block_active, unscanned: r.block_unscanned },
          webhooks: r.webhooks,
          fail_build: r.fail_build,
        },
      };
    }),
  };
}

export function fromPolicy(policy: XrayPolicy): PolicyForm {
  const rules = [...policy.rules].sort((a, b) => a.priority - b.priority);
  return {
    name: policy.name,
    description: policy.description ?? '',
    type: policy.type,
    rules: rules.map((r, i) => {
      const c = r.criteria;
      const base = emptyRule(policy.type, i);
      return {
        ...base,
        name: r.name,
        criterion:
          policy.type === 'security'
            ? c.cvss_range
              ? 'cvss'
              : 'severity'
            : c.allowed_licenses && c.allowed_licenses.length > 0
              ? 'allowed'
              : 'banned',
        min_severity: c.min_severity ?? base.min_severity,
        cvss_from: c.cvss_range?.from ?? base.cvss_from,
        cvss_to: c.cvss_range?.to ?? base.cvss_to,
        licenses: c.allowed_licenses?.length ? c.allowed_licenses : (c.banned_licenses ?? []),
        allow_unknown: c.allow_unknown ?? true,
        block_active: r.actions?.block_download?.active ?? false,
        block_unscanned: r.actions?.block_download?.unscanned ?? false,
        webhooks: r.actions?.webhooks ?? [],
        fail_build: r.actions?.fail_build ?? false,
      };
    }),
  };
}

/** A rule's criteria in a sentence, for the policies list. */
export function describeRule(type: XrayPolicy['type'], rule: XrayPolicyRule): string {
  const c = rule.criteria;
  const what =
    type === 'security'
      ? c.cvss_range
        ? `CVSS ${c.cvss_range.from}–${c.cvss_range.to}`
        : c.vulnerability_ids?.length
          ? c.vulnerability_ids.join(', ')
          : `severity ${c.min_severity ?? 'All Severities'}`
      : c.allowed_licenses?.length
        ? `allowed: ${c.allowed_licenses.join(', ')}`
        : `banned: ${(c.banned_licenses ?? []).join(', ') || 'none'}`;
  const actions = [
    rule.actions?.block_download?.active && 'block download',
    rule.actions?.block_download?.unscanned && 'block unscanned',
    rule.actions?.webhooks?.length && `webhooks ${rule.actions.webhooks.join(', ')}`,
    rule.actions?.fail_build && 'fail build',
  ].filter(Boolean);
  return `${rule.name}: ${what}${actions.length ? ` → ${actions.join(', ')}` : ''}`;
}
