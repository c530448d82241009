export {
  createLogging,
  LOG_FILES,
  type LogArea,
  type Logging,
  type LoggingOptions,
  lazyRequestLogger,
} from './logger.ts';
export { REDACTED, redactText, redactValue } from './redact.ts';
