import type { Command } from 'commander';
import type { WaymarkRuntime } from '../../runtime/WaymarkRuntime';
import { assertRunId } from '../../model/identifiers';
import type { RunSummary, StepRecord } from '../../model/RunRecords';
import { databaseUrlOf, type CliContext } from '../CliContext';
import { withRuntime } from '../openRuntime';
import type { ShownOutcome, ShownRunWriter, ShownStep } from '../ShownRun';
import { isTerminalStatus } from '../../model/RunStatus';
import { storedOutcomeOf } from '../../errors/storedOutcomeNote';
import { ShownRunPrinter } from '../ShownRunPrinter';
import { ShownRunJson } from '../ShownRunJson';
import { formatRelative } from '../formatTime';

/** Steps read and printed at a time: memory stays bounded however long the history is. */
const PAGE = 1000;

/**
 * `waymark show <runId>`: the run (arguments, status, owner, what it waits for and until when,
 * where it is parked and why) and its step timeline with each step's output and idempotency
 * key, every step, read and printed a page at a time. Values are cut in the database — at
 * 60 characters for people, 16,384 with `--json` — and printed whole with `--whole`.
 *
 * @example
 * ```sh
 * waymark show po-1234
 * waymark show po-1234 --json | jq '.steps[] | select(.status != "completed")'
 * waymark show po-1234 --json --whole > po-1234.json
 * ```
 */
export function registerShowCommand(program: Command, cli: CliContext): void {
  program
    .command('show')
    .description('show a run and its step timeline')
    .argument('<runId>', 'the run')
    .option(
      '--json',
      'print one JSON object { run, waitingReason, steps } for scripts; a value over 16,384 characters as its start { json, truncated, length }',
    )
    .option('--whole', 'print arguments, outputs, results and errors whole')
    .action(
      async (runId: string, options: { json?: boolean; whole?: boolean }, command: Command) => {
        assertRunId(runId, 'the run id');
        const url = databaseUrlOf(command, cli.env);
        await withRuntime(url, cli.output, async (runtime) => {
          const whole = options.whole === true;
          const writer: ShownRunWriter = options.json
            ? new ShownRunJson(cli.output, whole)
            : new ShownRunPrinter(cli.output, whole);
          const { valueChars, errorChars } = writer;
          const run = await runtime.handle(runId).describe({ valueChars });
          const reason = await waitingReason(runtime, run, new Date());
          writer.begin(run, reason, await shownOutcome(runtime, run, writer));
          for (let from = 0; !cli.output.closed;) {
            const page = await runtime.history(runId, {
              from,
              limit: PAGE,
              valueChars,
              errorChars,
            });
            writer.steps(page.map((step) => shownStep(run, step)));
            if (page.length < PAGE) break;
            from = page[page.length - 1].seq + 1;
          }
          writer.end();
        });
      },
    );
}

/**
 * An ended run's result, or the error it ended with (as the caller of the run would get it);
 * one longer than the writer shows is read cut in the database, never decoded whole.
 */
async function shownOutcome(
  runtime: WaymarkRuntime,
  run: RunSummary,
  writer: ShownRunWriter,
): Promise<ShownOutcome | null> {
  if (!isTerminalStatus(run.status)) return null;
  const chars = Math.max(writer.valueChars, writer.errorChars);
  const stored = await runtime.handle(run.runId).outcome({ valueChars: chars });
  if (stored && 'result' in stored && stored.result.truncated) {
    return { resultPreview: stored.result };
  }
  if (stored && 'error' in stored && stored.length > chars) return { error: stored.error };
  try {
    return { result: await runtime.handle(run.runId).result() };
  } catch (thrown) {
    // The error as stored, without the line a caller's re-throw of it carries.
    const error = storedOutcomeOf(thrown)?.error ?? thrown;
    const e = error as { name?: unknown; message?: unknown; code?: unknown } | null;
    return {
      error: {
        name: typeof e?.name === 'string' ? e.name : 'Error',
        message: typeof e?.message === 'string' ? e.message : String(error),
        ...(typeof e?.code === 'string' ? { code: e.code } : {}),
      },
    };
  }
}

function shownStep(run: RunSummary, step: StepRecord): ShownStep {
  const key = isWait(step.name) ? null : (step.idempotencyKey ?? `${run.runId}:${step.seq}`);
  return { ...step, idempotencyKey: key };
}

/** Waits are recorded in the history like steps; they call nothing, so they have no key. */
function isWait(name: string): boolean {
  return name === 'sleep' || name.startsWith('signal:');
}

/** History reads that want steps' names, not their values: the database cuts those at once. */
const NAMES_ONLY = { valueChars: 1, errorChars: 1 };

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
          : await runtime.history(run.runId, { from: run.parkedSeq, limit: 1, ...NAMES_ONLY });
      const where =
        parked?.seq === run.parkedSeq ? `step #${parked.seq} ${parked.name} is parked; ` : '';
      return `an operator: ${where}waymark retry, resolve or cancel it`;
    }
    case 'waiting': {
      const waitingFor = run.waitingFor ?? '';
      if (waitingFor.startsWith('signal:')) return signalReason(runtime, run, now);
      if (waitingFor === 'sleep') return `a timer${due}`;
      if (waitingFor === 'start') return `its start time (start({ at }))${due}`;
      const latest = await runtime.history(run.runId, {
        order: 'desc',
        limit: RETRY_LOOKBACK,
        ...NAMES_ONLY,
      });
      const retrying = latest.filter((step) => step.status === 'retrying').at(-1);
      if (retrying) return `the next attempt of step #${retrying.seq} ${retrying.name}${due}`;
      return `its wake-up time${due}`;
    }
    default:
      return null;
  }
}

/**
 * A run waiting for a signal: still waiting, or — the signal arrived, or its timeout passed —
 * due to resume as soon as a worker takes it.
 */
async function signalReason(runtime: WaymarkRuntime, run: RunSummary, now: Date): Promise<string> {
  const name = (run.waitingFor ?? '').slice('signal:'.length);
  const [arrived] = await runtime.handle(run.runId).pendingSignals(name);
  if (arrived) {
    const when =
      now.getTime() - arrived.sentAt.getTime() < 1000
        ? 'just now'
        : formatRelative(arrived.sentAt, now);
    return `a worker to resume it: signal "${name}" was delivered ${when}`;
  }
  if (!run.wakeAt) return `signal "${name}", no timeout`;
  const due = formatRelative(run.wakeAt, now);
  if (run.wakeAt > now) return `signal "${name}", or its timeout (due ${due})`;
  return `a worker to resume it: signal "${name}" timed out ${due}`;
}
