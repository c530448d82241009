import {
  type CreatedRepos as ContractCreatedRepos,
  createQuickReposResponseSchema,
  gettingStartedClaimSchema,
  gettingStartedStateSchema,
  mavenDistributionManagementSchema,
  type OnboardingData,
  OTP_HEADER,
  onboardingPersonalizationStateSchema,
  type ProjectCreate,
  projectMembersSchema,
  projectSchema,
  QUICK_START_DEFAULTS,
  quickStartStatusSchema,
  quickStartSupportedSchema,
  reposModelSchema,
  reposStatesSchema,
  STATUS_POLLING_MS,
  setMeUpSchema,
} from '@granary/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { apiErrorFromResponse } from '../../shared/api/ApiError.ts';
import { api, CSRF_HEADER, consoleApiUrl } from '../../shared/api/index.ts';
import { projectsQueryOptions } from '../../shared/session/projects.ts';
import { startupKeys } from '../../shared/session/startupQueries.ts';
import type { FlowType, StatusFlag } from './quickStartFlows.ts';

/**
 * The onboarding calls (spec 000 §7 "Quick start", `GET/PUT system/onboarding`, `GET /projects`), and the one place
 * that maps their answers to the wizard's view models.
 */
export const onboardingKeys = {
  all: ['onboarding'] as const,
  state: ['onboarding', 'state'] as const,
  reposModel: ['onboarding', 'reposModel'] as const,
  baseUrl: ['onboarding', 'baseUrl'] as const,
  status: (repoKey: string) => ['onboarding', 'quickstart', 'status', repoKey] as const,
  distribution: (release: string, snapshot: string) =>
    ['onboarding', 'mavenDistributionManagement', release, snapshot] as const,
};

const asList = (value: string | readonly string[] | undefined | null): string[] =>
  value == null ? [] : typeof value === 'string' ? [value] : [...value];

/** The repositories the wizard created for one type; Maven's local and virtual are [release, snapshot]. */
export interface CreatedRepos {
  type: string;
  local: string[];
  remote: string[];
  virtual: string[];
}

export const toCreatedRepos = (r: ContractCreatedRepos): CreatedRepos => ({
  type: r.type,
  local: asList(r.local),
  remote: asList(r.remote),
  virtual: asList(r.virtual),
});

// --- questionnaire -----------------------------------------------------------------------------

/** `GET ui/onboarding/personalization`: whether the signed-in user already sent the questionnaire. */
export const onboardingStateQueryOptions = () =>
  queryOptions({
    queryKey: onboardingKeys.state,
    queryFn: ({ signal }) =>
      api.get('ui/onboarding/personalization', onboardingPersonalizationStateSchema, { signal }),
  });

/**
 * `POST ui/onboarding/personalization`: sends the questionnaire (stored as the user's custom data; the server
 * records the tracking event, spec 000 §4).
 */
export function useSendOnboardingMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (data: OnboardingData) => api.post('ui/onboarding/personalization', data),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: onboardingKeys.state }),
        queryClient.invalidateQueries({ queryKey: startupKeys.onboarding }),
      ]),
  });
}

// --- quick repositories ------------------------------------------------------------------------

/** spec 000 §7 `GET ui/onboarding/getReposModel`: the layout per registered package type. */
export const reposModelQueryOptions = () =>
  queryOptions({
    queryKey: onboardingKeys.reposModel,
    queryFn: async ({ signal }) => {
      const answer = await api.get('ui/onboarding/getReposModel', reposModelSchema, { signal });
      return answer.map((m) => ({ type: m.repoType }));
    },
    staleTime: 0,
  });

/** spec 000 §7 `POST ui/onboarding/createQuickRepos` {repoTypes}; reads createdReposByTypes. */
export function useCreateQuickReposMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (type: string): Promise<CreatedRepos> => {
      const answer = await api.post(
        'ui/onboarding/createQuickRepos',
        { repoTypes: [type] },
        createQuickReposResponseSchema,
      );
      const created = answer.createdReposByTypes[type];
      if (!created) throw new Error(`The server created no ${type} repositories`);
      return toCreatedRepos(created);
    },
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: onboardingKeys.reposModel }),
        queryClient.invalidateQueries({ queryKey: ['tree'] }),
      ]),
  });
}

