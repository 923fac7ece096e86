import type { Command } from 'commander';
import type { WaymarkRuntime } from '../../runtime/WaymarkRuntime';
import { assertRunId } from '../../store/identifiers';
import type { RunSummary, StepRecord } from '../../store/RunQueries';
import { databaseUrlOf, type CliContext } from '../CliContext';
import { withRuntime } from '../openRuntime';
import { ShownRunPrinter, type ShownRunWriter } from '../ShownRunPrinter';
import { ShownRunJson } from '../ShownRunJson';
import { formatRelative } from '../formatTime';

/** A step of `waymark show --json`: the stored record and its default idempotency key. */
export interface ShownStep extends StepRecord {
  /** `${runId}:${seq}`; null for waits (signals, timers), which have none. */
  idempotencyKey: string | null;
}

/** `waymark show --json`. */
export interface ShownRun {
  run: RunSummary;
  /** Why the run is not moving, in words; null while it runs or once it ended. */
  waitingReason: string | null;
  steps: ShownStep[];
  idempotencyKeyNote: string;
}

/** Steps read and printed at a time: memory stays bounded however long the history is. */
const PAGE = 1000;

/**
 * `waymark show <runId>`: the run (status, owner, what it waits for and until when, where it
 * is parked) and its step timeline, every step, read and printed a page at a time.
 *
 * @example
 * ```sh
 * waymark show po-1234
 * waymark show po-1234 --json | jq '.steps[] | select(.status != "completed")'
 * ```
 */
export function registerShowCommand(program: Command, cli: CliContext): void {
  program
    .command('show')
    .description('show a run and its step timeline')
    .argument('<runId>', 'the run')
    .option('--json', 'print one JSON object { run, waitingReason, steps } for scripts')
    .action(async (runId: string, options: { json?: boolean }, command: Command) => {
      assertRunId(runId, 'the run id');
      const url = databaseUrlOf(command, cli.env);
      await withRuntime(url, cli.output, async (runtime) => {
        const run = await runtime.handle(runId).describe();
        const reason = await waitingReason(runtime, run, new Date());
        const writer: ShownRunWriter = options.json
          ? new ShownRunJson(cli.output)
          : new ShownRunPrinter(cli.output);
        writer.begin(run, reason);
        for (let from = 0; !cli.output.closed;) {
          const page = await runtime.history(runId, { from, limit: PAGE });
          writer.steps(page.map((step) => shownStep(run, step)));
          if (page.length < PAGE) break;
          from = page[page.length - 1].seq + 1;
        }
        writer.end();
      });
    });
}

function shownStep(run: RunSummary, step: StepRecord): ShownStep {
  return { ...step, idempotencyKey: isWait(step.name) ? null : `${run.runId}:${step.seq}` };
}

/** Waits are recorded in the history like steps; they call nothing, so they have no key. */
function isWait(name: string): boolean {
  return name === 'sleep' || name.startsWith('signal:');
}

/** Steps looked at, from the latest, for the one a waiting run retries. */
const RETRY_LOOKBACK = 100;

async function waitingReason(
  runtime: WaymarkRuntime,
  run: RunSummary,
  now: Date,
): Promise<string | null> {
  const due = run.wakeAt ? ` (due ${formatRelative(run.wakeAt, now)})` : '';
  switch (run.status) {
    case 'pending':
      return 'a worker to take it';
    case 'needs_attention': {
      const [parked] =
        run.parkedSeq === null
          ? []
          : await runtime.history(run.runId, { from: run.parkedSeq, limit: 1 });
      const where =
        parked?.seq === run.parkedSeq ? `step #${parked.seq} ${parked.name} is parked; ` : '';
      return `an operator: ${where}waymark retry, resolve or cancel it`;
    }
    case 'waiting': {
      const waitingFor = run.waitingFor ?? '';
      if (waitingFor.startsWith('signal:')) {
        const deadline = run.wakeAt ? `, or its timeout${due}` : ', no timeout';
        return `signal "${waitingFor.slice('signal:'.length)}"${deadline}`;
      }
      if (waitingFor === 'sleep') return `a timer${due}`;
      if (waitingFor === 'start') return `its start time (start({ at }))${due}`;
      const latest = await runtime.history(run.runId, { order: 'desc', limit: RETRY_LOOKBACK });
      const retrying = latest.filter((step) => step.status === 'retrying').at(-1);
      if (retrying) return `the next attempt of step #${retrying.seq} ${retrying.name}${due}`;
      return `its wake-up time${due}`;
    }
    default:
      return null;
  }
}
