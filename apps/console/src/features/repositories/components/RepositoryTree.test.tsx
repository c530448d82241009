import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { createQueryClient } from '../../../app/queryClient.ts';
import { restUrl, server } from '../../../shared/test/server.ts';
import { RepositoryTree } from './RepositoryTree.tsx';

const FILES = 10_000;
const name = (n: number) => `file-${String(n).padStart(5, '0')}.bin`;

/** Issue 5 tree browser: a folder of 10,000 files stays fast — only the rows in view are rendered. */
describe('RepositoryTree with a folder of 10,000 files', () => {
  it('renders the first rows of the open folder and keeps the rest virtual', async () => {
    server.use(
      http.get(restUrl('storage/generic-local'), () =>
        HttpResponse.json({
          repo: 'generic-local',
          path: '/',
          created: '2026-01-01T00:00:00.000Z',
          createdBy: 'system',
          lastModified: '2026-01-01T00:00:00.000Z',
          lastUpdated: '2026-01-01T00:00:00.000Z',
          uri: 'http://localhost/api/storage/generic-local',
          children: Array.from({ length: FILES }, (_, n) => ({ uri: `/${name(n)}`, folder: false })),
        }),
      ),
    );
    render(
      <QueryClientProvider client={createQueryClient()}>
        <RepositoryTree
          repositories={[
            {
              key: 'generic-local',
              type: 'LOCAL',
              packageType: 'Generic',
              url: 'http://localhost/repository/generic-local',
              description: '',
            },
          ]}
          expandedKeys={['generic-local']}
          selectedKey={null}
          onExpand={() => {}}
          onSelect={() => {}}
          height={600}
        />
      </QueryClientProvider>,
    );
    expect(await screen.findByText(name(0))).toBeTruthy();
    expect(screen.getByText(name(1))).toBeTruthy();
    const rows = document.querySelectorAll('.ant-tree-treenode');
    expect(rows.length).toBeGreaterThan(2);
    expect(rows.length).toBeLessThan(200);
    expect(screen.queryByText(name(FILES - 1))).toBeNull();
  });
});
