import { ONBOARDING_DESIRED_FEATURES, ONBOARDING_PURPOSES, ONBOARDING_ROLES } from '@granary/contracts';
import { Alert, Button, Checkbox, Flex, Form, Input, Radio, Select, Steps, Typography } from 'antd';
import { useState } from 'react';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import {
  loadPersonalization,
  type PersonalizationSteps,
  QUESTIONNAIRE_STEPS,
  type QuestionnaireStep,
  removePersonalization,
  savePersonalization,
  stepProblems,
  toOnboardingData,
} from '../personalization.ts';
import { useSendOnboardingMutation } from '../queries.ts';

const STEP_TITLES: Record<QuestionnaireStep, string> = {
  initial: 'Welcome',
  purpose: 'Purpose',
  details: 'About you',
  desiredFeatures: 'Features',
};

/**
 * spec 000 §4 onboarding questionnaire (steps initial, purpose, details, desired features), §5 rules: a step is
 * complete when valid; answers are kept in this browser per step until sent, then removed. Sending stores them as
 * the user's custom data on the server, which records the tracking event.
 */
export function Questionnaire({ onFinished, onSkip }: { onFinished: () => void; onSkip: () => void }) {
  const [data, setData] = useState<PersonalizationSteps>(loadPersonalization);
  const [index, setIndex] = useState(0);
  const send = useSendOnboardingMutation();
  const step = QUESTIONNAIRE_STEPS[index] ?? 'initial';

  const update = <S extends QuestionnaireStep>(
    name: S,
    patch: Partial<PersonalizationSteps[S]['stepDataObject']>,
  ) =>
    setData((prev) => {
      const stepDataObject = { ...prev[name].stepDataObject, ...patch };
      const next = { ...prev, [name]: { ...prev[name], stepDataObject } } as PersonalizationSteps;
      // spec 000 §4: a step is complete when valid (the details depend on the purpose, so every step is re-checked).
      const checked = Object.fromEntries(
        QUESTIONNAIRE_STEPS.map((s) => {
          const valid = stepProblems(s, next).length === 0;
          return [s, { ...next[s], isValid: valid, isCompleted: valid }];
        }),
      ) as unknown as PersonalizationSteps;
      savePersonalization(checked);
      return checked;
    });

  const problems = stepProblems(step, data);
  const purpose = data.purpose.stepDataObject.purpose;
  const details = data.details.stepDataObject;
  const last = index === QUESTIONNAIRE_STEPS.length - 1;

  const onSend = () =>
    send.mutate(toOnboardingData(data), {
      onSuccess: () => {
        removePersonalization();
        onFinished();
      },
    });

  return (
    <Flex vertical gap="middle" data-testid="onboarding-questionnaire">
      <Steps
        size="small"
        current={index}
        items={QUESTIONNAIRE_STEPS.map((s) => ({
          title: STEP_TITLES[s],
          status: s === step ? 'process' : data[s].isCompleted ? 'finish' : 'wait',
        }))}
      />
      {step === 'initial' && (
        <div>
          <Typography.Title level={2}>Welcome to Granary</Typography.Title>
          <Typography.Paragraph>
            Tell us a little about how you will use Granary; then we create your first repositories and set up
            your package client with you. Your answers stay on this server.
          </Typography.Paragraph>
        </div>
      )}
      {step === 'purpose' && (
        <Form layout="vertical">
          <Form.Item label="What will you use Granary for?" required>
            <Radio.Group
              value={purpose}
              onChange={(e) => update('purpose', { purpose: e.target.value })}
              options={ONBOARDING_PURPOSES.map((p) => ({ value: p, label: p }))}
            />
          </Form.Item>
        </Form>
      )}
      {step === 'details' && (
        <Form layout="vertical">
          {purpose === 'Commercial' && (
            <Form.Item label="Company name" htmlFor="onboarding-company" required>
              <Input
                id="onboarding-company"
                value={details.companyName}
                onChange={(e) => update('details', { companyName: e.target.value })}
              />
            </Form.Item>
          )}
          <Form.Item label="Open source project name (optional)" htmlFor="onboarding-oss">
            <Input
              id="onboarding-oss"
              value={details.ossProjectName}
              onChange={(e) => update('details', { ossProjectName: e.target.value })}
            />
          </Form.Item>
          <Form.Item label="Your role" required>
            <Select
              aria-label="Your role"
              placeholder="Choose your role"
              value={details.role ?? undefined}
              onChange={(role: string) => update('details', { role })}
              options={ONBOARDING_ROLES.map((r) => ({ value: r, label: r }))}
            />
          </Form.Item>
          {details.role === 'Other' && (
            <Form.Item label="Your role (other)" htmlFor="onboarding-other-role" required>
              <Input
                id="onboarding-other-role"
                value={details.otherRole}
                onChange={(e) => update('details', { otherRole: e.target.value })}
              />
            </Form.Item>
          )}
        </Form>
      )}
      {step === 'desiredFeatures' && (
        <Form layout="vertical">
          <Form.Item label="Which features interest you?" required>
            <Checkbox.Group
              value={data.desiredFeatures.stepDataObject.desiredFeature}
              onChange={(values) => update('desiredFeatures', { desiredFeature: values as string[] })}
              options={ONBOARDING_DESIRED_FEATURES.map((f) => ({ value: f, label: f }))}
              style={{ display: 'grid', gridTemplateColumns: 'repeat(2, minmax(0, 1fr))', gap: 8 }}
            />
          </Form.Item>
        </Form>
      )}
      {problems.length > 0 && step !== 'initial' && (
        <Alert type="info" showIcon title={problems[0]} data-testid="onboarding-step-problem" />
      )}
      {send.isError && <ErrorAlert error={send.error} />}
      <Flex justify="space-between">
        <Flex gap="small">
          <Button onClick={() => setIndex((i) => i - 1)} disabled={index === 0}>
            Back
          </Button>
          <Button type="link" onClick={onSkip}>
            Skip to package setup
          </Button>
        </Flex>
        {last ? (
          <Button type="primary" disabled={problems.length > 0} loading={send.isPending} onClick={onSend}>
            Send
          </Button>
        ) : (
          <Button type="primary" disabled={problems.length > 0} onClick={() => setIndex((i) => i + 1)}>
            Next
          </Button>
        )}
      </Flex>
    </Flex>
  );
}
