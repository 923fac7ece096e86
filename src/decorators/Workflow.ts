import { ConfigurationError } from '../errors/ConfigurationError';
import { parseDuration, type Duration } from '../ground/Duration';
import { decoratedMethod } from './decoratedMethod';
import type { StorableResult } from '../model/Storable';
import { readMethodPolicies, recordPolicy, type WorkflowMetadata } from './metadata';
import { routeToInterceptor } from './routeToInterceptor';
import { validateOptions } from './validation/validateOptions';
import { registerWorkflowName } from './WorkflowRegistry';

/** Options of {@link Workflow}. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a user's unannotated parameters stay `any`, as before; `never` would refuse `(order) => order.id`
export interface WorkflowOptions<A extends unknown[] = any[]> {
  /** Stable name stored with each run; default `Class.method`. Keep it when renaming code. */
  name?: string;
  /** Version stored on each run, for rollouts (see `patched()`). */
  version?: string;
  /** Derives the run id from the arguments, so calling again with them resumes that run. */
  id?: (...args: A) => string;
  /** The named queue (`runtime.queue(name, …)`) its runs wait in for a worker. */
  queue?: string;
  /**
   * Durable time limit of each run, counted from its start and stored with it (a restart does
   * not reset it): past it the run, and its child runs, are cancelled at the next step boundary.
   */
  timeout?: Duration;
  /** How long ended runs of this workflow are kept; workers delete older ones in batches. */
  retention?: Duration;
}

/**
 * Marks a method as the entry point of a durable run. Calling it outside a run starts the
 * run, or resumes the stored run with the same id, or returns its stored result.
 *
 * @example
 * ```ts
 * @injectable()
 * class ProcurementAgent {
 *   @Workflow({ name: 'procurement', version: '3', id: (req: PurchaseRequest) => `po-${req.id}` })
 *   async procure(req: PurchaseRequest): Promise<Outcome> {
 *     const draft = await this.draft(req);
 *     return this.submit(draft);
 *   }
 * }
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a user's unannotated parameters stay `any`, as before; `never` would refuse `(order) => order.id`
export function Workflow<A extends any[]>(options?: WorkflowOptions<A>) {
  // `id` may read a prefix of the arguments; the method may take more.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a user's unannotated parameters stay `any`, as before; `never` would refuse `(order) => order.id`
  return function <M extends (...args: [...A, ...any[]]) => Promise<unknown>>(
    target: object,
    propertyKey: string | symbol,
    descriptor: TypedPropertyDescriptor<M> & StorableResult<M>,
  ): void {
    const method = decoratedMethod('@Workflow', target, propertyKey, descriptor);
    const opts = validateOptions('workflow', options, method.where);
    if (readMethodPolicies(method.declaringClass, method.methodName)?.step) {
      throw new ConfigurationError(`${method.where}: a method cannot be both @Workflow and @Step`);
    }
    const metadata: WorkflowMetadata = {
      name: opts.name ?? `${method.declaringClass.name}.${method.methodName}`,
      version: opts.version,
      id: opts.id,
      ...(opts.queue === undefined ? {} : { queue: opts.queue }),
      timeoutMs: optionalMs(opts.timeout, `${method.where}: timeout`),
      retentionMs: optionalMs(opts.retention, `${method.where}: retention`),
    };
    registerWorkflowName(metadata.name, {
      target: method.declaringClass,
      methodName: method.methodName,
    });
    recordPolicy(method.declaringClass, method.methodName, method.original, 'workflow', metadata);
    routeToInterceptor(method.declaringClass, method.methodName, descriptor, method.original);
  };
}

function optionalMs(value: Duration | undefined, where: string): number | undefined {
  return value === undefined ? undefined : parseDuration(value, where);
}
