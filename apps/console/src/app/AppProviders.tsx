import { type QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp, ConfigProvider } from 'antd';
import type { ReactNode } from 'react';
import { theme } from './theme.ts';

export interface AppProvidersProps {
  queryClient: QueryClient;
  children: ReactNode;
}

/** Server state (TanStack Query), the design system's theme, and antd's message/notification context. */
export function AppProviders({ queryClient, children }: AppProvidersProps) {
  return (
    <QueryClientProvider client={queryClient}>
      <ConfigProvider theme={theme}>
        <AntApp>{children}</AntApp>
      </ConfigProvider>
    </QueryClientProvider>
  );
}
