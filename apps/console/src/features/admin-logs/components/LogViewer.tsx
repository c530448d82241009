import { LOG_COUNTDOWN_TICK_MS } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, App, Button, Empty, Flex, Input, Select, Space, Typography } from 'antd';
import type { TextAreaRef } from 'antd/es/input/TextArea';
import { type ReactNode, useEffect, useReducer, useRef } from 'react';
import { initialLogViewerState, logViewerReducer } from '../logViewerReducer.ts';
import { logConfigQueryOptions, logDataQueryOptions, logNodesQueryOptions } from '../queries.ts';
import '../logs.css';

/** spec 001 §8: what the viewer shows when the log configuration could not be fetched. */
export const NO_DATA_FETCHED = 'No Data Fetched';

const SERVICE_LABELS: Record<string, string> = { granary: 'Granary' };

const when = (ms: number | null) => (ms === null ? '—' : new Date(ms).toLocaleString());

export interface LogViewerProps {
  /** Shown above the text while nothing has been read yet (the support-bundle logs screen's waiting-for-logs message). */
  waitingMessage?: ReactNode;
  /** Shown beside the controls (the system logs page's link to Support Zone). */
  extra?: ReactNode;
}

/**
 * The live log viewer (spec 001 §2 "Log viewer and support-bundle logs"): service, node and file
 * dropdowns, a countdown to the next refresh with Pause, Resume and Refresh now, the file's last
 * modification and the view's last update, and the log in a read-only text area kept at its end.
 * Its state follows spec 001 §4 "Log viewer" (logViewerReducer.ts).
 */
export function LogViewer({ waitingMessage, extra }: LogViewerProps) {
  const { notification } = App.useApp();
  const [state, dispatch] = useReducer(logViewerReducer, undefined, initialLogViewerState);
  const { selectedProduct: service, selectedNode: node, read } = state;

  const nodes = useQuery(logNodesQueryOptions(service));
  const config = useQuery(logConfigQueryOptions(service, node));
  const data = useQuery(logDataQueryOptions(service, node, read));

  // Each answer enters the viewer's state once (the queries fetch; these only hand their results over).
  useEffect(() => {
    if (nodes.data) dispatch({ type: 'nodesLoaded', nodes: nodes.data });
  }, [nodes.data]);
  useEffect(() => {
    if (nodes.error)
      notification.error({ message: 'Could not load the nodes', description: nodes.error.message });
  }, [nodes.error, notification]);
  useEffect(() => {
    if (config.data) dispatch({ type: 'configLoaded', config: config.data });
  }, [config.data]);
  useEffect(() => {
    if (!config.error) return;
    dispatch({ type: 'configFailed' });
    notification.error({
      message: 'Could not load the log configuration',
      description: config.error.message,
    });
  }, [config.error, notification]);
  useEffect(() => {
    if (data.data && read) dispatch({ type: 'dataLoaded', seq: read.seq, data: data.data });
  }, [data.data, read]);
  useEffect(() => {
    if (!data.error || !read) return;
    dispatch({ type: 'dataFailed', seq: read.seq });
    notification.error({ message: `Could not read ${read.file}`, description: data.error.message });
  }, [data.error, read, notification]);

  // spec 001 §9: the countdown ticks every second while running.
  const running = !state.paused && !state.configFailed && state.selectedFile !== null;
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => dispatch({ type: 'tick' }), LOG_COUNTDOWN_TICK_MS);
    return () => clearInterval(timer);
  }, [running]);

  // The text area stays scrolled to the end as lines arrive.
  const text = useRef<TextAreaRef>(null);
  useEffect(() => {
    const el = text.current?.resizableTextArea?.textArea;
    if (el && state.content) el.scrollTop = el.scrollHeight;
  }, [state.content]);

  return (
    <Flex vertical gap={12}>
      <Flex wrap gap={12} align="end">
        <div className="log-viewer-field">
          <span>Service</span>
          <Select
            aria-label="Service"
            value={service}
            style={{ minWidth: 160 }}
            options={state.productList.map((s) => ({ value: s, label: SERVICE_LABELS[s] ?? s }))}
            onChange={(value) => dispatch({ type: 'serviceSelected', service: value })}
          />
        </div>
        <div className="log-viewer-field">
          <span>Node</span>
          <Select
            aria-label="Node"
            value={node ?? undefined}
            loading={nodes.isFetching}
            style={{ minWidth: 260 }}
            options={state.nodeList.map((n) => ({
              value: n.node_id,
              label: `${n.node_id}${n.status === 'Online' ? '' : ` (${n.status})`}`,
            }))}
            onChange={(value) => dispatch({ type: 'nodeSelected', nodeId: value })}
          />
        </div>
        <div className="log-viewer-field">
          <span>Log file</span>
          <Select
            aria-label="Log file"
            value={state.selectedFile ?? undefined}
            loading={config.isFetching}
            style={{ minWidth: 200 }}
            options={state.files.map((f) => ({ value: f, label: f }))}
            onChange={(value) => dispatch({ type: 'fileSelected', file: value })}
          />
        </div>
        {extra}
      </Flex>
      <Flex wrap gap={16} align="center">
        <Typography.Text role="timer" aria-live="off" data-testid="log-countdown">
          {state.configFailed || !state.selectedFile
            ? 'Automatic refresh stopped'
            : state.paused
              ? `Paused — next refresh in ${Math.max(0, state.countdown)} s`
              : `Next refresh in ${Math.max(0, state.countdown)} s`}
        </Typography.Text>
        <Space>
          {state.paused ? (
            <Button onClick={() => dispatch({ type: 'resume' })} disabled={state.configFailed}>
              Resume
            </Button>
          ) : (
            <Button onClick={() => dispatch({ type: 'pause' })}>Pause</Button>
          )}
          <Button
            type="primary"
            onClick={() => dispatch({ type: 'refreshNow' })}
            disabled={!state.selectedFile}
          >
            Refresh now
          </Button>
        </Space>
        <Typography.Text type="secondary">
          File last modified: <span data-testid="log-last-modified">{when(state.lastModified)}</span>
        </Typography.Text>
        <Typography.Text type="secondary">
          View last updated: <span data-testid="log-last-updated">{when(state.lastUpdated)}</span>
        </Typography.Text>
      </Flex>
      {state.configFailed ? (
        <Empty description={NO_DATA_FETCHED} />
      ) : (
        <>
          {state.dataFailed && <Alert type="error" showIcon message={NO_DATA_FETCHED} />}
          {waitingMessage && !state.content && <Alert type="info" showIcon message={waitingMessage} />}
          <Input.TextArea
            ref={text}
            aria-label="Log content"
            readOnly
            value={state.content}
            className="log-viewer-text"
            autoSize={false}
            rows={28}
            spellCheck={false}
          />
        </>
      )}
    </Flex>
  );
}
