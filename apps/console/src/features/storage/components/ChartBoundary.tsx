import { Alert } from 'antd';
import { Component, type ReactNode } from 'react';

/** Charts that cannot be drawn (no canvas, a library failure) leave the rest of the storage page working. */
export class ChartBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override render() {
    return this.state.failed ? (
      <Alert type="info" showIcon title="The charts could not be drawn in this browser" />
    ) : (
      this.props.children
    );
  }
}
