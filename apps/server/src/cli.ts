import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runningServerPid } from './cli/pid-file.ts';
import { type Config, ConfigError, loadConfig } from './config/index.ts';
import { findUserByName } from './modules/access/access.queries.ts';
import { Audit } from './modules/access/audit.service.ts';
import { clearAccountLocks } from './modules/access/throttle.service.ts';
import { openDatabase } from './platform/db/index.ts';
import { createLogging } from './platform/logger/index.ts';

const USAGE = `Usage: npm run granary -- <command>

Commands:
  unlock <name>   clear every sign-in lockout of user <name> (all addresses), e.g. a locked-out admin

Reads the server's settings (GRANARY_HOME, $GRANARY_HOME/config.yaml, GRANARY_DATABASE_URL).
On the embedded database, stop the server first: one process opens it at a time.`;

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

/**
 * `granary` — administration on the server's machine that needs neither the console nor a sign-in
 * (issue 12 §3: a locked-out last administrator gets back in). Whoever can run it can read
 * `$GRANARY_HOME` and the database settings, so it asks for nothing more. Answers the exit code.
 */
export async function runCli(
  argv: string[],
  io: CliIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const [command, ...args] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    io.out(USAGE);
    return command ? 0 : 2;
  }
  if (command !== 'unlock' || args.length !== 1 || !args[0]) {
    io.err(USAGE);
    return 2;
  }
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err(`granary: ${err.message}`);
      return 2;
    }
    throw err;
  }
  return unlock(config, args[0], io);
}

async function unlock(config: Config, name: string, io: CliIo): Promise<number> {
  const dataDir = path.join(config.home, 'db');
  if (!config.databaseUrl) {
    const pid = runningServerPid(config.home);
    if (pid !== null) {
      io.err(
        [
          `granary: the server (pid ${pid}) is running on the embedded database in ${dataDir}, which one process opens at a time.`,
          'Stop it, run this again, then start it. While it runs, an administrator can instead unlock with an access token',
          `(tokens are never locked out): curl -X POST -H "Authorization: Bearer <token>" <base URL>/api/security/users/${encodeURIComponent(name)}/unlock`,
        ].join('\n'),
      );
      return 1;
    }
    if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
      io.err(`granary: no Granary database in ${dataDir} (is GRANARY_HOME right?)`);
      return 1;
    }
  }
  const database = await openDatabase({ url: config.databaseUrl, dataDir, poolSize: 1 });
  const logging = createLogging({
    dir: path.join(config.home, 'logs'),
    level: config.logLevel,
    stdout: false,
    maxBytes: config.logMaxBytes,
    maxFiles: config.logMaxFiles,
  });
  try {
    const user = await findUserByName(database.db, name);
    const cleared = await clearAccountLocks(database.db, user?.name ?? name);
    await new Audit(database.db, logging.security).record({
      action: 'user.unlock',
      result: 'success',
      actor: null,
      target: user?.name ?? name,
      details: { via: 'cli', cleared },
    });
    io.out(
      user
        ? `Unlocked ${user.name}: cleared ${cleared} sign-in lock record(s). It can sign in again at once.`
        : `No user named ${name}; cleared ${cleared} sign-in lock record(s) for that name.`,
    );
    return 0;
  } finally {
    await database.close();
    await logging.close();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runCli(process.argv.slice(2), {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  }).then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`granary: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
