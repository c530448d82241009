import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import {
  entitlementsFor,
  entitlementsSchema,
  featuresConfigPatchSchema,
  featuresConfigSchema,
  generalConfigSchema,
  generalConfigUpdateSchema,
  installLicenseSchema,
  LOGO_CONTENT_TYPES,
  LOGO_MAX_BYTES,
  LOGO_URL,
  licenseDetailsSchema,
  loginConfigSchema,
  loginConfigUpdateSchema,
  MICROSERVICES,
  microserviceEnabledSchema,
  microservicesSchema,
  nodesSchema,
  onboardingSchema,
  onboardingUpdateSchema,
  versionSchema,
} from '@granary/contracts';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { UnauthorizedError } from '../../platform/errors.ts';
import { publicBaseUrl } from '../../platform/http/base-url.ts';
import type { SystemServices } from './index.ts';
import { readVersion } from './version.ts';

const V1 = '/ui/api/v1';
const tags = ['system'];

/**
 * Version (public, never touching the database; health is in health.routes.ts), and the console's start-up calls of
 * spec 000 §7 mounted under /ui/api/v1 (DESIGN.md URL map), with the REST API's licence calls.
 *
 * Who reads what: ping, version, `ui/generalConfig` (reduced for the login page), the logo,
 * `jfconnect/entitlements` and `system/ismicroserviceenabled` are public (spec 000 §4 start-up step 1
 * runs before sign-in); feature flags, onboarding and licence details need a signed-in caller or
 * anonymous access allowed (step 2); every write and the nodes list are for admins.
 */
