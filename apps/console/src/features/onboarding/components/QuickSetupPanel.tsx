import { useState } from 'react';
import { Questionnaire } from './Questionnaire.tsx';
import { QuickStartWizard } from './QuickStartWizard.tsx';

/**
 * spec 000 §4 quick setup: the onboarding questionnaire (Getting Started, until it was sent or skipped), then the
 * quick-start wizard. Mounted afresh on every open, which resets the onboarding tracking (spec 000 §4).
 */
export function QuickSetupPanel({
  start,
  questionnaireSent,
  onClose,
  onSetMeUp,
}: {
  start: 'questionnaire' | 'wizard';
  questionnaireSent: boolean;
  onClose: () => void;
  onSetMeUp: (repoKey: string) => void;
}) {
  const [questions, setQuestions] = useState(start === 'questionnaire' && !questionnaireSent);
  if (questions)
    return <Questionnaire onFinished={() => setQuestions(false)} onSkip={() => setQuestions(false)} />;
  return <QuickStartWizard onClose={onClose} onSetMeUp={onSetMeUp} />;
}
