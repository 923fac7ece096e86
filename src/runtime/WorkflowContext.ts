import { randomUUID } from 'node:crypto';
import { injectable } from 'tsyringe';
import type { EntityManager } from 'typeorm';
import { NotInRunError } from '../errors/NotInRunError';
import { RunScope } from './RunScope';
import { RuntimeRegistry } from './RuntimeRegistry';

/**
 * The current run, as seen from workflow and step code. Stateless: one instance serves
 * every run by reading the run scope of the calling async context, so it can be
 * constructor-injected into a singleton service.
 *
 * @example
 * ```ts
 * @injectable()
 * class Agent {
 *   constructor(private readonly ctx: WorkflowContext, private readonly psp: Payments) {}
 *
 *   @Step()
 *   async charge(order: Order): Promise<Receipt> {
 *     return this.psp.charge(order, { idempotencyKey: this.ctx.idempotencyKey });
 *   }
 * }
 * ```
 */
@injectable()
export class WorkflowContext {
  /** Whether the caller is executing inside a run. */
  get inRun(): boolean {
    return RunScope.current() !== undefined;
  }

  /** Id of the current run. */
  get runId(): string {
    return this.scope('runId').run.runId;
  }

  /** Inside a step: the attempt being executed, from 1. */
  get attempt(): number {
    return this.stepFrame('attempt').attempt;
  }

  /**
   * Inside a step: a key that is the same on every attempt and resume of this step
   * (`${runId}:${seq}` unless `@Idempotent` derives one). Pass it to payment gateways,
   * queues and APIs that deduplicate.
   */
  get idempotencyKey(): string {
    return this.stepFrame('idempotencyKey').idempotencyKey;
  }

  /** Inside a step: aborts when the attempt times out or the run is cancelled. */
  get signal(): AbortSignal {
    return this.stepFrame('signal').signal;
  }

  /**
   * In a `@Step({ transactional: true })`: the EntityManager of the transaction the step's
   * checkpoint commits in. Write business rows through it and they commit (or roll back)
   * with the step, exactly once.
   */
  get entityManager(): EntityManager {
    const manager = this.stepFrame('entityManager').entityManager;
    if (!manager) {
      throw new NotInRunError('WorkflowContext.entityManager', 'step', 'transactional step');
    }
    return manager;
  }

  /** The current time; in a workflow it is recorded, so a resume sees the same instant. */
  now(): Date {
    return this.recorded('ctx.now', () => new Date(this.clockNow()));
  }

  /** A random number in [0, 1); in a workflow it is recorded, so a resume sees the same value. */
  random(): number {
    return this.recorded('ctx.random', () => Math.random());
  }

  /** A random UUID; in a workflow it is recorded, so a resume sees the same value. */
  uuid(): string {
    return this.recorded('ctx.uuid', () => randomUUID());
  }

  private recorded<T>(name: string, produce: () => T): T {
    const scope = RunScope.current();
    if (!scope || scope.step) return produce();
    return scope.kernel.interceptor.recordValue(scope, name, produce);
  }

  private clockNow(): number {
    const kernel = RunScope.current()?.kernel ?? RuntimeRegistry.current();
    return kernel ? kernel.clock.now() : Date.now();
  }

  private scope(what: string): RunScope {
    const scope = RunScope.current();
    if (!scope) throw new NotInRunError(`WorkflowContext.${what}`, 'run');
    return scope;
  }

  private stepFrame(what: string) {
    const step = RunScope.current()?.step;
    if (!step) throw new NotInRunError(`WorkflowContext.${what}`, 'step');
    return step;
  }
}
