import type { LogData } from '@granary/contracts';
import { describe, expect, it } from 'vitest';
import {
  initialLogViewerState,
  LOG_VIEW_MAX_CHARS,
  type LogViewerAction,
  type LogViewerState,
  logViewerReducer,
  refreshRateOf,
} from './logViewerReducer.ts';

const run = (state: LogViewerState, ...actions: LogViewerAction[]) => actions.reduce(logViewerReducer, state);
const data = (log_content: string, file_size: number, file_id = 'f1'): LogData => ({
  log_content,
  file_size,
  file_id,
  last_update_modified: 1_700_000_000_000,
  last_update_label: 1_700_000_001_000,
});
const NODES = [
  { node_id: 'node-a', status: 'Online', current: false },
  { node_id: 'node-b', status: 'Online', current: true },
];

/** A viewer showing `server.log` of node-b, its first read answered. */
function viewing(): LogViewerState {
  let s = run(
    initialLogViewerState(),
    { type: 'nodesLoaded', nodes: NODES },
    { type: 'configLoaded', config: { logs: ['server.log', 'request.log'], refresh_rate_millis: 5000 } },
  );
  s = logViewerReducer(s, { type: 'dataLoaded', seq: s.read!.seq, data: data('one\n', 4) });
  return s;
}

describe('spec 001 §3 log viewer state', () => {
  it("spec 001 §3: the viewer starts on the repository service with the service-changed flag 'initial'", () => {
    const s = initialLogViewerState();
    expect(s.selectedProduct).toBe('granary');
    expect(s.productList).toEqual(['granary']);
    expect(s.serviceChanged).toBe('initial');
    expect(s.selectedNode).toBeNull();
    expect(s.selectedFile).toBeNull();
  });

  it('spec 001 §9: refresh rate 10000 ms when the server gives an invalid one; countdown in 1 s ticks', () => {
    expect(refreshRateOf(5000)).toBe(5000);
    for (const bad of [undefined, null, 0, -5, Number.NaN, '3000', 10])
      expect(refreshRateOf(bad)).toBe(10_000);
    const s = run(
      initialLogViewerState(),
      { type: 'nodesLoaded', nodes: NODES },
      { type: 'configLoaded', config: { logs: ['server.log'], refresh_rate_millis: -1 } },
    );
    expect(s.refreshRateMs).toBe(10_000);
    expect(s.countdown).toBe(10);
  });
});

describe('spec 001 §4 log viewer transitions', () => {
  it('spec 001 §4: choosing a service reloads nodes, then config (lists and selections cleared, flag set)', () => {
    const s = logViewerReducer(viewing(), { type: 'serviceSelected', service: 'granary' });
    expect(s.serviceChanged).toBe(true);
    expect(s.nodeList).toEqual([]);
    expect(s.selectedNode).toBeNull(); // config waits for the node list
    expect(s.files).toEqual([]);
    expect(s.selectedFile).toBeNull();
    expect(s.content).toBe('');
    const withNodes = logViewerReducer(s, { type: 'nodesLoaded', nodes: NODES });
    expect(withNodes.selectedNode).toBe('node-b'); // this node first
  });

  it('spec 001 §4: a node change reloads config (files and text cleared until it answers)', () => {
    const s = logViewerReducer(viewing(), { type: 'nodeSelected', nodeId: 'node-a' });
    expect(s.selectedNode).toBe('node-a');
    expect(s.files).toEqual([]);
    expect(s.selectedFile).toBeNull();
    expect(s.read).toBeNull();
    const loaded = logViewerReducer(s, {
      type: 'configLoaded',
      config: { logs: ['server.log'], refresh_rate_millis: 5000 },
    });
    expect(loaded.selectedFile).toBe('server.log');
    expect(loaded.read).toMatchObject({ file: 'server.log', offset: 0, mode: 'replace' });
  });

  it('spec 001 §4: a log file change refetches logs and restarts the countdown', () => {
    let s = run(viewing(), { type: 'tick' }, { type: 'tick' });
    expect(s.countdown).toBe(3);
    const before = s.read!.seq;
    s = logViewerReducer(s, { type: 'fileSelected', file: 'request.log' });
    expect(s.selectedFile).toBe('request.log');
    expect(s.read).toMatchObject({ file: 'request.log', offset: 0, mode: 'replace' });
    expect(s.read!.seq).toBeGreaterThan(before);
    expect(s.countdown).toBe(5);
    expect(s.content).toBe('');
  });

  it('spec 001 §4: Pause stops the countdown; Resume goes on', () => {
    let s = run(viewing(), { type: 'pause' }, { type: 'tick' }, { type: 'tick' });
    expect(s.paused).toBe(true);
    expect(s.countdown).toBe(5);
    s = run(s, { type: 'resume' }, { type: 'tick' });
    expect(s.countdown).toBe(4);
  });

  it('spec 001 §4: below zero, new content is appended, read from the prior file size on, and the countdown restarts', () => {
    let s = viewing();
    const ticks: LogViewerAction[] = Array.from({ length: 5 }, () => ({ type: 'tick' }));
    s = run(s, ...ticks);
    expect(s.countdown).toBe(0);
    expect(s.read!.mode).toBe('replace'); // not yet
    s = logViewerReducer(s, { type: 'tick' });
    expect(s.read).toMatchObject({ file: 'server.log', offset: 4, fileId: 'f1', mode: 'append' });
    expect(s.countdown).toBe(5);
    s = logViewerReducer(s, { type: 'dataLoaded', seq: s.read!.seq, data: data('two\n', 8) });
    expect(s.content).toBe('one\ntwo\n');
    expect(s.fileSize).toBe(8);
    expect(s.lastModified).toBe(1_700_000_000_000);
    expect(s.lastUpdated).toBe(1_700_000_001_000);
  });

  it('spec 001 §4: manual refresh reads from the prior size and resets the countdown', () => {
    let s = run(viewing(), { type: 'tick' }, { type: 'tick' }, { type: 'tick' });
    s = logViewerReducer(s, { type: 'refreshNow' });
    expect(s.countdown).toBe(5);
    expect(s.read).toMatchObject({ offset: 4, mode: 'append' });
  });

  it("spec 001 §4 / §8: a config failure stops the timer and pauses ('No Data Fetched'); Resume cannot restart it", () => {
    let s = run(viewing(), { type: 'configFailed' });
    expect(s.configFailed).toBe(true);
    expect(s.paused).toBe(true);
    expect(s.content).toBe('');
    const countdown = s.countdown;
    s = run(s, { type: 'resume' }, { type: 'tick' }, { type: 'tick' });
    expect(s.paused).toBe(true);
    expect(s.countdown).toBe(countdown);
    expect(s.read).toBeNull();
  });

  it('an answer to a read the viewer no longer wants is dropped; the kept text is capped at its end', () => {
    let s = viewing();
    const old = s.read!.seq;
    s = logViewerReducer(s, { type: 'fileSelected', file: 'request.log' });
    expect(logViewerReducer(s, { type: 'dataLoaded', seq: old, data: data('stale', 99) })).toBe(s);
    const big = 'x'.repeat(LOG_VIEW_MAX_CHARS);
    s = logViewerReducer(s, { type: 'dataLoaded', seq: s.read!.seq, data: data(big, big.length) });
    s = logViewerReducer(s, { type: 'refreshNow' });
    s = logViewerReducer(s, { type: 'dataLoaded', seq: s.read!.seq, data: data('END', big.length + 3) });
    expect(s.content.length).toBe(LOG_VIEW_MAX_CHARS);
    expect(s.content.endsWith('xEND')).toBe(true);
  });
});
