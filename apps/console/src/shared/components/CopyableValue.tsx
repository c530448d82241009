import { CheckOutlined, CopyOutlined } from '@ant-design/icons';
import { Button, Tooltip } from 'antd';
import { useState } from 'react';
import './CopyableValue.css';

export interface CopyableValueProps {
  /** The value copied, whole (a checksum, a key). */
  value: string;
  /** What the value is, for the copy button's name: "Copy SHA256". */
  label: string;
  /**
   * `ellipsis` (default): one line, cut with "…" when narrow, the whole value in the title (checksums, whose
   * user compares the start and copies the rest). `groups`: the whole value in groups of four that wrap
   * between groups (a key a person types).
   */
  display?: 'ellipsis' | 'groups';
}

/**
 * issue 22: a long value in monospace with its copy button always on the same line beside it — a checksum
 * that wrapped mid-hash, or an authenticator key that ran to the card's edge, pushed the icon to a line of
 * its own.
 */
export function CopyableValue({ value, label, display = 'ellipsis' }: CopyableValueProps) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
      window.setTimeout(() => setCopied(false), 2000);
    } catch {
      setCopied(false);
    }
  };
  return (
    <span className={`copyable-value copyable-value-${display}`}>
      {display === 'groups' ? (
        <code className="copyable-value-text">
          {(value.match(/.{1,4}/g) ?? []).map((group, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the groups of one value, in order.
            <span key={i} className="copyable-value-group">
              {group}
            </span>
          ))}
        </code>
      ) : (
        <code className="copyable-value-text" title={value}>
          {value}
        </code>
      )}
      <Tooltip title={copied ? 'Copied' : 'Copy'}>
        <Button
          size="small"
          type="text"
          className="copyable-value-copy"
          onClick={copy}
          aria-label={`Copy ${label}`}
          icon={copied ? <CheckOutlined aria-hidden /> : <CopyOutlined aria-hidden />}
        />
      </Tooltip>
    </span>
  );
}
