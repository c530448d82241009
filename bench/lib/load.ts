import { spawnSync } from 'node:child_process';
import autocannon from 'autocannon';

/** wrk (Debian) when installed: autocannon, one Node thread, tops out far below nginx on small bodies. */
export const WRK = spawnSync('wrk', ['--version']).error ? null : 'wrk';
export const LOAD_TOOL = WRK
  ? 'wrk -t2 -c10'
  : 'autocannon -c10 (wrk not installed: bench/setup-nginx.sh installs it)';

/** Requests per second over `seconds` with 10 connections; throws on any answer that is not 2xx. */
export async function reqPerSec(
  url: string,
  headers: Record<string, string>,
  seconds: number,
): Promise<number> {
  if (WRK) {
    const args = ['-t2', '-c10', `-d${seconds}s`];
    for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
    const run = spawnSync(WRK, [...args, url], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`wrk failed: ${run.stderr}`);
    if (/Non-2xx or 3xx responses/.test(run.stdout))
      throw new Error(`${url}: non-2xx answers\n${run.stdout}`);
    const rate = /Requests\/sec:\s+([\d.]+)/.exec(run.stdout)?.[1];
    if (!rate) throw new Error(`wrk printed no rate:\n${run.stdout}`);
    return Number(rate);
  }
  const result = await autocannon({ url, connections: 10, duration: seconds, headers });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

export function stats(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, min: sorted[0]!, max: sorted.at(-1)! };
}

export const fmtRate = (values: number[]) => {
  const s = stats(values);
  return `${Math.round(s.median)} req/s (${Math.round(s.min)}–${Math.round(s.max)})`;
};

/**
 * DESIGN.md: each HTTP scenario fresh and again after `idleMs` idle, the worse of the two (an idle
 * Node process shrinks its heap and can lose 2.6×): `runs` measurements of `seconds` each, after a warm-up.
 */
export async function measure(
  url: string,
  headers: Record<string, string>,
  opts: { runs: number; seconds: number; idleMs: number },
): Promise<number[]> {
  const series = async () => {
    const values: number[] = [];
    for (let i = 0; i < opts.runs; i++) values.push(await reqPerSec(url, headers, opts.seconds));
    return values;
  };
  await reqPerSec(url, headers, 1); // warm-up
  const fresh = await series();
  await new Promise((r) => setTimeout(r, opts.idleMs));
  const afterIdle = await series();
  return stats(fresh).median <= stats(afterIdle).median ? fresh : afterIdle;
}
