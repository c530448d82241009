import { useState } from 'react';
import { RouterProvider } from 'react-router/dom';
import { AppProviders } from './AppProviders.tsx';
import { createQueryClient } from './queryClient.ts';
import { createAppRouter } from './router.ts';

export function App() {
  const [queryClient] = useState(createQueryClient);
  const [router] = useState(createAppRouter);
  return (
    <AppProviders queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProviders>
  );
}
