import { CheckOutlined, CopyOutlined } from '@ant-design/icons';
import { Button, Space, Typography } from 'antd';
import { useState } from 'react';

/** An install command with a copy button (spec 001 §3 install command templates). */
export function CopyableCommand({ command, label = 'Install command' }: { command: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(command);
      setCopied(true);
      window.setTimeout(() => setCopied(false), 2000);
    } catch {
      setCopied(false);
    }
  };
  return (
    <section aria-label={label} className="packages-install">
      <Typography.Text strong>{label}</Typography.Text>
      <Space.Compact style={{ width: '100%', marginTop: 4 }}>
        <pre className="packages-command">
          <code>{command}</code>
        </pre>
        <Button
          onClick={copy}
          icon={copied ? <CheckOutlined aria-hidden /> : <CopyOutlined aria-hidden />}
          aria-label={`Copy ${label.toLowerCase()}`}
        >
          {copied ? 'Copied' : 'Copy'}
        </Button>
      </Space.Compact>
    </section>
  );
}
