import {
  APPLICATIONS_API,
  type ApplicationCreate,
  applicationCreatedSchema,
  applicationListSchema,
  authorizeAnswerSchema,
  consentRequestSchema,
  userIntegrationListSchema,
} from '@granary/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../shared/api/index.ts';

/**
 * spec 001 §7 "Application integrations" (issue 18): OAuth applications an admin registers, the applications a user
 * authorized (user integrations), and the consent the authorization server sends the user to. All under the console
 * API at `integrations/applications` (packages/contracts/src/applications.ts).
 */
const enc = encodeURIComponent;

export const applicationKeys = {
  list: ['integrations', 'applications'] as const,
  userIntegrations: (username: string) => ['integrations', 'user-integrations', username] as const,
  consent: (requestId: string) => ['integrations', 'consent', requestId] as const,
};

export const applicationsQueryOptions = () =>
  queryOptions({
    queryKey: applicationKeys.list,
    queryFn: ({ signal }) => api.get(APPLICATIONS_API, applicationListSchema, { signal }),
  });

/** `POST` create: answers the application with its client secret, the one time it is ever shown. */
export function useCreateApplicationMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ApplicationCreate) => api.post(APPLICATIONS_API, body, applicationCreatedSchema),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: applicationKeys.list }),
  });
}

export function useDeleteApplicationMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.delete(`${APPLICATIONS_API}/${enc(id)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: applicationKeys.list }),
  });
}

/** `GET user-integrations/{username}`: the applications the user authorized. */
export const userIntegrationsQueryOptions = (username: string) =>
  queryOptions({
    queryKey: applicationKeys.userIntegrations(username),
    queryFn: ({ signal }) =>
      api.get(`${APPLICATIONS_API}/user-integrations/${enc(username)}`, userIntegrationListSchema, {
        signal,
        query: { internal: true },
      }),
  });

/** `DELETE user-integrations/{client_id}/{username}`: revokes the application's tokens for the user. */
export function useRevokeUserIntegrationMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ clientId, username }: { clientId: string; username: string }) =>
      api.delete(`${APPLICATIONS_API}/user-integrations/${enc(clientId)}/${enc(username)}`),
    onSuccess: (_d, { username }) =>
      queryClient.invalidateQueries({ queryKey: applicationKeys.userIntegrations(username) }),
  });
}

/** `GET consent/{requestId}`: the pending authorization request the consent screen shows. */
export const consentQueryOptions = (requestId: string) =>
  queryOptions({
    queryKey: applicationKeys.consent(requestId),
    queryFn: ({ signal }) =>
      api.get(`${APPLICATIONS_API}/consent/${enc(requestId)}`, consentRequestSchema, { signal }),
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });

/** Approve (`POST authorize/{clientId}/{username}` {requestId}) or deny: both answer the URL to send the browser to. */
export function useConsentDecisionMutation() {
  return useMutation({
    mutationFn: ({
      approve,
      requestId,
      clientId,
      username,
    }: {
      approve: boolean;
      requestId: string;
      clientId: string;
      username: string;
    }) =>
      approve
        ? api.post(
            `${APPLICATIONS_API}/authorize/${enc(clientId)}/${enc(username)}`,
            { requestId },
            authorizeAnswerSchema,
          )
        : api.post(`${APPLICATIONS_API}/consent/${enc(requestId)}/deny`, {}, authorizeAnswerSchema),
  });
}
