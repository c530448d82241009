import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { SecretReveal } from './SecretReveal.tsx';

describe('issue 13 §7: one secret-reveal component', () => {
  it('shows the secret once, in full, under its title, with a copy button', () => {
    const secret = 'grn_0ly2741bMVauKIo8tz38MD7eULgRN-4OjpHQJDhkJK8';
    render(<SecretReveal title="Your new API key" secret={secret} />);
    const alert = screen.getByRole('alert');
    expect(alert.className).toContain('ant-alert-success');
    expect(within(alert).getByText('Your new API key')).toBeTruthy();
    expect(within(alert).getByText(secret).tagName).toBe('CODE');
    expect(within(alert).getByRole('button', { name: /copy/i })).toBeTruthy();
  });
});
