import {
  type GeneralConfig,
  type GeneralConfigUpdate,
  generalConfigSchema,
  licenseDetailsSchema,
} from '@granary/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiErrorFromResponse } from '../../shared/api/ApiError.ts';
import { api, apiRequest, CSRF_HEADER, consoleApiUrl } from '../../shared/api/index.ts';
import { startupKeys } from '../../shared/session/startupQueries.ts';
import { loginConfigKey, loginConfigSchema } from '../login/queries.ts';

export {
  generalConfigQueryOptions,
  licenseQueryOptions,
} from '../../shared/session/startupQueries.ts';

function useSetGeneralConfig() {
  const queryClient = useQueryClient();
  return (config: GeneralConfig) => queryClient.setQueryData(startupKeys.generalConfig, config);
}

/** `POST ui/artifactgeneral` (admin). */
export function useUpdateGeneralConfig() {
  const set = useSetGeneralConfig();
  return useMutation({
    mutationFn: (update: GeneralConfigUpdate) => api.post('ui/artifactgeneral', update, generalConfigSchema),
    onSuccess: set,
  });
}

/** `PUT ui/generalConfig/logo` with the image as the raw body. */
export function useUploadLogo() {
  const set = useSetGeneralConfig();
  return useMutation({
    mutationFn: async (file: File) => {
      const response = await fetch(consoleApiUrl('ui/generalConfig/logo'), {
        method: 'PUT',
        headers: { 'Content-Type': file.type, [CSRF_HEADER]: '1', 'X-Requested-With': 'XMLHttpRequest' },
        body: file,
        credentials: 'same-origin',
      });
      const text = await response.text();
      if (!response.ok)
        throw apiErrorFromResponse(
          response.status,
          response.statusText,
          response.headers.get('content-type'),
          text,
        );
      return generalConfigSchema.parse(JSON.parse(text));
    },
    onSuccess: set,
  });
}

/** `DELETE ui/generalConfig/logo`. */
export function useRemoveLogo() {
  const set = useSetGeneralConfig();
  return useMutation({
    mutationFn: () => apiRequest('ui/generalConfig/logo', { method: 'DELETE', schema: generalConfigSchema }),
    onSuccess: set,
  });
}

function useLicenceChanged() {
  const queryClient = useQueryClient();
  return async () => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: startupKeys.license }),
      queryClient.invalidateQueries({ queryKey: startupKeys.entitlements }),
      queryClient.invalidateQueries({ queryKey: startupKeys.generalConfig }),
    ]);
  };
}

/** `POST system/licenses` with `{licenseKey}`. */
export function useInstallLicense() {
  const changed = useLicenceChanged();
  return useMutation({
    mutationFn: (licenseKey: string) => api.post('system/licenses', { licenseKey }, licenseDetailsSchema),
    onSuccess: changed,
  });
}

/** `DELETE system/licenses`. */
export function useRemoveLicense() {
  const changed = useLicenceChanged();
  return useMutation({
    mutationFn: () => apiRequest('system/licenses', { method: 'DELETE', schema: licenseDetailsSchema }),
    onSuccess: changed,
  });
}

export { loginConfigQueryOptions } from '../login/queries.ts';

/** `PATCH system/loginConfig` (admin): SSO sign-in URL, auto-redirect and SAML logout URL. */
export function useUpdateLoginConfig() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (update: {
      ssoLoginUrl: string | null;
      autoRedirectLogin: boolean;
      samlLogoutUrl: string | null;
    }) => api.patch('system/loginConfig', update, loginConfigSchema),
    onSuccess: (config) => queryClient.setQueryData(loginConfigKey, config),
  });
}
