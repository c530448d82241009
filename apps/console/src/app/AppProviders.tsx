import { NOTIFICATION_DURATIONS_MS } from '@granary/contracts';
import { type QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp, ConfigProvider } from 'antd';
import type { ReactNode } from 'react';
import { theme } from './theme.ts';

export interface AppProvidersProps {
  queryClient: QueryClient;
  children: ReactNode;
}

/** spec 000 §9: notifications last 4500 ms, messages 3000 ms. Server state (TanStack Query), the design system's theme, and antd's message/notification context. */
export function AppProviders({ queryClient, children }: AppProvidersProps) {
  return (
    <QueryClientProvider client={queryClient}>
      <ConfigProvider theme={theme}>
        <AntApp
          notification={{ duration: NOTIFICATION_DURATIONS_MS[0] / 1000 }}
          message={{ duration: NOTIFICATION_DURATIONS_MS[1] / 1000 }}
        >
          {children}
        </AntApp>
      </ConfigProvider>
    </QueryClientProvider>
  );
}
