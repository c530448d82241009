import type { EventCriteriaKind } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { App, Checkbox, Form, Select, Typography } from 'antd';
import {
  buildNamesQueryOptions,
  buildPatternsQueryOptions,
  releaseBundleNamesQueryOptions,
  releaseBundlesQueryOptions,
  repositoriesQueryOptions,
} from '../queries.ts';
import { checkMandatory, REPO_SCOPES, type WebhookFormValues } from '../webhookForm.ts';

const EMPTY: string[] = [];

/** Which repositories / builds / release bundles the events come from, by the domain's criteria kind. */
export function CriteriaFields({ kind }: { kind: EventCriteriaKind }) {
  if (kind === 'repositories') return <RepositoryCriteria />;
  if (kind === 'builds') return <BuildCriteria />;
  if (kind === 'releaseBundles') return <ReleaseBundleCriteria />;
  return null;
}

function Patterns({ disabled = false, what }: { disabled?: boolean; what: string }) {
  return (
    <>
      <Form.Item
        label="Include patterns"
        name="includePatterns"
        extra={`Ant patterns on the ${what}, e.g. **/*.jar; press Enter after each`}
      >
        <Select
          mode="tags"
          aria-label="Include patterns"
          open={false}
          suffixIcon={null}
          disabled={disabled}
          placeholder="**"
        />
      </Form.Item>
      <Form.Item label="Exclude patterns" name="excludePatterns">
        <Select
          mode="tags"
          aria-label="Exclude patterns"
          open={false}
          suffixIcon={null}
          disabled={disabled}
        />
      </Form.Item>
    </>
  );
}

function RepositoryCriteria() {
  const repositories = useQuery(repositoriesQueryOptions());
  return (
    <>
      <Form.Item label="Repositories" name="repoScope" style={{ marginBottom: 8 }}>
        <Checkbox.Group options={REPO_SCOPES.map((o) => ({ value: o.value, label: o.label }))} />
      </Form.Item>
      <Form.Item
        name="repoKeys"
        dependencies={['repoScope']}
        rules={[
          ({ getFieldValue }) => ({
            validator: (_rule, value) =>
              (getFieldValue('repoScope') as string[] | undefined)?.length
                ? Promise.resolve()
                : checkMandatory(value),
          }),
        ]}
        extra="Choose “any” above, repositories here, or both"
      >
        <Select
          mode="multiple"
          aria-label="Chosen repositories"
          placeholder="Chosen repositories"
          loading={repositories.isPending}
          options={(repositories.data ?? []).map((r) => ({
            value: r.key,
            label: `${r.key} (${r.type.toLowerCase()})`,
          }))}
        />
      </Form.Item>
      <Patterns what="artifact path" />
    </>
  );
}

/**
 * "Select all" with the spec 001 §5 warning: choosing every build (or bundle) removes what was chosen by name
 * and pattern, so the admin is asked first when something was.
 */
function SelectAll({
  value,
  onChange,
  label,
  what,
  chosenField,
}: {
  value?: boolean;
  onChange?: (checked: boolean) => void;
  label: string;
  what: string;
  chosenField: 'selectedBuilds' | 'registeredReleaseBundlesNames';
}) {
  const form = Form.useFormInstance<WebhookFormValues>();
  const { modal } = App.useApp();
  const clear = () => form.setFieldsValue({ [chosenField]: [], includePatterns: [], excludePatterns: [] });
  const toggle = (checked: boolean) => {
    if (!checked) return onChange?.(false);
    const chosen = ([chosenField, 'includePatterns', 'excludePatterns'] as const).some(
      (f) => ((form.getFieldValue(f) as string[] | undefined) ?? []).length > 0,
    );
    if (!chosen) return onChange?.(true);
    modal.confirm({
      title: `Select all ${what}?`,
      content: `Selecting all ${what} removes the ${what} and patterns you chose manually.`,
      okText: `Select all ${what}`,
      onOk: () => {
        clear();
        onChange?.(true);
      },
    });
  };
  return (
    <Checkbox checked={value ?? false} onChange={(e) => toggle(e.target.checked)}>
      {label}
    </Checkbox>
  );
}

