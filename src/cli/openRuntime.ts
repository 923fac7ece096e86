import { hostname } from 'node:os';
import { isStoreUnavailableError } from '../errors/StoreUnavailableError';
import { Waymark } from '../runtime/Waymark';
import type { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import { CliError } from './CliError';
import { cliLogger } from './cliLogger';
import { databaseUnavailable } from './databaseUnavailable';
import { ExitCode } from './ExitCode';
import { missingSqliteFile } from './missingSqliteFile';
import type { Output } from './Output';
import { assertMigrated } from './pendingMigrations';

/** A database outage during one command is waited out this long (ms), not the runtime's 30 s. */
export const CLI_STORE_RETRY_MS = 5_000;

/** The CLI executes no run (`retry`, `resolve`, `fork` leave theirs `pending`): nothing to wait for. */
const CLOSE_GRACE_MS = 0;

/**
 * Opens a runtime for a command that reads or acts on runs: no migrations applied (a
 * database without current waymark tables is refused, exit code 3), no worker, no notice of
 * runs left running, identified as `waymark-cli@host:pid` in the runs it touches.
 * `streamTokenSecret` checks the stream tokens the application makes (`waymark console`).
 *
 * @example
 * ```ts
 * const runtime = await openRuntime('sqlite:./waymark.db', output);
 * try { console.log(await runtime.list()); } finally { await runtime.close({ grace: 0 }); }
 * ```
 */
export async function openRuntime(
  url: string,
  output: Output,
  options: { streamTokenSecret?: string } = {},
): Promise<WaymarkRuntime> {
  const missing = missingSqliteFile(url);
  if (missing !== undefined) {
    throw new CliError(
      `database file ${missing} does not exist; create it with \`waymark migrate\``,
      ExitCode.Unavailable,
    );
  }
  let runtime: WaymarkRuntime;
  try {
    runtime = await Waymark.create({
      database: url,
      migrate: false,
      workerId: `waymark-cli@${hostname()}:${process.pid}`,
      storeRetryTimeout: CLI_STORE_RETRY_MS,
      logger: cliLogger(output),
      // No command here resumes runs, and the operator sees running ones in `list`/`show`.
      reportAbandonedRuns: false,
      streamTokenSecret: options.streamTokenSecret,
    });
  } catch (error) {
    throw isStoreUnavailableError(error) ? databaseUnavailable(url, error) : error;
  }
  try {
    await assertMigrated(runtime.dataSource, url);
  } catch (error) {
    await runtime.close({ grace: 0 });
    throw error;
  }
  return runtime;
}

/**
 * Runs `work` with a runtime opened by {@link openRuntime}, then closes it once a run that
 * `work` took over is back in the queue (the CLI never executes runs).
 */
export async function withRuntime<T>(
  url: string,
  output: Output,
  work: (runtime: WaymarkRuntime) => Promise<T>,
): Promise<T> {
  const runtime = await openRuntime(url, output);
  try {
    return await work(runtime);
  } finally {
    await runtime.close({ grace: CLOSE_GRACE_MS });
  }
}
