import { AsyncLocalStorage } from 'node:async_hooks';
import type { EntityManager } from 'typeorm';
import type { ActiveRun } from './ActiveRun';
import type { RuntimeKernel } from './RuntimeKernel';

/** The step whose body is executing. */
export interface StepFrame {
  readonly seq: number;
  readonly name: string;
  readonly idempotencyKey: string;
  readonly attempt: number;
  readonly signal: AbortSignal;
  /** In a transactional step: the transaction's EntityManager. */
  readonly entityManager?: EntityManager;
}

const storage = new AsyncLocalStorage<RunScope>();

/**
 * What the current async call chain is executing: which runtime, which run, and whether
 * it is inside a step body. One `WorkflowContext` serves every run by reading this.
 */
export class RunScope {
  private constructor(
    readonly kernel: RuntimeKernel,
    readonly run: ActiveRun,
    readonly step: StepFrame | undefined,
  ) {}

  static current(): RunScope | undefined {
    return storage.getStore();
  }

  /** A scope at the top level of a run's workflow method. */
  static forRun(kernel: RuntimeKernel, run: ActiveRun): RunScope {
    return new RunScope(kernel, run, undefined);
  }

  /** This run, inside the body of `step`. */
  inStep(step: StepFrame): RunScope {
    return new RunScope(this.kernel, this.run, step);
  }

  /** Runs `fn` with this scope current; sync throws become rejections. */
  enter<T>(fn: () => T | Promise<T>): Promise<T> {
    return storage.run(this, async () => fn());
  }
}