/** `GET ui/setMeUp` (no repository): the server's public base URL for the commands. */
export const baseUrlQueryOptions = () =>
  queryOptions({
    queryKey: onboardingKeys.baseUrl,
    queryFn: async ({ signal }) => {
      const answer = await api.get('ui/setMeUp', setMeUpSchema, { signal });
      return answer.baseUrl.replace(/\/+$/, '') || window.location.origin;
    },
    staleTime: Number.POSITIVE_INFINITY,
  });

// --- quick-start sessions ----------------------------------------------------------------------

/** spec 000 §7 `GET ui/onboarding/quickstart/supported?repoKey`; spec 000 §8: a failed check means unsupported. */
export async function quickStartSupported(repoKey: string): Promise<boolean> {
  try {
    const answer = await api.get('ui/onboarding/quickstart/supported', quickStartSupportedSchema, {
      query: { repoKey },
    });
    return answer.supported;
  } catch (error) {
    console.warn('The quick-start support check failed', error);
    return false;
  }
}

/** The session of one flow, with spec 000 §9's defaults for its type. */
export function quickStartSession(type: FlowType, repoKey: string) {
  const D = QUICK_START_DEFAULTS;
  switch (type) {
    case 'docker':
      return {
        repoKey,
        downloadPackageName: D.docker.download.name,
        downloadVersion: D.docker.download.version,
        uploadPackageName: D.docker.upload.name,
        uploadVersion: D.docker.upload.version,
      };
    case 'npm':
      return { repoKey, downloadPackageName: D.npm.download.name, uploadPackageName: D.npm.upload.name };
    case 'maven':
      return { repoKey, downloadPackageName: D.maven.download.name, uploadPackageName: D.maven.upload.name };
    case 'pypi':
      return {
        repoKey,
        downloadPackageName: D.pypi.download.name,
        uploadPackageName: D.pypi.upload.name,
        uploadVersion: D.pypi.upload.version,
      };
  }
}

/** spec 000 §7 `POST /ui/onboarding/quickstart/start`. */
export function useStartQuickStartMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ type, repoKey }: { type: FlowType; repoKey: string }) =>
      api.post('ui/onboarding/quickstart/start', quickStartSession(type, repoKey)),
    onSuccess: (_answer, { repoKey }) =>
      queryClient.invalidateQueries({ queryKey: onboardingKeys.status(repoKey) }),
  });
}

/**
 * spec 000 §7 `GET /ui/onboarding/quickstart/status?repoKey`, polled every 3 seconds (§9) while the shown step
 * waits for `waitingFor`; one query per repository, so one poller at a time. Errors are logged only (§8).
 */
export const quickStartStatusQueryOptions = (repoKey: string, waitingFor: StatusFlag | null) =>
  queryOptions({
    queryKey: onboardingKeys.status(repoKey),
    queryFn: async ({ signal }) => {
      try {
        return await api.get('ui/onboarding/quickstart/status', quickStartStatusSchema, {
          signal,
          query: { repoKey },
        });
      } catch (error) {
        if (signal.aborted) throw error;
        console.warn('The quick-start status could not be read', error);
        return { isAuthenticated: false, isDownloaded: false, isPublished: false };
      }
    },
    refetchInterval: (query) =>
      waitingFor === null || query.state.data?.[waitingFor] === true ? false : STATUS_POLLING_MS,
    refetchIntervalInBackground: true,
  });

// --- Maven -------------------------------------------------------------------------------------

