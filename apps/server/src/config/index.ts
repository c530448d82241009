export {
  type Config,
  ConfigError,
  type ConfigInput,
  configSchema,
  loadConfig,
  parseConfig,
} from './config.ts';
