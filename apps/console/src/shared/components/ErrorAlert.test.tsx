import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ErrorAlert } from './ErrorAlert.tsx';

describe('issue 13 §7: one error alert', () => {
  it('a failure alone: its message is the title', () => {
    render(<ErrorAlert error={new Error('Repository key is taken')} />);
    const alert = screen.getByRole('alert');
    expect(alert.className).toContain('ant-alert-error');
    expect(within(alert).getByText('Repository key is taken').className).toContain('ant-alert-title');
    expect(alert.querySelector('.ant-alert-description')).toBeNull();
  });

  it('under a title, the failure message is the description', () => {
    render(<ErrorAlert title="Could not load the licence" error={new Error('503 Service Unavailable')} />);
    const alert = screen.getByRole('alert');
    expect(within(alert).getByText('Could not load the licence').className).toContain('ant-alert-title');
    expect(within(alert).getByText('503 Service Unavailable').className).toContain('ant-alert-description');
  });

  it('a description replaces the message; an action is shown beside it', () => {
    render(
      <ErrorAlert
        title="Failed to generate Identity token"
        description="Enter the one-time code"
        error={new Error('internal detail')}
        action={<button type="button">Retry</button>}
      />,
    );
    const alert = screen.getByRole('alert');
    expect(within(alert).getByText('Enter the one-time code')).toBeTruthy();
    expect(within(alert).queryByText('internal detail')).toBeNull();
    expect(within(alert).getByRole('button', { name: 'Retry' })).toBeTruthy();
  });
});
