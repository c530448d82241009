import os from 'node:os';
import path from 'node:path';
import type { Microservice } from '@granary/contracts';
import type { FastifyInstance } from 'fastify';
import { StorageHealth } from '../../platform/blobs/index.ts';
import { isOutOfSpace } from '../../platform/http/infrastructure-errors.ts';
import type { Platform } from '../../platform/platform.ts';
import type { AccessModule } from '../access/index.ts';
import { FeatureFlags } from './features.service.ts';
import { GeneralSettings } from './general.service.ts';
import { healthRoutes } from './health.routes.ts';
import { HealthChecks } from './health.service.ts';
import { jobsRoutes } from './jobs.routes.ts';
import { LicenseService } from './license.service.ts';
import { LoginConfigSettings } from './login-config.service.ts';
import { logsRoutes } from './logs.routes.ts';
import { LogFiles } from './logs.service.ts';
import { metricsRoutes, registerSystemMetrics } from './metrics.routes.ts';
import { NodeRegistry, readNodeId } from './nodes.service.ts';
import { OnboardingState } from './onboarding.service.ts';
import { ServiceHealth } from './service-health.ts';
import { statusRoutes } from './status.routes.ts';
import { createSupportBundles, registerSupport, type SupportBundles } from './support/index.ts';
import { systemRoutes } from './system.routes.ts';
import { readVersion } from './version.ts';

export { LicenseService } from './license.service.ts';

/**
 * The services this instance really runs (spec 000 §7 `ismicroserviceenabled`): repositories and
 * access, scanning (xray, issue 16) and release-bundle distribution (issue 19) are here; mission control and pipelines are not.
 */
export const RUNNING_MICROSERVICES: Record<Microservice, boolean> = {
  artifactory: true,
  access: true,
  xray: true,
  distribution: true,
  mc: false,
  pipelines: false,
};

export interface SystemServices {
  general: GeneralSettings;
  login: LoginConfigSettings;
  features: FeatureFlags;
  license: LicenseService;
  nodes: NodeRegistry;
  onboarding: OnboardingState;
  /** Database and storage checks of the health endpoints. */
  health: HealthChecks;
  microservices: Record<Microservice, boolean>;
  anonymousAccessAllowed(): Promise<boolean>;
  /** Support bundles; other modules add their part with `support.registerSupportSource`. */
  support: SupportBundles;
}

declare module 'fastify' {
  interface FastifyInstance {
    system: SystemServices;
  }
}

/** The system module: general configuration, feature flags, licences, nodes and onboarding. */
export async function registerSystem(
  app: FastifyInstance,
  platform: Platform,
  access: AccessModule,
): Promise<SystemServices> {
  const { config, database, blobs, logging } = platform;
  const { version, revision } = readVersion();
  const services: SystemServices = {
    general: new GeneralSettings(database.db, blobs, config.flavour),
    login: new LoginConfigSettings(database.db),
    // issue 21: the Archive (cold storage) is on by default when an archive store is configured
    features: new FeatureFlags(database.db, { coldStorage: !!config.archiveStore }),
    license: new LicenseService(database.db, { mode: config.license, publicKeys: config.licensePublicKeys }),
    nodes: new NodeRegistry(
      database.db,
      {
        id: readNodeId(config.home),
        hostName: os.hostname(),
        // The internal URL other nodes reach this one at (GRANARY_NODE_URL); never the public base URL.
        url: config.nodeUrl ?? `http://${os.hostname()}:${config.port}`,
        version,
        revision,
      },
      logging.server,
    ),
    onboarding: new OnboardingState(database.db),
    health: new HealthChecks(
      database.db,
      config.databaseTimeoutMs,
      new StorageHealth([
        path.join(config.home, 'tmp'),
        ...(blobs.kind === 'filesystem' ? [path.join(config.home, 'blobs')] : []),
      ]),
    ),
    microservices: RUNNING_MICROSERVICES,
    // Read through the access module's settings service, never its tables.
    anonymousAccessAllowed: async () => (await access.context.settings.get()).anonymousAccess,
    support: createSupportBundles(platform, access, readNodeId(config.home)),
  };
  app.decorate('system', services);
  // Any request failing for lack of space (any format, any scope) shows in the health detail.
  app.addHook('onError', async (_request, _reply, error) => {
    if (isOutOfSpace(error)) services.health.storage.noteOutOfSpace(error);
  });
  await app.register(healthRoutes(services.health, { db: database.db, jobs: platform.jobs }));
  await app.register(systemRoutes(services));
  await app.register(jobsRoutes(platform.jobs));
  await registerSupport(app, services.support, platform, readNodeId(config.home), () =>
    services.nodes.list(),
  );
  await app.register(logsRoutes({ files: new LogFiles(logging), nodes: () => services.nodes.list() }));
  registerSystemMetrics(platform.metrics, platform.jobs, services.health);
  await app.register(metricsRoutes(platform.metrics));
  const serviceHealth = serviceHealthOf(app, platform, services);
  await app.register(statusRoutes(services.nodes, serviceHealth));
  await services.nodes.start(platform.jobs, serviceHealth);
  // Once listening, beat at once: the other nodes see this one's HTTP server up without waiting an interval.
  app.addHook('onListen', async () => {
    await services.nodes.beat().catch((err) => logging.server.warn({ err }, 'node heartbeat failed'));
  });
  return services;
}

/** The health of this node's parts (issue 15): the HTTP server's state is read from the app itself. */
function serviceHealthOf(app: FastifyInstance, platform: Platform, services: SystemServices): ServiceHealth {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  return new ServiceHealth({
    nodeId: services.nodes.self.id,
    home: platform.config.home,
    db: platform.database.db,
    databaseKind: platform.database.kind,
    blobs: platform.blobs,
    jobs: platform.jobs,
    health: services.health,
    startedAt: services.nodes.startedAt,
    http: () => {
      const address = app.server.listening ? app.server.address() : null;
      return {
        closing,
        address:
          address && typeof address === 'object'
            ? `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`
            : typeof address === 'string'
              ? address
              : null,
      };
    },
  });
}
