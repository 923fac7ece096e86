import type { RunSummary } from '../store/RunQueries';
import type { ShownStep } from './commands/showCommand';
import { Output } from './Output';
import { ShownRunPrinter, type ShownRunWriter } from './ShownRunPrinter';

/**
 * `waymark show --json`: one JSON document `{ run, waitingReason, steps, idempotencyKeyNote }`
 * written as the steps are read, so a history of any length never sits in memory whole.
 *
 * @example
 * ```ts
 * const json = new ShownRunJson(output);
 * json.begin(run, null);
 * json.steps(page);
 * json.end();
 * ```
 */
export class ShownRunJson implements ShownRunWriter {
  /** The last step written, held until we know whether a comma follows it. */
  private held: string | undefined;

  constructor(private readonly output: Output) {}

  begin(run: RunSummary, waitingReason: string | null): void {
    this.output.line('{');
    this.output.line(`  "run": ${nested(run, 1)},`);
    this.output.line(`  "waitingReason": ${nested(waitingReason, 1)},`);
    this.output.line('  "steps": [');
  }

  steps(steps: readonly ShownStep[]): void {
    for (const step of steps) {
      if (this.held !== undefined) this.output.line(`${this.held},`);
      this.held = `    ${nested(step, 2)}`;
    }
  }

  end(): void {
    if (this.held !== undefined) this.output.line(this.held);
    this.output.line('  ],');
    this.output.line(`  "idempotencyKeyNote": ${nested(ShownRunPrinter.keyNote, 1)}`);
    this.output.line('}');
  }
}

/** A value as pretty JSON nested `depth` levels deep (two spaces a level). */
function nested(value: unknown, depth: number): string {
  return Output.jsonText(value, 2).replace(/\n/g, `\n${'  '.repeat(depth)}`);
}
