import type { ArgsFunction } from '../model/ArgsFunction';
import type { AnyClass } from './metadata';

/** Everything the runtime needs to start, resume or join a run of one `@Workflow` method. */
export interface WorkflowPlan {
  readonly kind: 'workflow';
  /** The name stored with its runs. */
  readonly name: string;
  readonly version: string | undefined;
  /** Derives the run id from the arguments; undefined for a new UUID per run. */
  readonly id: ArgsFunction<string> | undefined;
  /** The named queue its runs wait in (`runtime.queue`); undefined for the default queue. */
  readonly queue: string | undefined;
  /** Durable time limit of each run, from its start. */
  readonly timeoutMs: number | undefined;
  /** How long ended runs are kept. */
  readonly retentionMs: number | undefined;
  readonly declaringClass: AnyClass;
  readonly methodName: string;
  /** `Class.method`, for messages. */
  readonly target: string;
  /** The method body as written (the decorator routes calls of the method elsewhere). */
  readonly body: (...args: unknown[]) => unknown;
}
