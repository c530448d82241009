export {
  createSecrets,
  loadMasterKey,
  masterKeyFile,
  parseMasterKey,
  type Secrets,
  SecretsError,
} from './secrets.ts';
