import { AsyncLocalStorage } from 'node:async_hooks';
import type { AiCall } from '../../model/AiCall';
import type { EntityManager } from 'typeorm';
import type { Clock } from '../../ground/Clock';
import type { StepCall } from './StepCall';
import type { WorkflowCall } from './WorkflowCall';
import type { RunState } from './RunState';
import type { StreamWriter } from '../streams/StreamWriter';

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

/**
 * What workflow code can do in a run, each at the next sequence number: call a step or a
 * child workflow, wait, record a value. One implementation per runtime serves every run.
 */
export interface RunOperations {
  readonly clock: Clock;
  step(scope: RunScope, call: StepCall): Promise<unknown>;
  child(scope: RunScope, call: WorkflowCall): Promise<unknown>;
  waitForSignal(scope: RunScope, name: string, timeoutMs: number | undefined): Promise<unknown>;
  sleep(scope: RunScope, ms: number): Promise<void>;
  record<T>(scope: RunScope, name: string, produce: () => T): T;
  patched(scope: RunScope, id: string): boolean;
  deprecatePatch(scope: RunScope, id: string): void;
  stream<T>(scope: RunScope, name: string): StreamWriter<T>;
  /** Tells the runtime's listeners (`ai.call`) of a model or tool call the step body made. */
  reportAiCall(scope: RunScope, step: StepFrame, call: AiCall): void;

  /**
   * Inside a step's body in a replay run: the replayed run's recorded result of this step
   * when `matches` accepts it (the step was made from the same input), else undefined.
   */
  answerFromSource(scope: RunScope, matches: (recorded: unknown) => boolean): Promise<unknown>;
}

const storage = new AsyncLocalStorage<RunScope>();

/**
 * What the current async call chain is executing: which run (and through which runtime's
 * operations), and whether it is inside a step body. One `WorkflowContext` serves every run
 * by reading this.
 */
export class RunScope {
  private constructor(
    readonly operations: RunOperations,
    readonly run: RunState,
    readonly step: StepFrame | undefined,
  ) {}

  static current(): RunScope | undefined {
    return storage.getStore();
  }

  /** A scope at the top level of a run's workflow method. */
  static forRun(operations: RunOperations, run: RunState): RunScope {
    return new RunScope(operations, run, undefined);
  }

  /** This run, inside the body of `step`. */
  inStep(step: StepFrame): RunScope {
    return new RunScope(this.operations, this.run, step);
  }

  /** Runs `fn` with this scope current; sync throws become rejections. */
  enter<T>(fn: () => T | Promise<T>): Promise<T> {
    return storage.run(this, () => {
      try {
        return Promise.resolve(fn());
      } catch (error) {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- rethrown as is
        return Promise.reject(error);
      }
    });
  }
}
