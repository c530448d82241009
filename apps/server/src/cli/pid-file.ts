import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** `$GRANARY_HOME/granary.pid`: the running server's process id, so the CLI knows not to open its embedded database. */
export const PID_FILE = 'granary.pid';

/** Writes this process's id and removes the file when the process exits. */
export function writePidFile(home: string): void {
  const file = path.join(home, PID_FILE);
  mkdirSync(home, { recursive: true });
  writeFileSync(file, `${process.pid}\n`);
  process.once('exit', () => {
    try {
      if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file, { force: true });
    } catch {
      // already gone
    }
  });
}

/** The id of a live server process using `home`, or null (no file, or a leftover of a process that is gone). */
export function runningServerPid(home: string): number | null {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(path.join(home, PID_FILE), 'utf8').trim(), 10);
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (err) {
    // EPERM: it exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? pid : null;
  }
}
