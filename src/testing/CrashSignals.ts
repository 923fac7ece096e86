import type { TestRuntime } from './TestRuntime';

/** A signal {@link crashMatrix} sends to the run, as an operator or another service would. */
export interface CrashMatrixSignal {
  /** The name the workflow waits for: `ctx.waitForSignal(name)`. */
  readonly name: string;
  /** What `waitForSignal` returns. */
  readonly payload?: unknown;
  /**
   * When to send it. Default: as soon as the run waits for this signal. With a step
   * (`'Class.method'` or its step name): at the first moment the run is waiting (for a
   * timer, a retry or any signal) after that step completed, so the signal is already
   * there when the workflow asks for it.
   */
  readonly after?: string;
}

/** What one look at the run found: a signal sent, a run no signal can wake, or neither. */
export type SignalStep =
  | { readonly kind: 'sent'; readonly name: string }
  | { readonly kind: 'stuck'; readonly waitingFor: string }
  | { readonly kind: 'idle' };

/**
 * The signals of one crash case (or of the reference run), each sent once across the
 * runtime's restarts: the database keeps what was sent, so a restart must not send it again.
 */
export class CrashSignals {
  private readonly sent = new Set<number>();

  constructor(private readonly signals: readonly CrashMatrixSignal[]) {}

  /** Signals never sent, by name, for the report. */
  get unsent(): string[] {
    return this.signals.filter((_, i) => !this.sent.has(i)).map((s) => s.name);
  }

  /**
   * Sends the next signal that is due, if the run is waiting. Only a waiting run is looked
   * at: its stack has unwound, so nothing the run does can race with the send.
   */
  async step(runtime: TestRuntime, runId: string): Promise<SignalStep> {
    const run = await runtime.handle(runId).describe();
    if (run.status !== 'waiting') return { kind: 'idle' };
    const completed = await this.completedSteps(runtime, runId);
    const index = this.signals.findIndex(
      (signal, i) =>
        !this.sent.has(i) &&
        (signal.after === undefined
          ? run.waitingFor === `signal:${signal.name}`
          : this.namesOf(runtime, signal.after).some((name) => completed.has(name))),
    );
    const signal = this.signals[index];
    if (signal) {
      await runtime.signal(runId, signal.name, signal.payload);
      this.sent.add(index);
      return { kind: 'sent', name: signal.name };
    }
    // A wait without a deadline that no signal here will end would hold the test forever.
    if (run.wakeAt === null && run.waitingFor?.startsWith('signal:')) {
      return { kind: 'stuck', waitingFor: run.waitingFor };
    }
    return { kind: 'idle' };
  }

  private async completedSteps(runtime: TestRuntime, runId: string): Promise<Set<string>> {
    if (this.signals.every((signal, i) => this.sent.has(i) || signal.after === undefined)) {
      return new Set();
    }
    const history = await runtime.history(runId);
    return new Set(history.filter((s) => s.status === 'completed').map((s) => s.name));
  }

  /** The history names `step` goes by: itself, or the step name of a `'Class.method'` that ran. */
  private namesOf(runtime: TestRuntime, step: string): string[] {
    const executed = runtime.executions.all().filter((e) => e.target === step);
    return [step, ...executed.map((e) => e.step)];
  }
}
