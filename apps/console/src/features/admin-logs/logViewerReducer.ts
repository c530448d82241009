import {
  DEFAULT_LOG_SERVICE,
  LOG_COUNTDOWN_TICK_MS,
  LOG_DEFAULT_REFRESH_MS,
  LOG_SERVICES,
  type LogConfig,
  type LogData,
} from '@granary/contracts';

/** A node the viewer can read logs of. */
export interface LogNode {
  node_id: string;
  status: string;
  current?: boolean;
}

/** A data read the viewer wants: the file from `offset` on, replacing the text or appended to it. */
export interface LogRead {
  seq: number;
  file: string;
  offset: number;
  fileId: string | undefined;
  mode: 'replace' | 'append';
}

/** The most text the viewer keeps: older lines are dropped from the top beyond it. */
export const LOG_VIEW_MAX_CHARS = 2_000_000;

/**
 * spec 001 §3 viewer state: productList, nodeList, selectedProduct (the repository service by default),
 * selectedNode, selectedFile, the service-changed flag (initial value 'initial'); with the log config,
 * the countdown and the text read so far.
 */
export interface LogViewerState {
  productList: string[];
  nodeList: LogNode[];
  selectedProduct: string;
  selectedNode: string | null;
  selectedFile: string | null;
  serviceChanged: 'initial' | boolean;
  files: string[];
  refreshRateMs: number;
  /** Seconds until the next automatic refresh. */
  countdown: number;
  paused: boolean;
  /** The config call failed: 'No Data Fetched', the timer stopped. */
  configFailed: boolean;
  dataFailed: boolean;
  content: string;
  fileSize: number;
  fileId: string | undefined;
  lastModified: number | null;
  lastUpdated: number | null;
  /** The read in flight or wanted next (null: none). */
  read: LogRead | null;
  seq: number;
}

export type LogViewerAction =
  | { type: 'serviceSelected'; service: string }
  | { type: 'nodesLoaded'; nodes: LogNode[] }
  | { type: 'nodeSelected'; nodeId: string }
  | { type: 'configLoaded'; config: LogConfig }
  | { type: 'configFailed' }
  | { type: 'fileSelected'; file: string }
  | { type: 'tick' }
  | { type: 'pause' }
  | { type: 'resume' }
  | { type: 'refreshNow' }
  | { type: 'dataLoaded'; seq: number; data: LogData }
  | { type: 'dataFailed'; seq: number };

/** spec 001 §9: the server's refresh rate, or 10000 ms when it is not a usable number. */
export function refreshRateOf(millis: unknown): number {
  return typeof millis === 'number' && Number.isFinite(millis) && millis >= LOG_COUNTDOWN_TICK_MS
    ? millis
    : LOG_DEFAULT_REFRESH_MS;
}

const secondsOf = (ms: number) => Math.round(ms / LOG_COUNTDOWN_TICK_MS);

export function initialLogViewerState(): LogViewerState {
  return {
    productList: [...LOG_SERVICES],
    nodeList: [],
    selectedProduct: DEFAULT_LOG_SERVICE,
    selectedNode: null,
    selectedFile: null,
    serviceChanged: 'initial',
    files: [],
    refreshRateMs: LOG_DEFAULT_REFRESH_MS,
    countdown: secondsOf(LOG_DEFAULT_REFRESH_MS),
    paused: false,
    configFailed: false,
    dataFailed: false,
    content: '',
    fileSize: 0,
    fileId: undefined,
    lastModified: null,
    lastUpdated: null,
    read: null,
    seq: 0,
  };
}

const cleared = {
  files: [] as string[],
  selectedFile: null,
  content: '',
  fileSize: 0,
  fileId: undefined,
  lastModified: null,
  lastUpdated: null,
  read: null,
  dataFailed: false,
};

/** A fresh read of `file` from the start, with the countdown restarted. */
function openFile(state: LogViewerState, file: string): LogViewerState {
  const seq = state.seq + 1;
  return {
    ...state,
    ...cleared,
    files: state.files,
    selectedFile: file,
    seq,
    read: { seq, file, offset: 0, fileId: undefined, mode: 'replace' },
    countdown: secondsOf(state.refreshRateMs),
  };
}

/** The next read of the selected file, from the prior file size on. */
function appendRead(state: LogViewerState): LogViewerState {
  if (!state.selectedFile) return state;
  const seq = state.seq + 1;
  return {
    ...state,
    seq,
    read: { seq, file: state.selectedFile, offset: state.fileSize, fileId: state.fileId, mode: 'append' },
    countdown: secondsOf(state.refreshRateMs),
  };
}

/** spec 001 §4 "Log viewer" transitions. */
export function logViewerReducer(state: LogViewerState, action: LogViewerAction): LogViewerState {
  switch (action.type) {
    case 'serviceSelected':
      // Choosing a service reloads nodes, then config.
      return {
        ...state,
        ...cleared,
        selectedProduct: action.service,
        serviceChanged: true,
        nodeList: [],
        selectedNode: null,
        configFailed: false,
      };
    case 'nodesLoaded': {
      const keep = action.nodes.some((n) => n.node_id === state.selectedNode);
      const chosen = keep
        ? state.selectedNode
        : ((action.nodes.find((n) => n.current) ?? action.nodes[0])?.node_id ?? null);
      return { ...state, nodeList: action.nodes, selectedNode: chosen };
    }
    case 'nodeSelected':
      // A node change reloads config.
      if (action.nodeId === state.selectedNode) return state;
      return { ...state, ...cleared, selectedNode: action.nodeId, configFailed: false };
    case 'configLoaded': {
      const next = {
        ...state,
        files: action.config.logs,
        refreshRateMs: refreshRateOf(action.config.refresh_rate_millis),
        configFailed: false,
      };
      const file =
        state.selectedFile && action.config.logs.includes(state.selectedFile)
          ? state.selectedFile
          : (action.config.logs[0] ?? null);
      if (file === null) return { ...next, ...cleared, files: action.config.logs };
      if (file === state.selectedFile && state.read !== null) return next;
      return openFile(next, file);
    }
    case 'configFailed':
      // A config failure stops the timer and pauses.
      return { ...state, ...cleared, configFailed: true, paused: true };
    case 'fileSelected':
      // A log file change refetches logs and restarts the countdown.
      return openFile(state, action.file);
    case 'tick': {
      if (state.paused || state.configFailed || !state.selectedFile) return state;
      const countdown = state.countdown - 1;
      // Below zero: new content is appended, read from the prior file size on; the countdown restarts.
      if (countdown < 0) return appendRead(state);
      return { ...state, countdown };
    }
    case 'pause':
      return { ...state, paused: true };
    case 'resume':
      return state.configFailed ? state : { ...state, paused: false };
    case 'refreshNow':
      // Manual refresh resets the countdown.
      return appendRead(state);
    case 'dataLoaded': {
      if (!state.read || action.seq !== state.read.seq) return state;
      const text =
        state.read.mode === 'replace' ? action.data.log_content : state.content + action.data.log_content;
      return {
        ...state,
        content: text.length > LOG_VIEW_MAX_CHARS ? text.slice(text.length - LOG_VIEW_MAX_CHARS) : text,
        fileSize: action.data.file_size,
        fileId: action.data.file_id,
        lastModified: action.data.last_update_modified,
        lastUpdated: action.data.last_update_label,
        dataFailed: false,
      };
    }
    case 'dataFailed':
      if (!state.read || action.seq !== state.read.seq) return state;
      return { ...state, dataFailed: true };
  }
}
