export { ApiError, ClientErrorCode, codeForStatus, isApiError } from './ApiError.ts';
export {
  api,
  apiRequest,
  CONSOLE_API_PREFIX,
  CSRF_HEADER,
  consoleApiUrl,
  type HttpMethod,
  REST_API_PREFIX,
  type RequestOptions,
  restApi,
} from './client.ts';