function BuildCriteria() {
  const form = Form.useFormInstance<WebhookFormValues>();
  const all = Form.useWatch('anyBuild', form) ?? false;
  const include = Form.useWatch('includePatterns', form) ?? EMPTY;
  const names = useQuery(buildNamesQueryOptions());
  const matching = useQuery({ ...buildPatternsQueryOptions(include), enabled: !all && include.length > 0 });
  return (
    <>
      <Form.Item name="anyBuild" style={{ marginBottom: 8 }}>
        <SelectAll label="Select all builds" what="builds" chosenField="selectedBuilds" />
      </Form.Item>
      <Form.Item
        label="Builds"
        name="selectedBuilds"
        dependencies={['anyBuild', 'includePatterns']}
        rules={[atLeastOne('anyBuild', 'selectedBuilds')]}
      >
        <Select
          mode="multiple"
          aria-label="Builds"
          disabled={all}
          loading={names.isPending}
          options={(names.data ?? []).map((n) => ({ value: n, label: n }))}
          notFoundContent="No builds yet"
        />
      </Form.Item>
      <Patterns disabled={all} what="build name" />
      {!all && include.length > 0 && (
        <Matches what="builds" names={matching.data} pending={matching.isFetching} />
      )}
    </>
  );
}

function ReleaseBundleCriteria() {
  const form = Form.useFormInstance<WebhookFormValues>();
  const all = Form.useWatch('anyReleaseBundle', form) ?? false;
  const include = Form.useWatch('includePatterns', form) ?? EMPTY;
  const exclude = Form.useWatch('excludePatterns', form) ?? EMPTY;
  const names = useQuery(releaseBundleNamesQueryOptions());
  const matching = useQuery({
    ...releaseBundlesQueryOptions(include, exclude),
    enabled: !all && include.length > 0,
  });
  return (
    <>
      <Form.Item name="anyReleaseBundle" style={{ marginBottom: 8 }}>
        <SelectAll
          label="Select all release bundles"
          what="release bundles"
          chosenField="registeredReleaseBundlesNames"
        />
      </Form.Item>
      <Form.Item
        label="Release bundles"
        name="registeredReleaseBundlesNames"
        dependencies={['anyReleaseBundle', 'includePatterns']}
        rules={[atLeastOne('anyReleaseBundle', 'registeredReleaseBundlesNames')]}
      >
        <Select
          mode="multiple"
          aria-label="Release bundles"
          disabled={all}
          loading={names.isPending}
          options={(names.data ?? []).map((n) => ({ value: n, label: n }))}
          notFoundContent="No release bundles yet"
        />
      </Form.Item>
      <Patterns disabled={all} what="release bundle name" />
      {!all && include.length > 0 && (
        <Matches what="release bundles" names={matching.data} pending={matching.isFetching} />
      )}
    </>
  );
}

/** "all", some chosen by name, or an include pattern: one of them, or the field is mandatory. */
function atLeastOne(allField: keyof WebhookFormValues, namesField: keyof WebhookFormValues) {
  return ({ getFieldValue }: { getFieldValue: (name: string) => unknown }) => ({
    validator: () => {
      const all = getFieldValue(allField) === true;
      const names = (getFieldValue(namesField) as string[] | undefined) ?? [];
      const include = (getFieldValue('includePatterns') as string[] | undefined) ?? [];
      return all || names.length > 0 || include.length > 0 ? Promise.resolve() : checkMandatory(names);
    },
  });
}

function Matches({ what, names, pending }: { what: string; names: string[] | undefined; pending: boolean }) {
  if (pending && !names) return null;
  return (
    <Typography.Paragraph type="secondary" aria-live="polite">
      {names && names.length > 0
        ? `Matching ${what} now: ${names.slice(0, 10).join(', ')}${names.length > 10 ? ` and ${names.length - 10} more` : ''}`
        : `No ${what} match these patterns yet`}
    </Typography.Paragraph>
  );
}
