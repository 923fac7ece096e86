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
 * in memory whole. Arguments and outputs are the codec's JSON; one over
 * {@link JSON_VALUE_CHARS} characters is its start (`{ json, truncated: true, length }`),
 * the database reading only that, unless `whole`.
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
  readonly valueChars: number;
  readonly errorChars: number;
  /** The last step written, held until we know whether a comma follows it. */
  private held: string | undefined;

  constructor(
    private readonly output: Output,
    whole = false,
  ) {
    this.valueChars = this.errorChars = whole ? Infinity : JSON_VALUE_CHARS;
  }

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

/** Characters of a value `--json` prints before it cuts it (`--whole`: never). */
export const JSON_VALUE_CHARS = 16_384;

/**
 * A stored value as JSON: the codec's text parsed; text that is not JSON stays a string; a
 * cut one stays as read, `{ json, truncated: true, length }`.
 */
function jsonValue(value: StoredValue): unknown {
  if (value.truncated) return value;
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
