import { setFlagsFromString } from 'node:v8';
import { writePidFile } from './cli/pid-file.ts';
import { ConfigError, loadConfig } from './config/index.ts';

/** The process entry: read config, build, listen, and shut down gracefully on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`Granary cannot start: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  // The embedded database's WebAssembly (9 MB) compiled by V8's baseline compiler only: the optimising
  // tier's compilations left 80 MiB resident for good (glibc keeps what the compiler threads freed),
  // 285 → 205 MiB idle (README, "Choices worth knowing"). Before the module compiles: the database opens later.
  if (!config.databaseUrl) setFlagsFromString('--liftoff-only');
  // Start-up allocates much that lives on (modules, schemas, routes): V8 grows the young generation to
  // its maximum for it and gives it back only once its memory reducer judges the process idle, which
  // it may not do for minutes (idle RSS 205–212 MiB). Sized for memory while starting, then V8's
  // defaults for serving: idle 186 MiB, throughput unchanged (README, "Choices worth knowing").
  setFlagsFromString('--optimize-for-size');
  // Imported after the configuration is known good, so a bad setting fails fast and alone.
  const { buildApp } = await import('./app.ts');
  const { startupWarnings } = await import('./modules/access/startup-warnings.ts');
  // Before the database opens: `npm run granary` must not open the embedded database while we run.
  writePidFile(config.home);
  const app = await buildApp(config);
  const log = app.granary.logging.server;

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping: no new connections, finishing requests in flight');
    const timer = setTimeout(() => {
      log.error('in-flight requests did not finish in time; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    timer.unref();
    app.close().then(
      () => process.exit(0),
      (err) => {
        process.stderr.write(`Granary: error while stopping: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  const address = await app.listen({ port: config.port, host: config.host });
  log.info(
    { address, home: config.home, database: app.granary.database.kind, blobs: app.granary.blobs.kind },
    'Granary is serving',
  );
  process.stdout.write(`Granary is serving at ${address}/ui/\n`);
  for (const warning of await startupWarnings(app.granary.database.db, config)) {
    log.warn({ event: 'startup.warning' }, warning);
    process.stdout.write(`Granary warning: ${warning}\n`);
  }
  setFlagsFromString('--no-optimize-for-size');
  // V8 sizes the next full collection's trigger from how fast it collected the last: this heap (~45 MB
  // live) collects quickly, so its old generation got ~15 MB of room, and a push's buffers set off a
  // full collection every 50-100 ms, nearly all freeing nothing (25-32 in four 61 MB push-and-pull
  // rounds). Twice the live heap: 5-6, and a quarter less CPU for the same work; idle and loaded RSS
  // unchanged (README, "Choices worth knowing"; issue 24, S7).
  setFlagsFromString('--heap-growing-percent=100');
}

main().catch((err) => {
  process.stderr.write(
    `Granary failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
