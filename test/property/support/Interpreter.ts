import { injectable } from 'tsyringe';
import {
  RetriesExhaustedError,
  RetryableError,
  Retry,
  Step,
  Workflow,
  WorkflowContext,
} from 'waymark';

/** The attempt budget of `Interpreter.flaky`, first attempt included. */
export const MAX_ATTEMPTS = 4;

/** One step call of a program; `seq` is the sequence number the runtime will give it. */
export type StepOp =
  | { kind: 'plain'; seq: number; value: number }
  /** Fails transiently `failures` times; `failures >= MAX_ATTEMPTS` exhausts the budget. */
  | { kind: 'flaky'; seq: number; failures: number }
  /** Fails with a permanent error at once. */
  | { kind: 'broken'; seq: number };

/** A recorded value: `ctx.now()` or `ctx.uuid()`. */
export type ValueOp = { kind: 'now'; seq: number } | { kind: 'uuid'; seq: number };

/** One operation of a program: a step, `Promise.all` over steps, or a recorded value. */
export type Op = StepOp | ValueOp | { kind: 'all'; steps: StepOp[] };

/** A generated workflow: the argument of `Interpreter.run`, so each program is its own run. */
export type Program = Op[];

/** What the workflow returns for one op (a group returns one entry per member). */
export type Entry = string | string[];

/** One execution of a step body (one attempt), as the body itself saw it. */
export interface Execution {
  readonly runId: string;
  readonly seq: number;
  readonly attempt: number;
  readonly idempotencyKey: string;
  /** Which process life (0 = first start, n = after the n-th restart) executed it. */
  readonly life: number;
}

/** A value the workflow code saw from `ctx.now()` / `ctx.uuid()` in one life. */
export interface Observation {
  readonly runId: string;
  readonly seq: number;
  readonly value: string;
  readonly life: number;
}

/** What the interpreter saw, per run; one per runtime family, registered in its container. */
export class Probe {
  /** Set by the test before each call: the life the next executions belong to. */
  life = 0;
  readonly executions: Execution[] = [];
  readonly observations: Observation[] = [];
}

/** A failure the workflow catches and carries on after. */
export class PermanentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentError';
  }
}

/**
 * Walks a program: every op calls one of three fixed steps or records a value. Failures are
 * driven by `ctx.attempt`, so they are the same on every replay and after every restart.
 * The workflow catches every error, as careless workflow code does, so a `SimulatedCrash`
 * reaching it must not change what gets recorded.
 */
@injectable()
export class Interpreter {
  constructor(
    private readonly ctx: WorkflowContext,
    private readonly probe: Probe,
  ) {}

  @Workflow({ name: 'property-interpreter' })
  async run(program: Program): Promise<Entry[]> {
    const entries: Entry[] = [];
    for (const op of program) {
      if (op.kind === 'all') {
        entries.push(await Promise.all(op.steps.map((step) => this.call(step))));
      } else if (op.kind === 'now') {
        entries.push(`now:${this.observe(op.seq, this.ctx.now().toISOString())}`);
      } else if (op.kind === 'uuid') {
        entries.push(`uuid:${this.observe(op.seq, this.ctx.uuid())}`);
      } else {
        entries.push(await this.call(op));
      }
    }
    return entries;
  }

  @Step()
  async plain(seq: number, value: number): Promise<string> {
    this.executed(seq);
    return `plain#${seq}=${value}`;
  }

  @Step()
  @Retry({ maxAttempts: MAX_ATTEMPTS, backoff: { fixed: 1 } })
  async flaky(seq: number, failures: number): Promise<string> {
    const attempt = this.executed(seq);
    if (attempt <= failures) throw new RetryableError(`flaky#${seq} attempt ${attempt}`);
    return `flaky#${seq}@${attempt}`;
  }

  @Step()
  async broken(seq: number): Promise<string> {
    this.executed(seq);
    throw new PermanentError(`broken#${seq}`);
  }

  /** Calls the op's step synchronously (so it takes its seq now) and catches what it throws. */
  private async call(op: StepOp): Promise<string> {
    try {
      if (op.kind === 'plain') return await this.plain(op.seq, op.value);
      if (op.kind === 'flaky') return await this.flaky(op.seq, op.failures);
      return await this.broken(op.seq);
    } catch (error) {
      const e = error as Error;
      const attempts = error instanceof RetriesExhaustedError ? `(${error.attempts})` : '';
      return `${op.kind}#${op.seq}!${e.name}${attempts}: ${e.message}`;
    }
  }

  private executed(seq: number): number {
    const { runId, attempt, idempotencyKey } = this.ctx;
    this.probe.executions.push({ runId, seq, attempt, idempotencyKey, life: this.probe.life });
    return attempt;
  }

  private observe(seq: number, value: string): string {
    this.probe.observations.push({ runId: this.ctx.runId, seq, value, life: this.probe.life });
    return value;
  }
}
