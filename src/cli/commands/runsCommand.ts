import type { Command } from 'commander';
import { isRunNotFoundError } from '../../errors/RunNotFoundError';
import type { WaymarkRuntime } from '../../runtime/WaymarkRuntime';
import type { RunSummary } from '../../model/RunRecords';
import type { RunStatus } from '../../model/RunStatus';
import { databaseUrlOf, type CliContext } from '../CliContext';
import { formatTable, type Cell, type Painted } from '../formatTable';
import { formatTimestamp, NONE } from '../formatTime';
import { mapConcurrently } from '../mapConcurrently';
import { withRuntime } from '../openRuntime';
import { collectStatuses, integerIn, since } from '../optionParsers';
import { paintStatus } from '../Palette';

interface RunsOptions {
  status?: RunStatus[];
  workflow?: string;
  since?: Date;
  limit: number;
  cursor?: string;
  json?: boolean;
}

/** Where a run is: its last step record. */
export interface CurrentStep {
  seq: number;
  name: string;
  status: string;
}

/** One row of `waymark runs --json`. */
export interface ListedRun extends RunSummary {
  /** The last step record; null for completed runs, whose history is not read. */
  currentStep: CurrentStep | null;
}

/** Histories read at once while listing. */
const HISTORY_READS = 4;

/**
 * `waymark runs`: the runs, newest first, with filters and cursor paging. The STEP column
 * reads each listed run's history (four at a time), except for completed runs.
 *
 * @example
 * ```sh
 * waymark runs --status needs_attention,failed --since 2h
 * waymark runs --workflow procurement --limit 20 --json
 * ```
 */
export function registerRunsCommand(program: Command, cli: CliContext): void {
  program
    .command('runs')
    .description('list runs, newest first')
    .option('--status <status>', 'only runs in this status (repeat it, or a,b)', collectStatuses)
    .option('--workflow <name>', 'only runs of this workflow')
    .option('--since <when>', 'only runs started since: 2h, 30m, 7d or an ISO date', (t) =>
      since(t),
    )
    .option('--limit <n>', 'at most this many runs, 1 to 1000', integerIn(1, 1000), 50)
    .option('--cursor <cursor>', 'the next page, as printed under the previous one')
    .option('--json', 'print one JSON object { runs, nextCursor } for scripts')
    .action(async (options: RunsOptions, command: Command) => {
      const url = databaseUrlOf(command, cli.env);
      const page = await withRuntime(url, cli.output, (runtime) => listRuns(runtime, options));
      if (options.json) {
        cli.output.json({ runs: page.runs, nextCursor: page.nextCursor ?? null });
        return;
      }
      printRuns(cli, page.runs, page.nextCursor);
    });
}

async function listRuns(
  runtime: WaymarkRuntime,
  options: RunsOptions,
): Promise<{ runs: ListedRun[]; nextCursor?: string }> {
  const page = await runtime.list({
    status: options.status,
    workflow: options.workflow,
    limit: options.limit,
    cursor: options.cursor,
  });
  let runs = page.runs;
  let nextCursor = page.nextCursor;
  if (options.since) {
    // Newest first: once one run is older than --since, every later page is too.
    const kept = runs.filter((run) => run.createdAt >= options.since!);
    if (kept.length < runs.length) nextCursor = undefined;
    runs = kept;
  }
  const steps = await mapConcurrently(runs, HISTORY_READS, (run) => currentStep(runtime, run));
  return {
    runs: runs.map((run, i) => ({ ...run, currentStep: steps[i]! })),
    ...(nextCursor === undefined ? {} : { nextCursor }),
  };
}

async function currentStep(runtime: WaymarkRuntime, run: RunSummary): Promise<CurrentStep | null> {
  if (run.status === 'completed') return null;
  try {
    const [last] = await runtime.history(run.runId, { order: 'desc', limit: 1 });
    return last ? { seq: last.seq, name: last.name, status: last.status } : null;
  } catch (error) {
    if (isRunNotFoundError(error)) return null; // deleted since it was listed
    throw error;
  }
}

function printRuns(cli: CliContext, runs: ListedRun[], nextCursor: string | undefined): void {
  const { output } = cli;
  if (runs.length === 0) {
    output.line('no runs match');
    return;
  }
  const paint = output.paint;
  const rows = runs.map((run): Cell[] => [
    run.runId,
    run.workflow,
    run.version ?? NONE,
    { text: run.status, paint: (status) => paintStatus(paint, status) },
    formatTimestamp(run.createdAt),
    formatTimestamp(run.updatedAt),
    run.currentStep
      ? [
          `#${run.currentStep.seq} ${run.currentStep.name} `,
          { text: run.currentStep.status, paint: paint.dim },
        ]
      : NONE,
  ]);
  const headers = ['RUN', 'WORKFLOW', 'VERSION', 'STATUS', 'STARTED', 'UPDATED', 'STEP'].map(
    (text): Painted => ({ text, paint: paint.bold }),
  );
  for (const line of formatTable(headers, rows)) output.line(line);
  if (nextCursor !== undefined) output.line(output.paint.dim(`next cursor: ${nextCursor}`));
}
