import type { RunSummary, StepRecord } from '../model/RunRecords';
import type { StoredValue } from '../model/StoredValue';
import { firstLine } from './describeFailure';
import { TableLayout, type Cell, type Painted } from './formatTable';
import { formatElapsed, formatTimestamp, NONE } from './formatTime';
import type { Output } from './Output';
import { paintStatus } from './Palette';
import {
  IDEMPOTENCY_KEY_NOTE,
  type ShownOutcome,
  type ShownRunWriter,
  type ShownStep,
} from './ShownRun';
import { terminalSafe } from './terminalSafe';

const HEADERS = [
  'SEQ',
  'STEP',
  'STATUS',
  'ATTEMPTS',
  'DURATION',
  'IDEMPOTENCY KEY',
  'OUTPUT',
  'ERROR',
];

/** Characters of a stored value (arguments, a step's output) shown; `--whole` shows them whole. */
const PREVIEW_CHARS = 60;

/** Characters of an error message read (the first line is printed); `--whole` reads it all. */
const ERROR_CHARS = 1000;

/**
 * `waymark show` for people: the run's facts, then the step table, written as pages arrive
 * (columns widen when a later page has a wider cell). Arguments and step outputs are shown
 * as the start of their stored JSON (`--whole` prints them whole). Stored text is made safe
 * for the terminal ({@link terminalSafe}) before it is coloured.
 *
 * @example
 * ```ts
 * const printer = new ShownRunPrinter(output);
 * printer.begin(run, 'a worker to take it', null);
 * printer.steps(page);
 * printer.end();
 * ```
 */
export class ShownRunPrinter implements ShownRunWriter {
  readonly valueChars: number;
  readonly errorChars: number;
  private readonly table: TableLayout;
  private printed = 0;

  constructor(
    private readonly output: Output,
    whole = false,
  ) {
    this.valueChars = whole ? Infinity : PREVIEW_CHARS;
    this.errorChars = whole ? Infinity : ERROR_CHARS;
    const bold = output.paint.bold;
    this.table = new TableLayout(HEADERS.map((text): Painted => ({ text, paint: bold })));
  }

  begin(run: RunSummary, waitingReason: string | null, outcome: ShownOutcome | null): void {
    const { output } = this;
    const paint = output.paint;
    const safe = (text: string): string => terminalSafe(text);
    const fields: Array<[string, string]> = [
      ['run', paint.bold(safe(run.runId))],
      ['workflow', safe(run.workflow)],
      ['version', safe(run.version ?? NONE)],
      ['arguments', safe(run.args ? preview(run.args) : NONE)],
      ['status', paintStatus(paint, run.status)],
    ];
    if (waitingReason) fields.push(['waiting for', safe(waitingReason)]);
    if (run.wakeAt) fields.push(['deadline', formatTimestamp(run.wakeAt)]);
    if (run.parkedSeq !== null) fields.push(['parked at', `#${run.parkedSeq}`]);
    if (run.parkedReason) fields.push(['parked because', safe(firstLine(run.parkedReason))]);
    if (run.deadlineAt) fields.push(['run deadline', formatTimestamp(run.deadlineAt)]);
    fields.push(['owner', safe(run.owner ?? NONE)]);
    if (run.forkedFrom) {
      fields.push(['forked from', `${safe(run.forkedFrom)} at #${run.forkedSeq ?? '?'}`]);
    }
    if (run.parentRunId) fields.push(['parent', safe(run.parentRunId)]);
    if (outcome) fields.push(outcomeField(outcome, this.valueChars));
    fields.push(['started', formatTimestamp(run.createdAt)]);
    fields.push(['updated', formatTimestamp(run.updatedAt)]);
    let width = 0;
    for (const [label] of fields) width = Math.max(width, label.length);
    for (const [label, value] of fields) output.line(`${paint.dim(label.padEnd(width))}  ${value}`);
    output.line();
  }

  steps(steps: readonly ShownStep[]): void {
    if (steps.length === 0) return;
    const paint = this.output.paint;
    const rows = steps.map((step): Cell[] => [
      String(step.seq),
      step.name,
      { text: step.status, paint: (status) => paintStatus(paint, status) },
      String(step.attempts),
      formatElapsed(step.durationMs),
      step.idempotencyKey ?? NONE,
      step.output ? preview(step.output) : '',
      errorCell(step),
    ]);
    for (const line of this.table.lines(rows, { header: this.printed === 0 })) {
      this.output.line(line);
    }
    this.printed += steps.length;
  }

  end(): void {
    if (this.printed === 0) {
      this.output.line('no steps recorded yet');
      return;
    }
    this.output.line();
    this.output.line(this.output.paint.dim(IDEMPOTENCY_KEY_NOTE));
  }
}

function errorCell(step: Pick<StepRecord, 'error' | 'nextAttemptAt'>): string {
  if (!step.error) return '';
  const error = `${step.error.name}: ${firstLine(step.error.message)}`;
  return step.nextAttemptAt
    ? `${error} (next attempt ${formatTimestamp(step.nextAttemptAt)})`
    : error;
}

/** The run's result (the start of its JSON) or the error it ended with, made safe for the terminal. */
function outcomeField(outcome: ShownOutcome, chars: number): [string, string] {
  if ('resultPreview' in outcome) {
    const { json, length } = outcome.resultPreview;
    return ['result', terminalSafe(`${json.slice(0, chars)}… (${length} chars)`)];
  }
  if ('result' in outcome) {
    const json = JSON.stringify(outcome.result) ?? 'undefined';
    const shown = json.length > chars ? `${json.slice(0, chars)}… (${json.length} chars)` : json;
    return ['result', terminalSafe(shown)];
  }
  const { name, message, code } = outcome.error;
  return ['error', terminalSafe(`${name}${code ? ` [${code}]` : ''}: ${firstLine(message)}`)];
}

/** The start of a stored value, marked when there is more: `{"to":"ann@exa… (1234 chars)`. */
function preview(value: StoredValue): string {
  return value.truncated ? `${value.json}… (${value.length} chars)` : value.json;
}
