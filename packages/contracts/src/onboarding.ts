import { z } from 'zod';

/**
 * Onboarding and the quick-start wizard (issue 17; spec 000 §3 onboarding data, quick-start layout, created repos,
 * session and status flags; §4; §5 validation; §7 "Quick start" calls; §9 constants live in constants.ts:
 * QUICK_START_WAIT_MS, STATUS_POLLING_MS, SEARCH_DEBOUNCE_MS, COPY_INDICATOR_MS, QUICK_START_DEFAULTS).
 * Every call is under the console API prefix `/ui/api/v1/` and is for administrators (spec 000 §6).
 */

// ---------------------------------------------------------------------------------------------
// The questionnaire (spec 000 §3 onboarding data, §4 steps, §5 rules)
// ---------------------------------------------------------------------------------------------

export const ONBOARDING_PURPOSES = ['Commercial', 'Personal'] as const;
export const ONBOARDING_ROLES = [
  'DevOps Engineer',
  'Software Developer',
  'DevSecOps Engineer',
  'Other',
] as const;
export const ONBOARDING_DESIRED_FEATURES = [
  'Binary management',
  'Team Administration',
  'Single Sign On',
  'Vulnerabilities Scanning',
  'License Compliance Checks',
  'CI/CD',
  'Container Registry',
  'Software Bill Of Materials (SBOM)',
] as const;

/** The messages of the §5 rules (the spec gives none: these are Granary's). */
export const ONBOARDING_MESSAGES = {
  purposeRequired: 'Choose what you will use the product for',
  roleRequired: 'Choose your role',
  otherRoleRequired: 'Describe your role',
  companyNameRequired: 'Enter your company name',
  desiredFeatureRequired: 'Choose at least one feature',
} as const;

/** The questionnaire steps (spec 000 §4); `initial` asks nothing. */
export const ONBOARDING_STEPS = ['initial', 'purpose', 'details', 'desiredFeatures'] as const;
export type OnboardingStep = (typeof ONBOARDING_STEPS)[number];

/** The answers as sent; empty strings and nulls stand for "not answered". */
export interface OnboardingAnswers {
  purpose: string | null;
  companyName: string;
  ossProjectName: string;
  role: string | null;
  otherRole: string;
  desiredFeature: readonly string[];
}

/**
 * spec 000 §5: purpose valid only with a purpose chosen; details valid when a role is chosen, when role Other has
 * the other-role text and, for purpose Commercial, when the company name is filled (the OSS project name is not
 * required); desired features need at least one selection. The problems of one step, or of all with no step.
 */
export function onboardingProblems(answers: Partial<OnboardingAnswers>, step?: OnboardingStep): string[] {
  const problems: string[] = [];
  const check = (s: OnboardingStep) => step === undefined || step === s;
  const filled = (v: string | null | undefined) => (v ?? '').trim().length > 0;
  if (check('purpose') && !(ONBOARDING_PURPOSES as readonly string[]).includes(answers.purpose ?? ''))
    problems.push(ONBOARDING_MESSAGES.purposeRequired);
  if (check('details')) {
    if (answers.purpose === 'Commercial' && !filled(answers.companyName))
      problems.push(ONBOARDING_MESSAGES.companyNameRequired);
    if (!(ONBOARDING_ROLES as readonly string[]).includes(answers.role ?? ''))
      problems.push(ONBOARDING_MESSAGES.roleRequired);
    else if (answers.role === 'Other' && !filled(answers.otherRole))
      problems.push(ONBOARDING_MESSAGES.otherRoleRequired);
  }
  if (check('desiredFeatures') && (answers.desiredFeature ?? []).length === 0)
    problems.push(ONBOARDING_MESSAGES.desiredFeatureRequired);
  return problems;
}

/** `POST ui/onboarding/personalization` body: the questionnaire, checked by the §5 rules. */
export const onboardingDataSchema = z
  .strictObject({
    purpose: z.enum(ONBOARDING_PURPOSES, ONBOARDING_MESSAGES.purposeRequired),
    companyName: z.string().trim().max(256).default(''),
    ossProjectName: z.string().trim().max(256).default(''),
    role: z.enum(ONBOARDING_ROLES, ONBOARDING_MESSAGES.roleRequired),
    otherRole: z.string().trim().max(256).default(''),
    desiredFeature: z.array(z.enum(ONBOARDING_DESIRED_FEATURES)).max(ONBOARDING_DESIRED_FEATURES.length),
  })
  .superRefine((data, ctx) => {
    for (const message of onboardingProblems(data)) ctx.addIssue({ code: 'custom', message });
  });
export type OnboardingData = z.infer<typeof onboardingDataSchema>;

