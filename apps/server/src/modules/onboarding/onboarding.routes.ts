import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import {
  createQuickReposRequestSchema,
  createQuickReposResponseSchema,
  onboardingDataSchema,
  onboardingPersonalizationStateSchema,
  quickStartSessionSchema,
  quickStartStatusSchema,
  quickStartSupportedSchema,
  reposModelSchema,
  reposStatesSchema,
  validateBatchRequestSchema,
  validateBatchResponseSchema,
} from '@granary/contracts';
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../platform/db/index.ts';
import { NotFoundError } from '../../platform/errors.ts';
import type { Audit } from '../access/audit.service.ts';
import { findRepository } from '../repositories/repositories.api.ts';
import { onboardingPersonalization } from './onboarding.schema.ts';
import {
  createQuickRepos,
  type QuickReposDeps,
  reposModel,
  reposStates,
  validateBatch,
} from './quick-repos.ts';
import { QUICK_START_TYPES, type QuickStartWatch, sessionStatus, startSession } from './quick-start.ts';

const tags = ['onboarding'];
const P = '/ui/api/v1/ui/onboarding';
const repoKeyQuery = z.object({ repoKey: z.string().min(1).max(200) });

/**
 * The onboarding calls (issue 17, spec 000 §7 "Quick start"): every one for administrators only (spec 000 §6:
 * the quick-start wizard and quick setup are admins only), the default access of a route.
 */
export function onboardingRoutes(
  deps: QuickReposDeps & { audit: Audit; watch: QuickStartWatch },
): FastifyPluginAsyncZod {
  const db: Db = deps.db;
  return async (app) => {
    app.get(
      `${P}/personalization`,
      {
        schema: {
          tags,
          summary: 'Whether the caller sent the onboarding questionnaire',
          response: { 200: onboardingPersonalizationStateSchema },
        },
      },
      async (request) => {
        const [row] = await db
          .select()
          .from(onboardingPersonalization)
          .where(eq(onboardingPersonalization.userName, request.principal!.name));
        return { sent: !!row, sentAt: row?.sentAt.toISOString() ?? null };
      },
    );

    app.post(
      `${P}/personalization`,
      {
        schema: {
          tags,
          summary: 'Send the onboarding questionnaire (spec 000 §5 rules); kept as the user’s custom data',
          body: onboardingDataSchema,
          response: { 200: onboardingPersonalizationStateSchema },
        },
      },
      async (request) => {
        const user = request.principal!.name;
        const sentAt = new Date();
        const data = request.body as Record<string, unknown>;
        await db
          .insert(onboardingPersonalization)
          .values({ userName: user, data, sentAt })
          .onConflictDoUpdate({ target: onboardingPersonalization.userName, set: { data, sentAt } });
        // The tracking event (spec 000 §4): recorded in the audit log, nothing leaves the machine.
        await deps.audit.record({
          action: 'onboarding.personalization.sent',
          result: 'success',
          actor: user,
          target: user,
          ip: request.ip,
          requestId: request.id,
          details: {
            purpose: request.body.purpose,
            role: request.body.role,
            desiredFeature: request.body.desiredFeature,
          },
        });
        return { sent: true, sentAt: sentAt.toISOString() };
      },
    );

    app.get(
      `${P}/reposStates`,
      { schema: { tags, summary: 'The repositories that exist now', response: { 200: reposStatesSchema } } },
      () => reposStates(deps),
    );

    app.get(
      `${P}/getReposModel`,
      {
        schema: {
          tags,
          summary: 'The quick repositories each offered package type would get',
          response: { 200: reposModelSchema },
        },
      },
      () => reposModel(deps),
    );

    app.post(
      `${P}/validateBatch`,
      {
        schema: {
          tags,
          summary: 'Whether repository keys are valid and free',
          body: validateBatchRequestSchema,
          response: { 200: validateBatchResponseSchema },
        },
      },
      (request) => validateBatch(deps, request.body.repoKeys),
    );

    app.post(
      `${P}/createQuickRepos`,
      {
        schema: {
          tags,
          summary: 'Create local, remote and virtual repositories per package type, in one transaction',
          body: createQuickReposRequestSchema,
          response: { 200: createQuickReposResponseSchema },
        },
      },
      (request) => createQuickRepos(deps, request.body.repoTypes, request.principal!.name),
    );

    app.post(
      `${P}/quickstart/start`,
      {
        schema: {
          tags,
          summary: 'Start (or restart) the caller’s quick-start session on a repository',
          body: quickStartSessionSchema,
          response: { 200: quickStartStatusSchema },
        },
      },
      async (request) => {
        const repo = await findRepository(db, request.body.repoKey);
        if (!repo) throw new NotFoundError(`Repository '${request.body.repoKey}' does not exist`);
        const status = await startSession(db, request.principal!.name, {
          ...request.body,
          repoKey: repo.key,
        });
        await deps.watch.started(request.principal!.name);
        return status;
      },
    );

    app.get(
      `${P}/quickstart/status`,
      {
        schema: {
          tags,
          summary: 'The flags of the caller’s quick-start session',
          querystring: repoKeyQuery,
          response: { 200: quickStartStatusSchema },
        },
      },
      (request) => sessionStatus(db, request.principal!.name, request.query.repoKey),
    );

    app.get(
      `${P}/quickstart/supported`,
      {
        schema: {
          tags,
          summary: 'Whether a repository has a guided quick-start flow',
          querystring: repoKeyQuery,
          response: { 200: quickStartSupportedSchema },
        },
      },
      async (request) => {
        const repo = await findRepository(db, request.query.repoKey);
        return { supported: !!repo && (QUICK_START_TYPES as readonly string[]).includes(repo.packageType) };
      },
    );
  };
}
