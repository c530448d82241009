import {
  type DistributeRequest,
  type DistributionTargetCreate,
  type DistributionTargetUpdate,
  distributionSchema,
  distributionTargetSchema,
  type EnvironmentCreate,
  type EnvironmentUpdate,
  environmentSchema,
  type PromotionRequest,
  promotionSchema,
  promotionsSchema,
  type ReleaseBundleCreate,
  receivedSchema,
  releaseBundleCreatedSchema,
  releaseBundleNamesSchema,
  releaseBundleVersionSchema,
  releaseBundleVersionsSchema,
  type SigningKeyCreate,
  type SigningKeyImport,
  signingKeySchema,
} from '@granary/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api, restApi } from '../../shared/api/index.ts';

/**
 * Issue 19 release bundles v2 and distribution: JFrog's public paths as the server answers them
 * (packages/contracts/src/distribution.ts lists them): `/lifecycle/api/v2/…` (bundles, promotions, distribution),
 * `/access/api/v1/environments`, `/api/security/keypair`. All at the server's root.
 */
const enc = encodeURIComponent;
const ROOT = { base: '/' } as const;
const RB = 'lifecycle/api/v2/release_bundle';
const bundle = (name: string, version: string) => `${enc(name)}/${enc(version)}`;

export const bundleKeys = {
  all: ['releaseBundles'] as const,
  names: ['releaseBundles', 'names'] as const,
  versions: (name: string) => ['releaseBundles', 'versions', name] as const,
  version: (name: string, version: string) => ['releaseBundles', 'version', name, version] as const,
  promotions: (name: string, version: string) => ['releaseBundles', 'promotions', name, version] as const,
  distributions: (name: string, version: string) =>
    ['releaseBundles', 'distributions', name, version] as const,
  received: ['releaseBundles', 'received'] as const,
  keys: ['distribution', 'keys'] as const,
  environments: ['distribution', 'environments'] as const,
  targets: ['distribution', 'targets'] as const,
};

export const bundleNamesQueryOptions = () =>
  queryOptions({
    queryKey: bundleKeys.names,
    queryFn: ({ signal }) => api.get(`${RB}/names`, releaseBundleNamesSchema, { ...ROOT, signal }),
  });

export const bundleVersionsQueryOptions = (name: string) =>
  queryOptions({
    queryKey: bundleKeys.versions(name),
    queryFn: ({ signal }) =>
      api.get(`${RB}/records/${enc(name)}`, releaseBundleVersionsSchema, { ...ROOT, signal }),
  });

export const bundleVersionQueryOptions = (name: string, version: string) =>
  queryOptions({
    queryKey: bundleKeys.version(name, version),
    queryFn: ({ signal }) =>
      api.get(`${RB}/records/${bundle(name, version)}`, releaseBundleVersionSchema, { ...ROOT, signal }),
  });

export const promotionsQueryOptions = (name: string, version: string) =>
  queryOptions({
    queryKey: bundleKeys.promotions(name, version),
    queryFn: ({ signal }) =>
      api.get(`lifecycle/api/v2/promotion/records/${bundle(name, version)}`, promotionsSchema, {
        ...ROOT,
        signal,
      }),
  });

/** The bundle's distributions, newest first; polled while one is in progress. */
export const distributionsQueryOptions = (name: string, version: string) =>
  queryOptions({
    queryKey: bundleKeys.distributions(name, version),
    queryFn: ({ signal }) =>
      api.get(
        `lifecycle/api/v2/distribution/trackers/${bundle(name, version)}`,
        z.array(distributionSchema),
        {
          ...ROOT,
          signal,
        },
      ),
    refetchInterval: (query) => (query.state.data?.some((d) => d.status === 'IN_PROGRESS') ? 3000 : false),
  });

/** The target tab: bundles this instance received from others. */
export const receivedQueryOptions = () =>
  queryOptions({
    queryKey: bundleKeys.received,
    queryFn: ({ signal }) =>
      api.get('lifecycle/api/v2/distribution/received', z.array(receivedSchema), { ...ROOT, signal }),
    refetchInterval: (query) => (query.state.data?.some((d) => d.status === 'IN_PROGRESS') ? 3000 : false),
  });

export const signingKeysQueryOptions = () =>
  queryOptions({
    queryKey: bundleKeys.keys,
    queryFn: ({ signal }) => restApi.get('security/keypair', z.array(signingKeySchema), { signal }),
  });

