import {
  ACCESS_MESSAGES,
  AccessErrorCode,
  ANONYMOUS_USER,
  type RegistrationRequest,
} from '@granary/contracts';
import { ConflictError, ForbiddenError, InvalidError } from '../../platform/errors.ts';
import { findUserByName } from './access.queries.ts';
import { auditOf } from './audit.service.ts';
import type { AccessContext, RequestMeta } from './context.ts';
import { createUser } from './users.service.ts';

/**
 * `POST ui/auth/register` (spec 000 §2 "registration"): only while an admin turned self-registration
 * on. The new user is never an admin and joins only the auto-join groups; the password policy applies.
 */
export async function register(
  ctx: AccessContext,
  meta: RequestMeta,
  body: RegistrationRequest,
): Promise<{ name: string; email: string }> {
  const audit = { ...auditOf(meta), actor: body.user, target: body.user, action: 'user.register' };
  try {
    if (!(await ctx.settings.get()).selfRegistration)
      throw new ForbiddenError(ACCESS_MESSAGES.registrationDisabled, AccessErrorCode.RegistrationDisabled);
    if (body.user.toLowerCase() === ANONYMOUS_USER) throw new InvalidError(`'${ANONYMOUS_USER}' is reserved`);
    if (await findUserByName(ctx.db, body.user))
      throw new ConflictError(ACCESS_MESSAGES.userExists, AccessErrorCode.UserExists);
    const user = await createUser(ctx, meta, body.user, {
      email: body.email,
      password: body.password,
      admin: false,
    });
    await ctx.audit.record({ ...audit, result: 'success' });
    return { name: user.name, email: body.email };
  } catch (err) {
    await ctx.audit.record({ ...audit, result: 'failure', details: { reason: (err as Error).message } });
    throw err;
  }
}
