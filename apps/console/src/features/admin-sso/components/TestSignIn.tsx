import type { SsoTestResult } from '@granary/contracts';
import { Alert, Descriptions, Tag, Typography } from 'antd';
import { useCallback, useEffect, useRef, useState } from 'react';
import { ssoTestUrl, testResultOf } from '../queries.ts';

/**
 * Issue 20 "test sign-in": the provider's flow runs in a popup (the identity provider's own pages); its last page
 * posts the mapped user to this window. Nothing is created and nobody is signed in by it.
 */
export function useTestSignIn() {
  const [result, setResult] = useState<SsoTestResult | null>(null);
  const [waiting, setWaiting] = useState(false);
  const popup = useRef<Window | null>(null);

  useEffect(() => {
    const onMessage = (event: MessageEvent) => {
      const answer = testResultOf(event);
      if (!answer) return;
      setResult(answer);
      setWaiting(false);
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, []);

  useEffect(() => {
    if (!waiting) return;
    // The admin may close the popup without finishing: stop waiting then.
    const timer = window.setInterval(() => {
      if (popup.current?.closed) setWaiting(false);
    }, 500);
    return () => window.clearInterval(timer);
  }, [waiting]);

  /** Opens the popup at once (inside the click, so no popup blocker stops it); `go` points it at the flow. */
  const open = useCallback(() => {
    setResult(null);
    const opened = window.open('about:blank', 'granary-sso-test', 'popup,width=560,height=720');
    popup.current = opened;
    setWaiting(opened !== null);
    return {
      blocked: opened === null,
      go: (key: string) => {
        // Absolute: a relative address would resolve against the popup's about:blank.
        if (opened && !opened.closed)
          opened.location.href = new URL(ssoTestUrl(key), window.location.origin).href;
      },
      cancel: () => {
        opened?.close();
        setWaiting(false);
      },
    };
  }, []);

  return { result, waiting, open, clear: () => setResult(null) };
}

/** The mapped user of a test sign-in: what Granary would create or update, and why not when it failed. */
export function TestSignInResult({ result }: { result: SsoTestResult }) {
  if (!result.ok) {
    return (
      <Alert
        type="error"
        showIcon
        title="Test sign-in failed"
        description={result.error ?? 'The identity provider did not sign the user in.'}
      />
    );
  }
  return (
    <Alert
      type="success"
      showIcon
      title="Test sign-in succeeded: this is the user Granary would sign in"
      description={
        <>
          <Descriptions
            size="small"
            column={1}
            items={[
              { key: 'username', label: 'User name', children: result.username ?? '—' },
              { key: 'email', label: 'Email', children: result.email ?? '—' },
              {
                key: 'groups',
                label: 'Groups',
                children:
                  result.groups.length > 0 ? (
                    <ul
                      aria-label="Mapped groups"
                      style={{ listStyle: 'none', margin: 0, padding: 0, display: 'inline' }}
                    >
                      {result.groups.map((group) => (
                        <li key={group} style={{ display: 'inline' }}>
                          <Tag>{group}</Tag>
                        </li>
                      ))}
                    </ul>
                  ) : (
                    'None'
                  ),
              },
              { key: 'admin', label: 'Administrator', children: result.admin ? 'Yes' : 'No' },
              { key: 'realm', label: 'Realm', children: result.realm },
            ]}
          />
          {result.claims && Object.keys(result.claims).length > 0 && (
            <details>
              <summary>Claims the identity provider sent</summary>
              <Typography.Paragraph>
                <pre style={{ maxHeight: 240, overflow: 'auto', margin: 0 }}>
                  {JSON.stringify(result.claims, null, 2)}
                </pre>
              </Typography.Paragraph>
            </details>
          )}
        </>
      }
    />
  );
}
