import type { Command } from 'commander';
import type { RunSummary, StepRecord } from '../../store/RunQueries';
import { databaseUrlOf, type CliContext } from '../CliContext';
import { firstLine } from '../describeFailure';
import { formatTable } from '../formatTable';
import { formatElapsed, formatRelative, formatTimestamp, NONE } from '../formatTime';
import { withRuntime } from '../openRuntime';
import { paintStatus } from '../Palette';

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

const KEY_NOTE =
  'idempotency keys are the defaults (runId:seq); a step with @Idempotent({ key }) uses its own key, which the store does not keep';

/**
 * `waymark show <runId>`: the run (status, owner, what it waits for and until when, where it
 * is parked) and its step timeline.
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
      const url = databaseUrlOf(command, cli.env);
      const shown = await withRuntime(url, cli.output, async (runtime) => {
        const run = await runtime.handle(runId).describe();
        return describeRun(run, await runtime.history(runId), new Date());
      });
      if (options.json) cli.output.json(shown);
      else printRun(cli, shown);
    });
}

function describeRun(run: RunSummary, history: StepRecord[], now: Date): ShownRun {
  return {
    run,
    waitingReason: waitingReason(run, history, now),
    steps: history.map((step) => ({
      ...step,
      idempotencyKey: isWait(step.name) ? null : `${run.runId}:${step.seq}`,
    })),
    idempotencyKeyNote: KEY_NOTE,
  };
}

/** Waits are recorded in the history like steps; they call nothing, so they have no key. */
function isWait(name: string): boolean {
  return name === 'sleep' || name.startsWith('signal:');
}

function waitingReason(run: RunSummary, history: StepRecord[], now: Date): string | null {
  const due = run.wakeAt ? ` (due ${formatRelative(run.wakeAt, now)})` : '';
  switch (run.status) {
    case 'pending':
      return 'a worker to take it';
    case 'needs_attention': {
      const parked = history.find((step) => step.seq === run.parkedSeq);
      const where = parked ? `step #${parked.seq} ${parked.name} is parked; ` : '';
      return `an operator: ${where}waymark retry, resolve or cancel it`;
    }
    case 'waiting': {
      const waitingFor = run.waitingFor ?? '';
      if (waitingFor.startsWith('signal:')) {
        const deadline = run.wakeAt ? `, or its timeout${due}` : ', no timeout';
        return `signal "${waitingFor.slice('signal:'.length)}"${deadline}`;
      }
      if (waitingFor === 'sleep') return `a timer${due}`;
      const retrying = history.find((step) => step.status === 'retrying');
      if (retrying) return `the next attempt of step #${retrying.seq} ${retrying.name}${due}`;
      return `its wake-up time${due}`;
    }
    default:
      return null;
  }
}

function printRun(cli: CliContext, shown: ShownRun): void {
  const { output } = cli;
  const { run } = shown;
  const paint = output.paint;
  const fields: Array<[string, string]> = [
    ['run', paint.bold(run.runId)],
    ['workflow', run.workflow],
    ['version', run.version ?? NONE],
    ['status', paintStatus(paint, run.status)],
  ];
  if (shown.waitingReason) fields.push(['waiting for', shown.waitingReason]);
  if (run.wakeAt) fields.push(['deadline', formatTimestamp(run.wakeAt)]);
  if (run.parkedSeq !== null) fields.push(['parked at', `#${run.parkedSeq}`]);
  fields.push(['owner', run.owner ?? NONE]);
  if (run.forkedFrom) fields.push(['forked from', `${run.forkedFrom} at #${run.forkedSeq ?? '?'}`]);
  if (run.parentRunId) fields.push(['parent', run.parentRunId]);
  fields.push(['started', formatTimestamp(run.createdAt)]);
  fields.push(['updated', formatTimestamp(run.updatedAt)]);
  const width = Math.max(...fields.map(([label]) => label.length));
  for (const [label, value] of fields) output.line(`${paint.dim(label.padEnd(width))}  ${value}`);
  output.line();
  if (shown.steps.length === 0) {
    output.line('no steps recorded yet');
    return;
  }
  const headers = ['SEQ', 'STEP', 'STATUS', 'ATTEMPTS', 'DURATION', 'IDEMPOTENCY KEY', 'ERROR'];
  const rows = shown.steps.map((step) => [
    String(step.seq),
    step.name,
    paintStatus(paint, step.status),
    String(step.attempts),
    formatElapsed(step.durationMs),
    step.idempotencyKey ?? NONE,
    errorCell(step),
  ]);
  for (const line of formatTable(headers.map(paint.bold), rows)) output.line(line);
  output.line();
  output.line(paint.dim(shown.idempotencyKeyNote));
}

function errorCell(step: StepRecord): string {
  if (!step.error) return '';
  const error = `${step.error.name}: ${firstLine(step.error.message)}`;
  return step.nextAttemptAt
    ? `${error} (next attempt ${formatTimestamp(step.nextAttemptAt)})`
    : error;
}