export function systemRoutes(s: SystemServices): FastifyPluginAsyncZod {
  return async (app) => {
    const version = readVersion();
    const signedInOrAnonymousAllowed = async (request: FastifyRequest): Promise<boolean> =>
      request.principal !== null || (await s.anonymousAccessAllowed());
    const requireConsoleReader = async (request: FastifyRequest): Promise<void> => {
      if (!(await signedInOrAnonymousAllowed(request))) throw new UnauthorizedError();
    };

    // `/api/system/ping` and the readiness, liveness and health probes: health.routes.ts.
    const versionRoute = {
      config: { access: 'public' as const },
      schema: { tags, summary: 'Product version and revision', response: { 200: versionSchema } },
    };
    app.get('/api/system/version', versionRoute, async () => version);
    // spec 000 §7 start-up call `GET system/version`, mounted under the console API prefix.
    app.get(`${V1}/system/version`, versionRoute, async () => version);

    // spec 000 §7 `GET ui/generalConfig`, `POST ui/artifactgeneral`.
    const generalConfig = async (request: FastifyRequest) =>
      s.general.get({
        full: await signedInOrAnonymousAllowed(request),
        anonymousAccessAllowed: await s.anonymousAccessAllowed(),
        baseUrl: publicBaseUrl(request, app.granary.config.baseUrl),
        licenseType: () => s.license.type(),
      });
    app.get(
      `${V1}/ui/generalConfig`,
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'General configuration for the console',
          response: { 200: generalConfigSchema },
        },
      },
      generalConfig,
    );
    app.post(
      `${V1}/ui/artifactgeneral`,
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Update the general configuration',
          body: generalConfigUpdateSchema,
          response: { 200: generalConfigSchema },
        },
      },
      async (request) => {
        await s.general.update(request.body);
        return generalConfig(request);
      },
    );

    // The custom logo: uploaded as the raw image body, served inert at a stable URL.
    await app.register(async (scope) => {
      scope.addContentTypeParser(
        [...LOGO_CONTENT_TYPES],
        { parseAs: 'buffer', bodyLimit: LOGO_MAX_BYTES },
        (_request, body, done) => done(null, body),
      );
      scope.put(
        `${V1}/ui/generalConfig/logo`,
        {
          config: { access: 'admin' },
          schema: {
            tags,
            summary: `Upload the custom logo (${LOGO_CONTENT_TYPES.join(', ')}; at most ${LOGO_MAX_BYTES} bytes)`,
            response: { 200: generalConfigSchema },
          },
        },
        async (request) => {
          const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
          await s.general.setLogo(request.headers['content-type'] ?? '', body);
          return generalConfig(request);
        },
      );
    });
    app.delete(
      `${V1}/ui/generalConfig/logo`,
      {
        config: { access: 'admin' },
        schema: { tags, summary: 'Remove the custom logo', response: { 200: generalConfigSchema } },
      },
      async (request) => {
        await s.general.removeLogo();
        return generalConfig(request);
      },
    );
    app.get(
      LOGO_URL,
      { config: { access: 'public' }, schema: { tags, summary: 'The custom logo', hide: true } },
      async (request, reply) => {
        const { logo, stream } = await s.general.readLogo();
        const etag = `"${logo.sha256}"`;
        reply
          .header('etag', etag)
          .header('cache-control', 'no-cache')
          .header('x-content-type-options', 'nosniff')
          .header('content-security-policy', "default-src 'none'; sandbox")
          .header('content-disposition', 'inline; filename="logo"')
          .type(logo.contentType);
        if (request.headers['if-none-match'] === etag) {
          (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
          return reply.code(304).send();
        }
        return reply.header('content-length', logo.size).send(stream);
      },
    );

    // spec 000 §4 route guard on the login page: SSO auto-redirect and the SAML logout URL. Public: the
    // login page reads it before anyone signs in (the addresses are the ones the page links to anyway).
    app.get(
      `${V1}/system/loginConfig`,
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'Sign-in routing: SSO sign-in URL, auto-redirect, SAML logout URL',
          response: { 200: loginConfigSchema },
        },
      },
      async () => s.login.get(),
    );
    app.patch(
      `${V1}/system/loginConfig`,
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Change the sign-in routing',
          body: loginConfigUpdateSchema,
          response: { 200: loginConfigSchema },
        },
      },
      async (request) => s.login.update(request.body),
    );

    // spec 000 §7 `GET /system/featuresConfig`; PUT replaces, PATCH sets the flags given (admin).
    app.get(
      `${V1}/system/featuresConfig`,
      {
        config: { access: 'public' },
        schema: { tags, summary: 'Feature flags', response: { 200: featuresConfigSchema } },
      },
      async (request) => {
        await requireConsoleReader(request);
        return s.features.get();
      },
    );
    for (const method of ['PUT', 'PATCH'] as const)
      app.route({
        method,
        url: `${V1}/system/featuresConfig`,
        config: { access: 'admin' },
        schema: {
          tags,
          summary:
            method === 'PUT' ? 'Set every feature flag (absent ones to their default)' : 'Set feature flags',
          body: featuresConfigPatchSchema,
          response: { 200: featuresConfigSchema },
        },
        handler: async (request) => s.features.set(request.body, method === 'PUT'),
      });

    // spec 000 §7 `GET /system/ismicroserviceenabled` (and the /mc variant).
    app.get(
      `${V1}/system/ismicroserviceenabled`,
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'Which services this instance runs',
          response: { 200: microservicesSchema },
        },
      },
      async () => s.microservices,
    );
    app.get(
      `${V1}/system/ismicroserviceenabled/:name`,
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'Whether this instance runs one service',
          params: z.object({ name: z.string().max(100) }),
          response: { 200: microserviceEnabledSchema },
        },
      },
      async (request) => ({
        name: request.params.name,
        enabled: (MICROSERVICES as readonly string[]).includes(request.params.name)
          ? s.microservices[request.params.name as keyof typeof s.microservices]
          : false,
      }),
    );

    // spec 000 §7 `GET /system/status/nodes`, spec 001 §7 service status.
    app.get(
      `${V1}/system/status/nodes`,
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Nodes sharing this database and their status',
          response: { 200: nodesSchema },
        },
      },
      async () => ({ nodes: await s.nodes.list() }),
    );

    // spec 000 §7 `GET /system/onboarding`.
    app.get(
      `${V1}/system/onboarding`,
      {
        config: { access: 'public' },
        schema: { tags, summary: 'Whether onboarding was completed', response: { 200: onboardingSchema } },
      },
      async (request) => {
        await requireConsoleReader(request);
        return s.onboarding.get();
      },
    );
    app.put(
      `${V1}/system/onboarding`,
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Mark onboarding completed or not',
          body: onboardingUpdateSchema,
          response: { 200: onboardingSchema },
        },
      },
      async (request) => s.onboarding.set(request.body.completed),
    );

    // Licences: REST API `/api/system/licenses`, console `/ui/api/v1/system/licenses`.
    for (const base of ['/api/system/licenses', `${V1}/system/licenses`]) {
      app.get(
        base,
        {
          config: { access: 'public' },
          schema: { tags, summary: 'The licence in force', response: { 200: licenseDetailsSchema } },
        },
        async (request) => {
          await requireConsoleReader(request);
          return s.license.details();
        },
      );
      app.post(
        base,
        {
          config: { access: 'admin' },
          schema: {
            tags,
            summary: 'Install a signed licence key',
            body: installLicenseSchema,
            response: { 200: licenseDetailsSchema },
          },
        },
        async (request) => {
          const details = await s.license.install(request.body.licenseKey);
          request.log.info({ licenseId: details.id, type: details.type }, 'licence installed');
          return details;
        },
      );
      app.delete(
        base,
        {
          config: { access: 'admin' },
          schema: { tags, summary: 'Remove the licence (type N/A)', response: { 200: licenseDetailsSchema } },
        },
        async (request) => {
          request.log.info('licence removed');
          return s.license.remove();
        },
      );
    }

    // spec 000 §7 `GET /jfconnect/entitlements`: what the licence in force entitles to.
    app.get(
      `${V1}/jfconnect/entitlements`,
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'Entitlements of the licence in force',
          response: { 200: entitlementsSchema },
        },
      },
      async () => {
        const { type, rank } = await s.license.details();
        return { licenseType: type, rank, entitlements: entitlementsFor(type) };
      },
    );
  };
}
