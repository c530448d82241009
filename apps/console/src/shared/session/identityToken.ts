import { identityTokenResponseSchema, OTP_HEADER } from '@granary/contracts';
import { useMutation } from '@tanstack/react-query';
import { api } from '../api/index.ts';

/**
 * spec 000 §7 `POST ui/userIdentifyToken/{name}` {description, includeReferenceToken, expiresIn}; reads
 * reference_token. A user with an authenticator adds a fresh one-time code (issue 12 §2). Used by Edit Profile and
 * the quick-start wizard.
 */
export function useIdentityTokenMutation() {
  return useMutation({
    mutationFn: ({ name, description, otp }: { name: string; description: string; otp?: string }) =>
      api.post(
        `ui/userIdentifyToken/${encodeURIComponent(name)}`,
        { description, includeReferenceToken: true },
        identityTokenResponseSchema,
        { headers: otp?.trim() ? { [OTP_HEADER]: otp.trim() } : {} },
      ),
  });
}
