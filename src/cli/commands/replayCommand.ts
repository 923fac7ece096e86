import { InvalidArgumentError, type Command } from 'commander';
import { assertRunId } from '../../model/identifiers';
import type { RunStatus } from '../../model/RunStatus';
import type { ReplayReport } from '../../runtime/ReplayReport';
import type { WaymarkRuntime } from '../../runtime/WaymarkRuntime';
import { databaseUrlOf, type CliContext } from '../CliContext';
import { CliError } from '../CliError';
import { ExitCode } from '../ExitCode';
import { loadModule } from '../loadModule';
import { withRuntime } from '../openRuntime';
import { collectStatuses, integerIn, since } from '../optionParsers';
import { parseJsonArgument } from '../parseJsonArgument';
import { replaySummary } from '../replaySummary';

interface ReplayCommandOptions {
  module: string[];
  from: number;
  override: Record<number, unknown>;
  callModels?: boolean;
  workflow?: string;
  status?: RunStatus[];
  since?: Date;
  limit: number;
  json?: boolean;
}

/**
 * `waymark replay`: replays one run, or a cohort of recent runs (workflow, status, since),
 * from `--from` with the same overrides, executing them here on the modules' current code,
 * and prints per run what changed. Replays of runs are not picked again: forks are skipped.
 *
 * @example
 * ```sh
 * waymark replay research-42 --module dist/workflows.js --from 2 --override '1={"notes":"v2"}'
 * waymark replay --module dist/workflows.js --workflow research --status completed --since 1h --from 2 --json
 * ```
 */
export function registerReplayCommand(program: Command, cli: CliContext): void {
  program
    .command('replay')
    .description('replay a run, or recent runs, from a step with changes; print what changed')
    .argument('[runId]', 'the run to replay (else the cohort the filters select)')
    .requiredOption('--module <path>', 'a module declaring the workflows (repeat it)', collect, [])
    .requiredOption(
      '--from <seq>',
      'the first step to run again; steps before it are taken from the store',
      integerIn(0, Number.MAX_SAFE_INTEGER),
    )
    .option('--override <seq=json>', "a step's result to use instead (repeat it)", override, {})
    .option('--call-models', 'call every model again instead of replaying unchanged calls')
    .option('--workflow <name>', 'cohort: runs of this workflow')
    .option('--status <status>', 'cohort: runs in this status (repeat it, or a,b)', collectStatuses)
    .option('--since <when>', 'cohort: runs started since: 2h, 30m, 7d or an ISO date', (t) =>
      since(t),
    )
    .option('--limit <n>', 'cohort: at most this many runs, 1 to 1000', integerIn(1, 1000), 20)
    .option('--json', 'print one JSON object { replays: [report…] } for scripts')
    .action(async (runId: string | undefined, options: ReplayCommandOptions, command: Command) => {
      if (runId !== undefined) assertRunId(runId, 'the run id');
      else if (options.workflow === undefined) {
        throw new CliError('give a run id, or --workflow for a cohort of runs', ExitCode.Usage);
      }
      const url = databaseUrlOf(command, cli.env);
      for (const module of options.module) loadModule(module);
      const reports = await withRuntime(url, cli.output, async (runtime) => {
        const ids = runId !== undefined ? [runId] : await cohort(runtime, options);
        const done: ReplayReport[] = [];
        for (const id of ids) {
          const { report } = await runtime.replay(id, {
            from: options.from,
            override: options.override,
            callModels: options.callModels === true,
          });
          if (!options.json) cli.output.line(replaySummary(report));
          done.push(report);
        }
        return done;
      });
      if (options.json) cli.output.json({ replays: reports });
      else if (reports.length === 0) cli.output.line('no run matches; nothing replayed');
    });
}

/** The runs the filters select, newest first, leaving out forks (earlier replays among them). */
async function cohort(runtime: WaymarkRuntime, options: ReplayCommandOptions): Promise<string[]> {
  const page = await runtime.list({
    workflow: options.workflow,
    status: options.status,
    limit: options.limit,
  });
  return page.runs
    .filter((run) => run.forkedFrom === null)
    .filter((run) => options.since === undefined || run.createdAt >= options.since)
    .map((run) => run.runId);
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `--override 3='"text"'`: seq 3's result is the JSON value. */
function override(text: string, previous: Record<number, unknown>): Record<number, unknown> {
  const at = text.indexOf('=');
  const seq = Number(text.slice(0, at));
  if (at <= 0 || !Number.isInteger(seq) || seq < 0) {
    throw new InvalidArgumentError(`expected <seq>=<json>, e.g. 3='"text"'`);
  }
  return { ...previous, [seq]: parseJsonArgument(text.slice(at + 1), `--override ${seq}`) };
}
