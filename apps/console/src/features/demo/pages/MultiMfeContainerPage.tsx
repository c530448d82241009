import { Flex, Typography } from 'antd';
import { type ComponentType, use } from 'react';
import { loadMicrofrontend } from '../../../shared/components/microfrontend.ts';

export interface MockScreens {
  one: ComponentType;
  two: ComponentType;
}

/**
 * spec 000 §2 /demo/multi-mfe-mounting-container: loads two mock screens, each its own chunk, and raises an
 * error (to the route's error boundary, naming the screen) if either fails to load.
 */
export async function loadMockScreens(): Promise<MockScreens> {
  const [one, two] = await Promise.all([
    loadMicrofrontend('@granary/demo-mock-one', () => import('./MockScreenOne.tsx')),
    loadMicrofrontend('@granary/demo-mock-two', () => import('./MockScreenTwo.tsx')),
  ]);
  return { one: one.MockScreenOne, two: two.MockScreenTwo };
}

let loading: Promise<MockScreens> | null = null;

/**
 * The screens' load, shared by renders (a new promise per render would suspend for ever). A failed load stays
 * failed until the page is reloaded, which the error boundary offers.
 */
function mockScreens(): Promise<MockScreens> {
  loading ??= loadMockScreens();
  return loading;
}

export function MultiMfeContainerPage() {
  const { one: One, two: Two } = use(mockScreens());
  return (
    <Flex vertical gap="large">
      <Typography.Title level={1}>Multiple screens</Typography.Title>
      <Flex gap="large" wrap>
        <One />
        <Two />
      </Flex>
    </Flex>
  );
}