export const environmentsQueryOptions = () =>
  queryOptions({
    queryKey: bundleKeys.environments,
    queryFn: ({ signal }) =>
      api.get('access/api/v1/environments', z.array(environmentSchema), { ...ROOT, signal }),
  });

export const targetsQueryOptions = () =>
  queryOptions({
    queryKey: bundleKeys.targets,
    queryFn: ({ signal }) =>
      api.get('lifecycle/api/v2/distribution/targets', z.array(distributionTargetSchema), {
        ...ROOT,
        signal,
      }),
  });

function useInvalidating<TVars, TResult>(
  mutationFn: (vars: TVars) => Promise<TResult>,
  keys: readonly (readonly string[])[],
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: () => Promise.all(keys.map((queryKey) => queryClient.invalidateQueries({ queryKey }))),
  });
}

/** `POST /lifecycle/api/v2/release_bundle` with the signing key in `X-JFrog-Signing-Key-Name`. */
export function useCreateBundleMutation() {
  return useInvalidating(
    ({ body, signingKey }: { body: ReleaseBundleCreate; signingKey: string }) =>
      api.post(RB, body, releaseBundleCreatedSchema, {
        ...ROOT,
        headers: { 'X-JFrog-Signing-Key-Name': signingKey },
      }),
    [bundleKeys.all],
  );
}

export function useDeleteBundleMutation() {
  return useInvalidating(
    ({ name, version }: { name: string; version: string }) =>
      api.delete(`${RB}/records/${bundle(name, version)}`, undefined, ROOT),
    [bundleKeys.all],
  );
}

export function usePromoteBundleMutation(name: string, version: string) {
  return useInvalidating(
    (body: PromotionRequest) =>
      api.post(`lifecycle/api/v2/promotion/records/${bundle(name, version)}`, body, promotionSchema, ROOT),
    [bundleKeys.all],
  );
}

export function useDistributeBundleMutation(name: string, version: string) {
  return useInvalidating(
    (body: DistributeRequest) =>
      api.post(
        `lifecycle/api/v2/distribution/distribute/${bundle(name, version)}`,
        body,
        distributionSchema,
        ROOT,
      ),
    [bundleKeys.distributions(name, version)],
  );
}

export function useRetryDistributionMutation(name: string, version: string) {
  return useInvalidating(
    (trackerId: string) =>
      api.post(
        `lifecycle/api/v2/distribution/trackers/${bundle(name, version)}/${enc(trackerId)}/retry`,
        undefined,
        distributionSchema,
        ROOT,
      ),
    [bundleKeys.distributions(name, version)],
  );
}

// --- admin: signing keys, environments, targets ---------------------------------------------------

export function useCreateSigningKeyMutation() {
  return useInvalidating(
    (body: SigningKeyCreate | SigningKeyImport) => restApi.post('security/keypair', body, signingKeySchema),
    [bundleKeys.keys],
  );
}
export function useDeleteSigningKeyMutation() {
  return useInvalidating(
    (pairName: string) => restApi.delete(`security/keypair/${enc(pairName)}`),
    [bundleKeys.keys],
  );
}

export function useSaveEnvironmentMutation() {
  return useInvalidating(
    ({ name, create, body }: { name: string; create: boolean; body: EnvironmentUpdate }) =>
      create
        ? api.post(
            'access/api/v1/environments',
            { ...body, name } satisfies EnvironmentCreate,
            environmentSchema,
            ROOT,
          )
        : api.put(`access/api/v1/environments/${enc(name)}`, body, environmentSchema, ROOT),
    [bundleKeys.environments],
  );
}
export function useDeleteEnvironmentMutation() {
  return useInvalidating(
    (name: string) => api.delete(`access/api/v1/environments/${enc(name)}`, undefined, ROOT),
    [bundleKeys.environments],
  );
}

export function useSaveTargetMutation() {
  return useInvalidating(
    ({ create, name, body }: { create: boolean; name: string; body: DistributionTargetUpdate }) =>
      create
        ? api.post(
            'lifecycle/api/v2/distribution/targets',
            { ...body, name } as DistributionTargetCreate,
            distributionTargetSchema,
            ROOT,
          )
        : api.put(`lifecycle/api/v2/distribution/targets/${enc(name)}`, body, distributionTargetSchema, ROOT),
    [bundleKeys.targets],
  );
}
export function useDeleteTargetMutation() {
  return useInvalidating(
    (name: string) => api.delete(`lifecycle/api/v2/distribution/targets/${enc(name)}`, undefined, ROOT),
    [bundleKeys.targets],
  );
}