/** `GET ui/onboarding/personalization`: whether the signed-in user sent the questionnaire. */
export const onboardingPersonalizationStateSchema = z.object({
  sent: z.boolean(),
  sentAt: z.string().nullable(),
});
export type OnboardingPersonalizationState = z.infer<typeof onboardingPersonalizationStateSchema>;

// ---------------------------------------------------------------------------------------------
// Quick repositories (spec 000 §3 layout and created repos, §7)
// ---------------------------------------------------------------------------------------------

/** `GET ui/onboarding/getReposModel` item: the keys the wizard would create for one registered package type. */
export const quickRepoLayoutSchema = z.object({
  repoType: z.string(),
  /** The repository layout name (e.g. maven-2-default, npm-default, simple-default). */
  layout: z.string(),
  /** Maven: [release, snapshot]. */
  localRepoKeys: z.array(z.string()),
  remoteRepoKeys: z.array(z.string()),
  /** Maven: [release, snapshot]. */
  virtualRepoKeys: z.array(z.string()),
});
export type QuickRepoLayout = z.infer<typeof quickRepoLayoutSchema>;
export const reposModelSchema = z.array(quickRepoLayoutSchema);

/** `GET ui/onboarding/reposStates`: reads repoStates (spec 000 §4: the wizard starts when only default repos exist). */
export const reposStatesSchema = z.object({
  repoStates: z.object({
    onlyDefaultRepositories: z.boolean(),
    /** Keys of the repositories that exist now. */
    existingKeys: z.array(z.string()),
  }),
});

/** `POST ui/onboarding/validateBatch`: are these keys free and valid? */
export const validateBatchRequestSchema = z.strictObject({ repoKeys: z.array(z.string()).min(1).max(50) });
export const validateBatchResponseSchema = z.object({
  results: z.array(z.object({ key: z.string(), valid: z.boolean(), message: z.string().optional() })),
});

/** `POST ui/onboarding/createQuickRepos` body. */
export const createQuickReposRequestSchema = z.strictObject({
  repoTypes: z.array(z.string().min(1).max(64)).min(1).max(20),
});
/** One type's created repositories; for Maven `local` and `virtual` are [release, snapshot]. */
export const createdReposSchema = z.object({
  type: z.string(),
  local: z.union([z.string(), z.array(z.string())]),
  remote: z.string(),
  virtual: z.union([z.string(), z.array(z.string())]),
});
export type CreatedRepos = z.infer<typeof createdReposSchema>;
export const createQuickReposResponseSchema = z.object({
  createdReposByTypes: z.record(z.string(), createdReposSchema),
});

// ---------------------------------------------------------------------------------------------
// Quick-start sessions (spec 000 §3 session and flags, §7)
// ---------------------------------------------------------------------------------------------

/** `POST ui/onboarding/quickstart/start` body. */
export const quickStartSessionSchema = z.strictObject({
  repoKey: z.string().min(1).max(200),
  downloadPackageName: z.string().min(1).max(256),
  downloadVersion: z.string().max(128).optional(),
  uploadPackageName: z.string().min(1).max(256),
  uploadVersion: z.string().max(128).optional(),
});
export type QuickStartSession = z.infer<typeof quickStartSessionSchema>;

/** `GET ui/onboarding/quickstart/status?repoKey`: isAuthenticated (Docker step 0), isDownloaded, isPublished. */
export const quickStartStatusSchema = z.object({
  isAuthenticated: z.boolean(),
  isDownloaded: z.boolean(),
  isPublished: z.boolean(),
});
export type QuickStartStatus = z.infer<typeof quickStartStatusSchema>;

/** `GET ui/onboarding/quickstart/supported?repoKey`. */
export const quickStartSupportedSchema = z.object({ supported: z.boolean() });

/** `POST ui/setMeUp/mavenDistributionManagement` answer. */
export const mavenDistributionManagementSchema = z.object({ distributionManagement: z.string() });

/** `POST ui/setMeUp/downloadBuildMaven` body (answer: the settings.xml text): the repository of each role. */
export const mavenSettingsRequestSchema = z.strictObject({
  release: z.string().min(1).max(200).optional(),
  snapshot: z.string().min(1).max(200).optional(),
  pluginRelease: z.string().min(1).max(200).optional(),
  pluginSnapshot: z.string().min(1).max(200).optional(),
  /** mirror every repository (`mirrorOf *`) through this one */
  mirrorAny: z.string().min(1).max(200).optional(),
  /** Write a new token of the caller as the password (issue 17: the wizard's settings.xml works as downloaded). */
  includeToken: z.boolean().optional(),
});
/** `POST ui/setMeUp/mavenDistributionManagement` body: the virtual release and snapshot repositories. */
export const mavenDistributionManagementRequestSchema = z.strictObject({
  release: z.string().min(1).max(200).optional(),
  snapshot: z.string().min(1).max(200).optional(),
});
