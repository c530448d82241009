export {
  createLogging,
  LOG_FILES,
  type LogArea,
  type Logging,
  type LoggingOptions,
} from './logger.ts';
export { REDACTED, redactText, redactValue } from './redact.ts';
