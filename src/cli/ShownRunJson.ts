import type { RunSummary } from '../model/RunRecords';
import type { StoredValue } from '../model/StoredValue';
import { Output } from './Output';
import {
  IDEMPOTENCY_KEY_NOTE,
  type ShownOutcome,
  type ShownRunWriter,
  type ShownStep,
} from './ShownRun';

/**
 * `waymark show --json`: one JSON document `{ run, waitingReason, steps, idempotencyKeyNote }`
 * (see {@link ShownRun}) written as the steps are read, so a history of any length never sits
 * in memory whole. Arguments and outputs are whole, as the codec's JSON.
 *
 * @example
 * ```ts
 * const json = new ShownRunJson(output);
 * json.begin(run, null, { result: 'closed t1' });
 * json.steps(page);
 * json.end();
 * ```
 */
export class ShownRunJson implements ShownRunWriter {
  readonly valueChars = Infinity;
  /** The last step written, held until we know whether a comma follows it. */
  private held: string | undefined;

  constructor(private readonly output: Output) {}

  begin(run: RunSummary, waitingReason: string | null, outcome: ShownOutcome | null): void {
    const shown = { ...run, args: run.args === undefined ? null : jsonValue(run.args) };
    this.output.line('{');
    this.output.line(`  "run": ${nested(shown, 1)},`);
    this.output.line(`  "waitingReason": ${nested(waitingReason, 1)},`);
    this.output.line(`  "outcome": ${nested(outcome, 1)},`);
    this.output.line('  "steps": [');
  }

  steps(steps: readonly ShownStep[]): void {
    for (const step of steps) {
      if (this.held !== undefined) this.output.line(`${this.held},`);
      const shown = step.output === undefined ? step : { ...step, output: jsonValue(step.output) };
      this.held = `    ${nested(shown, 2)}`;
    }
  }

  end(): void {
    if (this.held !== undefined) this.output.line(this.held);
    this.output.line('  ],');
    this.output.line(`  "idempotencyKeyNote": ${nested(IDEMPOTENCY_KEY_NOTE, 1)}`);
    this.output.line('}');
  }
}

/** A stored value as JSON: the codec's text parsed; text that is not JSON stays a string. */
function jsonValue(value: StoredValue): unknown {
  if (value.truncated) return value.json;
  try {
    return JSON.parse(value.json) as unknown;
  } catch {
    return value.json;
  }
}

/** A value as pretty JSON nested `depth` levels deep (two spaces a level). */
function nested(value: unknown, depth: number): string {
  return Output.jsonText(value, 2).replace(/\n/g, `\n${'  '.repeat(depth)}`);
}
