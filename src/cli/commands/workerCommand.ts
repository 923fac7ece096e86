import type { Command } from 'commander';
import { WorkflowCatalog } from '../../runtime/WorkflowCatalog';
import { isStoreUnavailableError } from '../../errors/StoreUnavailableError';
import { parseDuration, type Duration } from '../../ground/Duration';
import { Waymark } from '../../runtime/Waymark';
import type { WaymarkRuntime } from '../../runtime/WaymarkRuntime';
import { dataSourceOptionsFromUrl, shownDatabaseUrl } from '../../runtime/DatabaseAccess';
import { databaseUrlOf, type CliContext } from '../CliContext';
import { CliError, isCliError } from '../CliError';
import { cliLogger } from '../cliLogger';
import { databaseUnavailable } from '../databaseUnavailable';
import { firstLine, messageOf } from '../describeFailure';
import { ExitCode } from '../ExitCode';
import { loadModule } from '../loadModule';
import { duration, integerIn } from '../optionParsers';
import { printRunEvents } from '../printRunEvents';
import { stopSignal } from '../stopSignal';

interface WorkerCommandOptions {
  concurrency: number;
  pollInterval: Duration;
  grace: Duration;
}

/**
 * `waymark worker <module...>`: loads the modules (registering their workflows), applies
 * pending migrations, and executes runs from the database until SIGTERM or SIGINT; then
 * lets steps in flight finish for `--grace`, hands every run back to the queue, and exits 0.
 *
 * @example
 * ```sh
 * waymark worker dist/workflows.js --concurrency 20 --poll-interval 500ms
 * ```
 */
export function registerWorkerCommand(program: Command, cli: CliContext): void {
  program
    .command('worker')
    .description('execute runs of the workflows a module declares, until SIGTERM')
    .argument('<modules...>', 'modules declaring workflows (.js, or .ts with @swc-node/register)')
    .option('--concurrency <n>', 'runs executed at once', integerIn(1, 10_000), 10)
    .option('--poll-interval <duration>', 'how often to look for work when idle', duration, '1s')
    .option(
      '--grace <duration>',
      'on SIGTERM, how long steps in flight may finish',
      duration,
      '10s',
    )
    .action(async (modules: string[], options: WorkerCommandOptions, command: Command) => {
      const url = databaseUrlOf(command, cli.env);
      dataSourceOptionsFromUrl(url); // a malformed URL is a usage error, before any module loads
      loadWorkflows(modules);
      const runtime = await open(url, cli);
      const stopped = stopSignal();
      const graceMs = parseDuration(options.grace, '--grace');
      runtime.installSignalHandlers({ grace: graceMs, exit: false });
      printRunEvents(runtime, cli.output);
      runtime.startWorker({ concurrency: options.concurrency, pollInterval: options.pollInterval });
      cli.output.line(
        `worker ${runtime.workerId} executing ${WorkflowCatalog.workflowNames().join(', ')} from ${shownDatabaseUrl(url)} ` +
          `(concurrency ${options.concurrency})`,
      );
      const signal = await stopped;
      cli.output.line(
        `${signal}: letting steps in flight finish (up to ${options.grace}), then handing runs over`,
      );
      await runtime.close({ grace: graceMs });
      cli.output.line('worker stopped');
    });
}

function loadWorkflows(modules: string[]): void {
  for (const module of modules) {
    try {
      loadModule(module);
    } catch (error) {
      if (isCliError(error)) throw error;
      throw new CliError(`cannot load ${module}: ${firstLine(messageOf(error))}`, ExitCode.Failed, {
        cause: error,
      });
    }
  }
  for (const Class of WorkflowCatalog.classes()) {
    try {
      WorkflowCatalog.validate(Class);
    } catch (error) {
      throw new CliError(`${messageOf(error)} (see \`waymark check\`)`, ExitCode.Failed);
    }
  }
  if (WorkflowCatalog.workflowNames().length === 0) {
    throw new CliError(
      `no @Workflow in ${modules.join(', ')}: the worker would have nothing to run`,
      ExitCode.Failed,
    );
  }
}

async function open(url: string, cli: CliContext): Promise<WaymarkRuntime> {
  try {
    return await Waymark.create({ database: url, logger: cliLogger(cli.output) });
  } catch (error) {
    throw isStoreUnavailableError(error) ? databaseUnavailable(url, error) : error;
  }
}
