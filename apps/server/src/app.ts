import { mkdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from '@fastify/type-provider-zod';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Config } from './config/index.ts';
import { createFormatRegistry } from './formats/registry.ts';
import { ensureFirstAdmin } from './modules/access/access.service.ts';
import { registerAccessAuthentication, registerAccessRoutes } from './modules/access/index.ts';
import { registerApplications } from './modules/applications/index.ts';
import { registerBuilds } from './modules/builds/index.ts';
import { registerDistribution } from './modules/distribution/index.ts';
import { registerIntegrations } from './modules/integrations/index.ts';
import { registerOnboarding } from './modules/onboarding/index.ts';
import { registerPackages } from './modules/packages/index.ts';
import { registerProxies } from './modules/proxies/index.ts';
import { registerRepositories } from './modules/repositories/index.ts';
import { registerRetention } from './modules/retention/index.ts';
import { registerScanning } from './modules/scanning/index.ts';
import { registerSearch } from './modules/search/index.ts';
import { registerStorageGc } from './modules/storage/gc/index.ts';
import { registerSystem } from './modules/system/index.ts';
import { readNodeId } from './modules/system/nodes.service.ts';
import { readVersion } from './modules/system/version.ts';
import { registerWebhooks } from './modules/webhooks/index.ts';
import { BlobCache, countedBlobStore, createBlobStore } from './platform/blobs/index.ts';
import { type Database, openDatabase } from './platform/db/index.ts';
import { registerAccessControl } from './platform/http/access-control.ts';
import { registerConsole } from './platform/http/console-static.ts';
import { registerErrorHandling } from './platform/http/error-handler.ts';
import { registerRequestLog } from './platform/http/request-log.ts';
import { ResponseCache, registerResponseCache, requestIdOf } from './platform/http/response-cache.ts';
import { registerBaselineHeaders } from './platform/http/security-headers.ts';
import { UPLOAD_WATCHDOG_JOB, UploadGuard } from './platform/http/upload-guard.ts';
import { Jobs, registerHousekeeping } from './platform/jobs/index.ts';
import { createLogging } from './platform/logger/index.ts';
import { instrumentBlobStore, Metrics, registerRequestMetrics } from './platform/metrics/index.ts';
import { createOutboundClient } from './platform/outbound/index.ts';
import type { Platform } from './platform/platform.ts';
import {
  bindSecrets,
  createSecrets,
  loadMasterKey,
  loadPreviousMasterKeys,
  prepareSecretsAtRest,
  REWRAP_JOB,
  sealedValuesStatus,
  walkSealedValues,
} from './platform/secrets/index.ts';

declare module 'fastify' {
  interface FastifyInstance {
    granary: Platform;
  }
}

export interface AppDeps {
  /** A database already open (tests hand in a clone of a migrated template); closed with the app. */
  database?: Database;
  /** Where the first admin's generated password is printed (default stdout). */
  print?: (line: string) => void;
  /**
   * The clock (epoch ms) expiries and time-limited caches read (token expiry, the credential cache, the
   * package index's repository list, OCI upload sessions): tests move it instead of sleeping.
   */
  now?: () => number;
}

export const DEFAULT_CONSOLE_DIR = path.resolve(import.meta.dirname, '../../console/dist');

/**
 * Builds the whole server — platform, then modules, then formats — without listening.
 * Tests build it exactly as production does and use `app.inject()`.
 */
