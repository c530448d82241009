export { ApiError, ClientErrorCode, codeForStatus, isApiError } from './ApiError.ts';
export {
  api,
  apiRequest,
  CONSOLE_API_PREFIX,
  CSRF_HEADER,
  consoleApiUrl,
  type HttpMethod,
  type RequestOptions,
} from './client.ts';
