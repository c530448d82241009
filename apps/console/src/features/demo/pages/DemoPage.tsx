import { DEMO_COUNTER, DEMO_MODEL_DELAY_MS } from '@granary/contracts';
import { Button, Card, Flex, Typography } from 'antd';
import { useEffect, useRef, useState } from 'react';

/** spec 000 §3 template demo model: a counter with change history supporting undo and redo. */
export function DemoPage() {
  const [history, setHistory] = useState<{ past: number[]; present: number; future: number[] }>({
    past: [],
    present: 0,
    future: [],
  });
  const [shown, setShown] = useState(0);
  const shownRef = useRef(0);
  shownRef.current = shown;
  const [model, setModel] = useState<string | null>(null);
  useEffect(() => {
    const timer = setTimeout(() => setModel('Demo model ready'), DEMO_MODEL_DELAY_MS);
    return () => clearTimeout(timer);
  }, []);
  // spec 000 §9: the counter animates to its value in 50 steps at 50 ms intervals.
  useEffect(() => {
    const from = shownRef.current;
    const to = history.present;
    if (from === to) return;
    let step = 0;
    const timer = setInterval(() => {
      step += 1;
      setShown(Math.round(from + ((to - from) * step) / DEMO_COUNTER.steps));
      if (step >= DEMO_COUNTER.steps) clearInterval(timer);
    }, DEMO_COUNTER.intervalMs);
    return () => clearInterval(timer);
  }, [history.present]);
  const change = (delta: number) =>
    setHistory((h) => ({ past: [...h.past, h.present], present: h.present + delta, future: [] }));
  return (
    <Flex vertical gap="large">
      <Typography.Title level={1}>Demo</Typography.Title>
      <Card title={<h2 className="card-heading">Counter</h2>}>
        <p aria-live="polite" style={{ fontSize: 32, margin: 0 }}>
          {shown}
        </p>
        <Flex gap="small">
          <Button onClick={() => change(10)}>Add 10</Button>
          <Button onClick={() => change(-10)}>Subtract 10</Button>
          <Button
            disabled={history.past.length === 0}
            onClick={() =>
              setHistory((h) => ({
                past: h.past.slice(0, -1),
                present: h.past.at(-1) ?? 0,
                future: [h.present, ...h.future],
              }))
            }
          >
            Undo
          </Button>
          <Button
            disabled={history.future.length === 0}
            onClick={() =>
              setHistory((h) => ({
                past: [...h.past, h.present],
                present: h.future[0] ?? 0,
                future: h.future.slice(1),
              }))
            }
          >
            Redo
          </Button>
        </Flex>
        <Typography.Paragraph style={{ marginTop: 16 }}>
          {model ?? 'Loading the demo model…'}
        </Typography.Paragraph>
      </Card>
    </Flex>
  );
}

/** spec 000 §2 /template: the screen-group template, reachable when its feature flag is on. */
export function TemplatePage() {
  return (
    <>
      <Typography.Title level={1}>Template</Typography.Title>
      <Typography.Paragraph>
        This is the starting point for a new screen group: a lazy route module with its own error boundary.
      </Typography.Paragraph>
    </>
  );
}
