import { fireEvent, screen, waitFor } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';

let sent: unknown[];

beforeEach(() => {
  localStorage.clear();
  sent = [];
  server.use(
    http.get(apiUrl('ui/auth/current'), () => HttpResponse.json(userData())),
    http.get(apiUrl('ui/onboarding/personalization'), () =>
      HttpResponse.json({ sent: sent.length > 0, sentAt: null }),
    ),
    http.post(apiUrl('ui/onboarding/personalization'), async ({ request }) => {
      sent.push(await request.json());
      return new HttpResponse(null, { status: 204 });
    }),
    http.get(apiUrl('ui/onboarding/getReposModel'), () => HttpResponse.json([])),
  );
});

const next = () => screen.getByRole('button', { name: 'Next' }) as HTMLButtonElement;
const stored = () => JSON.parse(localStorage.getItem('personalizationData') ?? 'null');

async function choose(label: string, option: string) {
  fireEvent.mouseDown(screen.getByRole('combobox', { name: label }));
  fireEvent.click(await screen.findByTitle(option));
}

async function toDetails(purpose: 'Commercial' | 'Personal') {
  renderApp('/quick-setup');
  await screen.findByTestId('onboarding-questionnaire');
  fireEvent.click(next());
  expect(next().disabled).toBe(true);
  fireEvent.click(screen.getByLabelText(purpose));
  expect(next().disabled).toBe(false);
  fireEvent.click(next());
}

describe('onboarding questionnaire (issue 17, spec 000 §4, §5)', () => {
  it('spec 000 §5: the purpose step is valid only with a purpose chosen; §4 the data is kept locally per step', async () => {
    renderApp('/quick-setup');
    await screen.findByTestId('onboarding-questionnaire');
    // spec 000 §4: initial data stored if absent
    expect(stored()).toMatchObject({ purpose: { isValid: false, isCompleted: false } });
    fireEvent.click(next());
    expect(next().disabled).toBe(true);
    fireEvent.click(screen.getByLabelText('Personal'));
    expect(next().disabled).toBe(false);
    expect(stored().purpose).toEqual({
      stepDataObject: { purpose: 'Personal' },
      isCompleted: true,
      isValid: true,
    });
  });

  it('spec 000 §5: details need a role; the OSS project name is not required', async () => {
    await toDetails('Personal');
    expect(next().disabled).toBe(true);
    await choose('Your role', 'Software Developer');
    expect(next().disabled).toBe(false);
    expect(stored().details.stepDataObject.ossProjectName).toBe('');
  });

  it('spec 000 §5: role Other needs the other-role text', async () => {
    await toDetails('Personal');
    await choose('Your role', 'Other');
    expect(next().disabled).toBe(true);
    fireEvent.change(screen.getByLabelText('Your role (other)'), { target: { value: 'Release manager' } });
    expect(next().disabled).toBe(false);
  });

  it('spec 000 §5: purpose Commercial needs the company name', async () => {
    await toDetails('Commercial');
    await choose('Your role', 'DevOps Engineer');
    expect(next().disabled).toBe(true);
    fireEvent.change(screen.getByLabelText('Company name'), { target: { value: 'Acme' } });
    expect(next().disabled).toBe(false);
  });

  it('spec 000 §5: at least one desired feature; §4 sending stores the answers and removes the local data', async () => {
    await toDetails('Personal');
    await choose('Your role', 'DevSecOps Engineer');
    fireEvent.click(next());
    const send = screen.getByRole('button', { name: 'Send' }) as HTMLButtonElement;
    expect(send.disabled).toBe(true);
    fireEvent.click(screen.getByLabelText('Container Registry'));
    expect(send.disabled).toBe(false);
    fireEvent.click(send);
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(JSON.stringify(sent[0])).toContain('Container Registry');
    await screen.findByText('Welcome to the product');
    expect(localStorage.getItem('personalizationData')).toBeNull();
    expect(localStorage.getItem('RTonlyRemoved')).toBe('true');
  });
});