/** A console call answering text (settings.xml), with the CSRF header the server wants on a POST. */
async function postForText(
  path: string,
  body: unknown,
  extraHeaders: Record<string, string> = {},
): Promise<string> {
  const response = await fetch(consoleApiUrl(path), {
    method: 'POST',
    headers: {
      ...extraHeaders,
      Accept: 'application/xml, text/plain, */*',
      'Content-Type': 'application/json',
      'X-Requested-With': 'XMLHttpRequest',
      [CSRF_HEADER]: '1',
    },
    body: JSON.stringify(body),
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
  return text;
}

const mavenPair = (repos: CreatedRepos) => {
  const release = repos.virtual[0] ?? repos.local[0] ?? '';
  const snapshot = repos.virtual[1] ?? repos.local[1] ?? release;
  return { release, snapshot };
};

/** spec 000 §7 `ui/setMeUp/downloadBuildMaven`: settings.xml for the created Maven repositories. */
export function useMavenSettingsMutation() {
  return useMutation({
    mutationFn: ({ repos, otp }: { repos: CreatedRepos; otp?: string }) => {
      const { release, snapshot } = mavenPair(repos);
      return postForText(
        'ui/setMeUp/downloadBuildMaven',
        {
          release,
          snapshot,
          pluginRelease: release,
          pluginSnapshot: snapshot,
          mirrorAny: release,
          // issue 17: the downloaded settings.xml carries a real token of the user, so mvn works as downloaded.
          includeToken: true,
        },
        // A user with an authenticator makes that token with a fresh one-time code (issue 12 §2).
        otp?.trim() ? { [OTP_HEADER]: otp.trim() } : {},
      );
    },
  });
}

/** spec 000 §7 `ui/setMeUp/mavenDistributionManagement`: the pom's distributionManagement snippet. */
export const mavenDistributionManagementQueryOptions = (release: string, snapshot: string) =>
  queryOptions({
    queryKey: onboardingKeys.distribution(release, snapshot),
    queryFn: async ({ signal }) => {
      const answer = await api.post(
        'ui/setMeUp/mavenDistributionManagement',
        { release, snapshot },
        mavenDistributionManagementSchema,
        { signal },
      );
      return answer.distributionManagement;
    },
  });

// --- projects ----------------------------------------------------------------------------------

/** spec 000 §7 `GET /projects`: the projects the user sees (the shell's selector uses the same query). */
export const myProjectsQueryOptions = projectsQueryOptions;

/** `GET access/projects/{key}/users|groups`: the members of one project with their roles. */
export const projectMembersQueryOptions = (key: string, kind: 'users' | 'groups') =>
  queryOptions({
    queryKey: ['access', 'projects', key, kind] as const,
    queryFn: async ({ signal }) =>
      (await api.get(`access/projects/${encodeURIComponent(key)}/${kind}`, projectMembersSchema, { signal }))
        .members,
  });

/** `POST access/projects` from onboarding (spec 000 §8: a failure says "Failed to create a project"). */
export function useCreateOnboardingProjectMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (project: ProjectCreate) => api.post('access/projects', project, projectSchema),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: ['access', 'projects'] }),
        queryClient.invalidateQueries({ queryKey: ['admin', 'projects'] }),
      ]),
  });
}

// --- start-up launch (spec 000 §4 onboarding, "see the getting-started wizard once") ----------------

export const launchKeys = {
  gettingStarted: ['onboarding', 'gettingStarted'] as const,
  reposStates: ['onboarding', 'reposStates'] as const,
};

/** `GET ui/onboarding/gettingStarted`: whether this administrator was already shown the wizard (any browser, any node). */
export const gettingStartedQueryOptions = () =>
  queryOptions({
    queryKey: launchKeys.gettingStarted,
    queryFn: ({ signal }) => api.get('ui/onboarding/gettingStarted', gettingStartedStateSchema, { signal }),
    staleTime: Number.POSITIVE_INFINITY,
  });

/** `POST ui/onboarding/gettingStarted`: claims the one showing; `claimed` is false when another tab or node had it. */
export function useClaimGettingStartedMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.post('ui/onboarding/gettingStarted', {}, gettingStartedClaimSchema),
    onSuccess: ({ seen, seenAt }) => queryClient.setQueryData(launchKeys.gettingStarted, { seen, seenAt }),
  });
}

/** spec 000 §7 `GET ui/onboarding/reposStates` (reads repoStates): does the instance hold only default repositories? */
export const reposStatesQueryOptions = () =>
  queryOptions({
    queryKey: launchKeys.reposStates,
    queryFn: async ({ signal }) =>
      (await api.get('ui/onboarding/reposStates', reposStatesSchema, { signal })).repoStates,
  });
