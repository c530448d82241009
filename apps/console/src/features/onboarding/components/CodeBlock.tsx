import { CheckOutlined, CopyOutlined } from '@ant-design/icons';
import { COPY_INDICATOR_MS } from '@granary/contracts';
import { Button, Tooltip } from 'antd';
import { useEffect, useState } from 'react';

async function writeClipboard(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // No clipboard (an insecure origin): the text stays selectable in the block.
  }
}

/**
 * A copy button whose "Copied" indicator resets after 2 seconds (spec 000 §4, §9 copy indicator 2000 ms).
 * `getText` may be async (the identity token is fetched on demand).
 */
export function CopyButton({
  text,
  label = 'Copy',
  testId,
}: {
  text: string | (() => Promise<string>);
  label?: string;
  testId?: string;
}) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), COPY_INDICATOR_MS);
    return () => clearTimeout(timer);
  }, [copied]);
  const onCopy = async () => {
    await writeClipboard(typeof text === 'string' ? text : await text());
    setCopied(true);
  };
  return (
    <Button
      size="small"
      icon={copied ? <CheckOutlined aria-hidden /> : <CopyOutlined aria-hidden />}
      onClick={onCopy}
      data-testid={testId}
      data-copied={copied ? 'true' : 'false'}
    >
      {copied ? 'Copied' : label}
    </Button>
  );
}

/** A command or file in a block, with its copy button; `id` names both for browser tests (`quick-start-code-{id}`). */
export function CodeBlock({ id, code, title }: { id: string; code: string; title?: string }) {
  return (
    <div className="quick-start-code">
      <div className="quick-start-code-bar">
        <span>{title}</span>
        <Tooltip title="Copy to clipboard">
          <span>
            <CopyButton text={code} testId={`quick-start-copy-${id}`} />
          </span>
        </Tooltip>
      </div>
      <pre data-testid={`quick-start-code-${id}`} className={`quick-start-code-${id}`}>
        {code}
      </pre>
    </div>
  );
}
