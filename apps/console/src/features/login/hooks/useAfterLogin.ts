import { MfaStatus, type UserData } from '@granary/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { App } from 'antd';
import { useCallback } from 'react';
import { useNavigate } from 'react-router';
import { NOT_AUTHORIZED_KEY } from '../../../shared/session/notices.ts';
import { destinationAfterLogin } from '../../../shared/session/pathAfterLogin.ts';
import { currentUserQueryKey } from '../../../shared/session/queries.ts';

/** What the MFA pages need from the credentials step; carried in the router's location state. */
export interface LoginFlowState {
  userName: string;
  redirectTo: string | null;
}

export function readLoginFlowState(state: unknown): LoginFlowState | null {
  if (typeof state !== 'object' || state === null) return null;
  const { userName, redirectTo } = state as Partial<LoginFlowState>;
  if (typeof userName !== 'string' || userName === '') return null;
  return { userName, redirectTo: typeof redirectTo === 'string' ? redirectTo : null };
}

/**
 * spec 000 §4 Login: ENROLL goes to MFA enrolment, VERIFY to the one-time code, anything else runs the
 * after-login flow: keep the user data, drop what the anonymous session loaded, go to the path after login.
 */
export function useAfterLogin() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { notification } = App.useApp();
  return useCallback(
    (user: UserData, flow: { userName: string; redirectTo: string | null }) => {
      const state: LoginFlowState = { userName: flow.userName, redirectTo: flow.redirectTo };
      if (user.mfaStatus === MfaStatus.Enroll) {
        navigate('/login/mfa-enroll', { state });
        return;
      }
      if (user.mfaStatus === MfaStatus.Verify) {
        navigate('/login/otp-login', { state });
        return;
      }
      // Signed in: the "not authorized" notice that sent the visitor to the login page no longer applies.
      notification.destroy(NOT_AUTHORIZED_KEY);
      try {
        queryClient.removeQueries({
          predicate: (q) => !(q.queryKey[0] === 'access' && q.queryKey[1] === 'current-user'),
        });
        queryClient.setQueryData(currentUserQueryKey, user);
        navigate(destinationAfterLogin({ redirectTo: flow.redirectTo, admin: user.admin }), {
          replace: true,
        });
      } catch (error) {
        console.error('The after-login flow failed', error);
      }
    },
    [navigate, queryClient, notification],
  );
}
