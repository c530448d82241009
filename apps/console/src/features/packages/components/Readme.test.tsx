import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { createQueryClient } from '../../../app/queryClient.ts';
import { apiUrl, server } from '../../../shared/test/server.ts';
import { Readme } from './Readme.tsx';

/** Issue 8: version details show the readme rendered by the console, sanitised. */
describe('Readme', () => {
  it('renders Markdown (headings two levels below the page title); raw HTML stays text and script links are dropped', async () => {
    server.use(
      http.get(apiUrl('packages/readme'), () =>
        HttpResponse.json({
          readme:
            '# Widget\n\nUse it **well**. <script>window.pwned = true</script>\n\n[docs](https://example.com/docs) [bad](javascript:alert(1))',
        }),
      ),
    );
    render(
      <QueryClientProvider client={createQueryClient()}>
        <Readme repoKey="npm-local" path="widget/-/widget-1.0.0.tgz" />
      </QueryClientProvider>,
    );
    expect(await screen.findByRole('heading', { level: 3, name: 'Widget' })).toBeTruthy();
    expect(screen.getByText('well').tagName).toBe('STRONG');
    const readme = screen.getByTestId('readme');
    expect(readme.textContent).toContain('<script>window.pwned = true</script>');
    expect(readme.querySelector('script')).toBeNull();
    const docs = screen.getByRole('link', { name: 'docs' });
    expect(docs.getAttribute('href')).toBe('https://example.com/docs');
    expect(docs.getAttribute('rel')).toContain('noopener');
    expect(screen.getByText('bad').getAttribute('href') ?? '').not.toContain('javascript');
  });
});
