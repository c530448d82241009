import {
  AppleOutlined,
  AppstoreOutlined,
  BuildOutlined,
  CloudServerOutlined,
  CodeOutlined,
  ContainerOutlined,
  DockerOutlined,
  FileOutlined,
  HddOutlined,
  InboxOutlined,
  JavaOutlined,
  JavaScriptOutlined,
  PythonOutlined,
} from '@ant-design/icons';
import type { ReactNode } from 'react';

/** The console's images for the formats' icon names; an unknown one gets a neutral box. */
const ICONS: Record<string, ReactNode> = {
  generic: <FileOutlined />,
  docker: <DockerOutlined />,
  npm: <JavaScriptOutlined />,
  pypi: <PythonOutlined />,
  maven: <JavaOutlined />,
  gradle: <BuildOutlined />,
  cargo: <InboxOutlined />,
  go: <CodeOutlined />,
  rpm: <ContainerOutlined />,
  debian: <HddOutlined />,
  terraform: <CloudServerOutlined />,
  swift: <AppleOutlined />,
};

export function PackageTypeIcon({ icon, size = 28 }: { icon: string; size?: number }) {
  return (
    <span aria-hidden style={{ fontSize: size, lineHeight: 1, color: '#1f5f3a' }}>
      {ICONS[icon] ?? <AppstoreOutlined />}
    </span>
  );
}
