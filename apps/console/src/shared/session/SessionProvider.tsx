import {
  type Entitlements,
  FEATURE_FLAG_DEFAULTS,
  type FeaturesConfig,
  type GeneralConfig,
  type LicenseDetails,
  type LicenseType,
  NO_LICENSE,
  type Onboarding,
  type Project,
  type UserData,
  type Version,
} from '@granary/contracts';
import { useQueries, useQuery } from '@tanstack/react-query';
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from 'react';
import { projectsQueryOptions, readSelectedProject, storeSelectedProject } from './projects.ts';
import { currentUserQueryOptions } from './queries.ts';
import { DEFAULT_FLAVOUR, profileAttentionOf, type ShellContext, shellContext } from './shellContext.ts';
import {
  entitlementsQueryOptions,
  featuresQueryOptions,
  generalConfigQueryOptions,
  licenseQueryOptions,
  microservicesQueryOptions,
  onboardingQueryOptions,
  versionQueryOptions,
} from './startupQueries.ts';

export interface Session {
  /** Start-up still running (spec 000 §4: switched off at the end, or on failure). */
  loading: boolean;
  /** A start-up call failed; the console runs on defaults. */
  failed: boolean;
  user: UserData | null;
  generalConfig: GeneralConfig | undefined;
  microservices: Record<string, boolean>;
  entitlements: Entitlements | undefined;
  features: FeaturesConfig;
  version: Version | undefined;
  license: LicenseDetails | undefined;
  onboarding: Onboarding | undefined;
  /** Signed in, or anonymous access allowed: the configuration items were loaded. */
  canUseConsole: boolean;
  licenseType: LicenseType;
  /** spec 000 §4 step 3: set once the configuration items are in (a cloud trial instance). */
  cloudTrial: boolean;
  /**
   * spec 000 §4 step 3 quick-start initialisation (without relaunch): whether the wizard may start for this
   * session (an admin on a cloud trial). The wizard itself, and its repository checks, are a later screen.
   */
  quickStartEligible: boolean;
  /** The projects the user sees, for the top bar's selector (empty until loaded, or when signed out). */
  projects: Project[];
  /** The project chosen in the selector, or null for all projects. */
  selectedProject: string | null;
  selectProject(key: string | null): void;
  shell: ShellContext;
}

const SessionContext = createContext<Session | null>(null);

/**
 * spec 000 §4 application start: step 1 user data, general configuration (footer), microservices and
 * entitlements in parallel; step 2, when signed in or anonymous access is allowed, the configuration items in
 * parallel. Loading goes off at the end or on the first failure.
 */
export function useStartup(): Session {
  const user = useQuery(currentUserQueryOptions());
  const first = useQueries({
    queries: [generalConfigQueryOptions(), microservicesQueryOptions(), entitlementsQueryOptions()],
  });
  const [general, microservices, entitlements] = first;
  const firstDone = !user.isPending && first.every((q) => !q.isPending);
  const firstFailed = user.isError || first.some((q) => q.isError);
  const canUseConsole = Boolean(user.data) || Boolean(general.data?.anonymousAccessAllowed);
  const secondEnabled = firstDone && !firstFailed && canUseConsole;
  const second = useQueries({
    queries: [
      { ...featuresQueryOptions(), enabled: secondEnabled },
      { ...versionQueryOptions(), enabled: secondEnabled },
      { ...licenseQueryOptions(), enabled: secondEnabled },
      { ...onboardingQueryOptions(), enabled: secondEnabled },
    ],
  });
  const [features, version, license, onboarding] = second;
  const secondFailed = second.some((q) => q.isError);
  const loading =
    !firstFailed && !secondFailed && (!firstDone || (secondEnabled && second.some((q) => q.isPending)));

  const userData = user.data ?? null;
  const [chosenProject, setChosenProject] = useState(readSelectedProject);
  const projects = useQuery({ ...projectsQueryOptions(), enabled: userData !== null });
  const selectProject = useCallback((key: string | null) => {
    storeSelectedProject(key);
    setChosenProject(key);
  }, []);
  const projectList = projects.data ?? [];
  const selectedProject =
    chosenProject !== null && projectList.some((p) => p.project_key === chosenProject) ? chosenProject : null;
  const licenseType: LicenseType =
    license.data?.type ?? entitlements.data?.licenseType ?? general.data?.licenseType ?? NO_LICENSE;
  const featureFlags = useMemo(
    () => ({ ...FEATURE_FLAG_DEFAULTS, ...(features.data ?? {}) }) as FeaturesConfig,
    [features.data],
  );
  const flavour = general.data?.flavour ?? DEFAULT_FLAVOUR;
  // Step 3 runs after steps 1 and 2: the cloud-trial flag, then the quick-start initialisation.
  const stepThree = !loading && !firstFailed && !secondFailed;
  const cloudTrial = stepThree && flavour.cloud && flavour.trial;
  const admin = userData?.admin ?? false;
  return {
    loading,
    failed: firstFailed || secondFailed,
    user: userData,
    generalConfig: general.data,
    microservices: microservices.data ?? {},
    entitlements: entitlements.data,
    features: featureFlags,
    version: version.data,
    license: license.data,
    onboarding: onboarding.data,
    canUseConsole,
    licenseType,
    cloudTrial,
    quickStartEligible: cloudTrial && admin,
    projects: projectList,
    selectedProject,
    selectProject,
    shell: shellContext({
      signedIn: userData !== null,
      admin,
      // spec 000 §6: admins and project administrators can administer projects.
      projectAdmin: admin || (userData?.projectAdmin ?? false),
      projectSelected: selectedProject !== null,
      selectedProject,
      profileAttention: userData ? profileAttentionOf(userData) : null,
      flavour,
      licenseType,
      features: featureFlags,
      manageSubscriptionUrl: general.data?.baseUrl
        ? `${general.data.baseUrl.replace(/\/+$/, '')}/ui/admin/license_management/licenses`
        : null,
    }),
  };
}

/** Runs the start-up once for the main layout and gives its result to every screen below. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const session = useStartup();
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession is used outside SessionProvider');
  return session;
}
