import { ONBOARDING_STEPS, type OnboardingData, onboardingProblems } from '@granary/contracts';

/**
 * spec 000 §3, §4 onboarding questionnaire data kept in this browser while the user answers: local storage
 * `personalizationData`, one entry per step {stepDataObject, isCompleted, isValid}; removed after sending, when the
 * flag `RTonlyRemoved` is set so the data is not initialised again (spec 000 §9 local storage keys).
 */

export const PERSONALIZATION_KEY = 'personalizationData';
export const RT_ONLY_REMOVED_KEY = 'RTonlyRemoved';

export const QUESTIONNAIRE_STEPS = ONBOARDING_STEPS;
export type QuestionnaireStep = (typeof QUESTIONNAIRE_STEPS)[number];

export interface StepState<T> {
  stepDataObject: T;
  isCompleted: boolean;
  isValid: boolean;
}

export interface PersonalizationSteps {
  initial: StepState<Record<string, never>>;
  purpose: StepState<{ purpose: string | null }>;
  details: StepState<{ companyName: string; ossProjectName: string; role: string | null; otherRole: string }>;
  desiredFeatures: StepState<{ desiredFeature: string[] }>;
}

export function initialPersonalization(): PersonalizationSteps {
  return {
    initial: { stepDataObject: {}, isCompleted: false, isValid: true },
    purpose: { stepDataObject: { purpose: null }, isCompleted: false, isValid: false },
    details: {
      stepDataObject: { companyName: '', ossProjectName: '', role: null, otherRole: '' },
      isCompleted: false,
      isValid: false,
    },
    desiredFeatures: { stepDataObject: { desiredFeature: [] }, isCompleted: false, isValid: false },
  };
}

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/**
 * spec 000 §4: the initial data is stored if absent (and not removed after a send); answers given earlier in this
 * browser come back.
 */
export function loadPersonalization(): PersonalizationSteps {
  const store = storage();
  const raw = store?.getItem(PERSONALIZATION_KEY);
  if (raw) {
    try {
      return { ...initialPersonalization(), ...(JSON.parse(raw) as Partial<PersonalizationSteps>) };
    } catch {
      // unreadable: start again
    }
  }
  const fresh = initialPersonalization();
  if (store && store.getItem(RT_ONLY_REMOVED_KEY) !== 'true')
    store.setItem(PERSONALIZATION_KEY, JSON.stringify(fresh));
  return fresh;
}

export function savePersonalization(data: PersonalizationSteps): void {
  storage()?.setItem(PERSONALIZATION_KEY, JSON.stringify(data));
}

/** spec 000 §4: after sending, the data is removed (and RTonlyRemoved set). */
export function removePersonalization(): void {
  const store = storage();
  store?.removeItem(PERSONALIZATION_KEY);
  store?.setItem(RT_ONLY_REMOVED_KEY, 'true');
}

const answersOf = (data: PersonalizationSteps) => ({
  ...data.purpose.stepDataObject,
  ...data.details.stepDataObject,
  ...data.desiredFeatures.stepDataObject,
});

/** spec 000 §5: what keeps one step from being valid (the shared rules, the same the server applies). */
export const stepProblems = (step: QuestionnaireStep, data: PersonalizationSteps): string[] =>
  step === 'initial' ? [] : onboardingProblems(answersOf(data), step);

/** The answers as sent (only called once every step is valid). */
export function toOnboardingData(data: PersonalizationSteps): OnboardingData {
  const a = answersOf(data);
  return {
    purpose: a.purpose as OnboardingData['purpose'],
    companyName: a.purpose === 'Commercial' ? a.companyName.trim() : '',
    ossProjectName: a.ossProjectName.trim(),
    role: a.role as OnboardingData['role'],
    otherRole: a.role === 'Other' ? a.otherRole.trim() : '',
    desiredFeature: a.desiredFeature as OnboardingData['desiredFeature'],
  };
}
