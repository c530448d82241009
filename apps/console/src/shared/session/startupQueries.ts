import {
  entitlementsSchema,
  featuresConfigSchema,
  generalConfigSchema,
  licenseDetailsSchema,
  microservicesSchema,
  onboardingSchema,
  versionSchema,
} from '@granary/contracts';
import { queryOptions } from '@tanstack/react-query';
import { api } from '../api/index.ts';

/**
 * spec 000 §4 application start and §7 start-up calls. Step 1 (user data is `currentUserQueryOptions`):
 * general configuration (footer, logo, flavour), microservices and entitlements. Step 2, only when signed in or
 * anonymous access is allowed: feature flags, version, licence and onboarding, in parallel.
 */
export const startupKeys = {
  generalConfig: ['system', 'general-config'] as const,
  microservices: ['system', 'microservices'] as const,
  entitlements: ['system', 'entitlements'] as const,
  features: ['system', 'features'] as const,
  version: ['system', 'version'] as const,
  license: ['system', 'license'] as const,
  onboarding: ['system', 'onboarding'] as const,
};

const STARTUP_STALE_MS = 60_000;

export const generalConfigQueryOptions = () =>
  queryOptions({
    queryKey: startupKeys.generalConfig,
    queryFn: ({ signal }) => api.get('ui/generalConfig', generalConfigSchema, { signal }),
    staleTime: STARTUP_STALE_MS,
  });

export const microservicesQueryOptions = () =>
  queryOptions({
    queryKey: startupKeys.microservices,
    queryFn: ({ signal }) => api.get('system/ismicroserviceenabled', microservicesSchema, { signal }),
    staleTime: STARTUP_STALE_MS,
  });

export const entitlementsQueryOptions = () =>
  queryOptions({
    queryKey: startupKeys.entitlements,
    queryFn: ({ signal }) => api.get('jfconnect/entitlements', entitlementsSchema, { signal }),
    staleTime: STARTUP_STALE_MS,
  });

export const featuresQueryOptions = () =>
  queryOptions({
    queryKey: startupKeys.features,
    queryFn: ({ signal }) => api.get('system/featuresConfig', featuresConfigSchema, { signal }),
    staleTime: STARTUP_STALE_MS,
  });

export const versionQueryOptions = () =>
  queryOptions({
    queryKey: startupKeys.version,
    queryFn: ({ signal }) => api.get('system/version', versionSchema, { signal }),
    staleTime: STARTUP_STALE_MS,
  });

export const licenseQueryOptions = () =>
  queryOptions({
    queryKey: startupKeys.license,
    queryFn: ({ signal }) => api.get('system/licenses', licenseDetailsSchema, { signal }),
    staleTime: STARTUP_STALE_MS,
  });

export const onboardingQueryOptions = () =>
  queryOptions({
    queryKey: startupKeys.onboarding,
    queryFn: ({ signal }) => api.get('system/onboarding', onboardingSchema, { signal }),
    staleTime: STARTUP_STALE_MS,
  });