export async function buildApp(config: Config, deps: AppDeps = {}): Promise<FastifyInstance> {
  for (const dir of ['db', 'blobs', 'logs', 'tmp', 'support'])
    mkdirSync(path.join(config.home, dir), { recursive: true });

  const logging = createLogging({
    dir: path.join(config.home, 'logs'),
    level: config.logLevel,
    stdout: config.logStdout,
    maxBytes: config.logMaxBytes,
    maxFiles: config.logMaxFiles,
  });
  const opened: { close(): Promise<void> }[] = [];
  try {
    const database =
      deps.database ??
      (await openDatabase({
        url: config.databaseUrl,
        dataDir: path.join(config.home, 'db'),
        timeoutMs: config.databaseTimeoutMs,
      }));
    opened.push(database);
    await database.migrate();

    const metrics = new Metrics();
    const blobs = countedBlobStore(
      instrumentBlobStore(await createBlobStore({ home: config.home, url: config.blobstoreUrl }), metrics),
      database.db,
    );
    opened.push(blobs);
    const purged = await blobs.purgeTemp();
    if (purged.removed > 0)
      logging.server.warn({ removed: purged.removed }, 'removed leftovers of interrupted writes');

    const outbound = createOutboundClient({
      allowlist: config.outboundAllowlist,
      proxy: config.outboundProxy ? { url: config.outboundProxy } : undefined,
    });
    opened.push(outbound);
    const secrets = createSecrets(
      loadMasterKey({ home: config.home, masterKey: config.masterKey }),
      loadPreviousMasterKeys({ home: config.home, masterKeyPrevious: config.masterKeyPrevious }),
    );
    bindSecrets(database.db, secrets);
    // Secrets at rest (issue 18): a wrong master key stops here; values in the clear are sealed.
    await prepareSecretsAtRest(database.db, secrets, { home: config.home, log: logging.server });

    // Repeated small repository reads are answered before the framework routes them (issue 24);
    // the server is Fastify's own HTTP/1 server with that in front of its handler.
    const responseCache = new ResponseCache({
      changes: database.changes,
      logging,
      metrics,
      trustProxy: Boolean(config.trustProxy),
      now: deps.now,
    });
    const app = Fastify({
      serverFactory: (handler, fastifyOptions) => {
        const options = fastifyOptions as {
          http?: http.ServerOptions;
          keepAliveTimeout: number;
          requestTimeout: number;
          connectionTimeout: number;
          maxRequestsPerSocket?: number;
        };
        const server = http.createServer(options.http ?? {}, (req, res) => {
          let served = false;
          try {
            served = responseCache.serve(req, res);
          } catch (err) {
            // Never the client's problem: the framework answers instead, as if nothing had been kept.
            logging.server.error({ err }, 'response cache failed; answered the whole way');
            served = res.headersSent;
          }
          if (!served) handler(req, res);
        });
        // What Fastify sets on the server it creates itself (lib/server.js).
        server.keepAliveTimeout = options.keepAliveTimeout;
        server.requestTimeout = options.requestTimeout;
        server.setTimeout(options.connectionTimeout);
        if ((options.maxRequestsPerSocket ?? 0) > 0)
          server.maxRequestsPerSocket = options.maxRequestsPerSocket!;
        return server;
      },
      loggerInstance: logging.server as FastifyBaseLogger,
      // request.log gets one line per request from our own hook; fastify's pair of lines is off.
      logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'reqId' }),
      bodyLimit: config.bodyLimitBytes,
      forceCloseConnections: 'idle',
      trustProxy:
        typeof config.trustProxy === 'number'
          ? (_address: string, hop: number) => hop < (config.trustProxy as number)
          : config.trustProxy,
      return503OnClosing: true,
      genReqId: requestIdOf,
      routerOptions: { ignoreTrailingSlash: false, maxParamLength: 1000 },
    }).withTypeProvider<ZodTypeProvider>();
    const blobCache = new BlobCache(blobs, config.blobCacheBytes);
    const jobs = new Jobs(database.db, readNodeId(config.home), logging.server.child({ component: 'jobs' }), {
      channel: database.channel,
    });
    const uploads = new UploadGuard(
      {
        minBytesPerSec: config.minUploadRateBytesPerSec,
        windowMs: config.minUploadRateWindowSecs * 1000,
        maxPerAddress: config.maxUploadsPerAddress,
      },
      logging.server.child({ component: 'uploads' }),
    );
    // The platform's own background work: pruning the job queue and the outbox, the slow-upload
    // watchdog, and re-opening a lost LISTEN connection (PostgreSQL) with its back-off.
    registerHousekeeping(jobs, database.db);
    // Key rotation: every value not under the current master key is re-wrapped, one node at a time.
    jobs.recurring({
      name: REWRAP_JOB,
      scope: 'cluster',
      intervalMs: 60 * 60_000,
      run: async ({ signal }) => ({
        ...(await walkSealedValues(database.db, secrets, 'rewrap', signal)),
        ...(await sealedValuesStatus(database.db, secrets)),
      }),
    });
    if (config.minUploadRateBytesPerSec > 0)
      jobs.recurring({
        name: UPLOAD_WATCHDOG_JOB,
        scope: 'node',
        intervalMs: uploads.tickMs,
        run: async () => uploads.tick(),
      });
    if (database.kind === 'postgres')
      jobs.recurring({
        name: 'db.listen-reconnect',
        scope: 'node',
        intervalMs: 250,
        run: () => database.channel.reconnect(),
      });
    const now = deps.now ?? Date.now;
    app.decorate('granary', {
      config,
      database,
      blobs,
      blobCache,
      outbound,
      secrets,
      logging,
      jobs,
      uploads,
      metrics,
      responseCache,
      now,
    });
    app.addHook('preClose', (done) => {
      responseCache.close();
      done();
    });
    app.addHook('onClose', async () => {
      await jobs.stop();
      uploads.close();
      for (const resource of opened.reverse()) await resource.close().catch(() => {});
      await logging.close();
    });

    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    registerErrorHandling(app);
    registerBaselineHeaders(app);
    const { version } = readVersion();
    await app.register(fastifySwagger, {
      openapi: {
        openapi: '3.0.3',
        info: {
          title: 'Granary REST API',
          version,
          description: 'Artifact repository and supply-chain platform',
        },
      },
      transform: jsonSchemaTransform,
    });
    // The API's own documentation is public; every other route keeps its declared access.
    app.addHook('onRoute', (route) => {
      if (route.url.startsWith('/api/docs')) route.config = { ...route.config, access: 'public' };
    });
    await app.register(fastifySwaggerUi, { routePrefix: '/api/docs', uiConfig: { docExpansion: 'list' } });
    app.get('/api/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, async () =>
      app.swagger(),
    );

    const access = registerAccessAuthentication(app, database.db, logging.security, config.baseUrl, {
      channel: database.channel,
      now,
    });
    responseCache.useCredentials(access.context.credentials);
    registerResponseCache(app);
    registerAccessControl(app);
    registerRequestLog(app, logging);
    registerRequestMetrics(app, metrics);

    await registerSystem(app, app.granary, access);
    await registerAccessRoutes(app, access);
    await registerApplications(app, app.granary, access);
    await registerRepositories(app, app.granary, access, createFormatRegistry());
    await registerOnboarding(app, app.granary, access, app.repositories);
    await registerPackages(app, app.granary, access);
    await registerSearch(app, app.repositories);
    const webhooks = await registerWebhooks(app, app.granary, access);
    await registerProxies(app, app.granary, access, { repositories: app.repositories, webhooks });
    await registerScanning(app, app.granary);
    await registerBuilds(app, app.granary, access, app.repositories);
    await registerIntegrations(app, app.granary);
    await registerDistribution(app, app.granary, access);
    await registerStorageGc(app, app.granary);
    await registerRetention(app, app.granary, app.repositories);
    await registerConsole(app, config.consoleDir ? path.resolve(config.consoleDir) : DEFAULT_CONSOLE_DIR);

    await ensureFirstAdmin(database.db, {
      home: config.home,
      password: config.adminPassword,
      log: logging.server,
      print: deps.print,
    });
    await app.ready();
    await jobs.start();
    return app as unknown as FastifyInstance;
  } catch (err) {
    for (const resource of opened.reverse()) await resource.close().catch(() => {});
    await logging.close();
    throw err;
  }
}
